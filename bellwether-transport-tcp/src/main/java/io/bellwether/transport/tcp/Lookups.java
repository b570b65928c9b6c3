package io.bellwether.transport.tcp;

import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.InetNameResolver;
import io.netty.resolver.InetSocketAddressResolver;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Blocking work kept off the transport's I/O thread: name lookups and peer resolution.
 *
 * <p>A host name in a peer address is looked up again at every connection attempt, so a peer whose DNS record
 * changed (a restarted pod with a new IP) is found at its new address. The JVM's resolver blocks; Netty's
 * default resolver would call it on the one I/O thread and stall every other peer's traffic for as long as a
 * DNS server takes to answer. Lookups run here instead, on up to {@value #THREADS} daemon threads ({@code
 * bellwether-tcp-lookup-*}) started on demand and ended after 30 s idle; IP literals are parsed in place. A
 * lookup that finds every thread busy fails at once (the connection attempt is retried as any failed one).
 */
final class Lookups implements AutoCloseable {
    static final int THREADS = 4;

    /** Looks up every address of a host name; blocking. */
    @FunctionalInterface
    interface NameLookup {
        InetAddress[] lookup(String host) throws UnknownHostException;
    }

    private final NameLookup lookup;
    private final ThreadPoolExecutor executor;
    private final AddressResolverGroup<InetSocketAddress> group = new AddressResolverGroup<>() {
        @Override
        protected AddressResolver<InetSocketAddress> newResolver(EventExecutor loop) {
            return new InetSocketAddressResolver(loop, new OffLoop(loop));
        }
    };

    Lookups(NameLookup lookup) {
        this.lookup = lookup;
        this.executor = new ThreadPoolExecutor(
                0,
                THREADS,
                30,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                new DefaultThreadFactory("bellwether-tcp-lookup", true));
    }

    /** What {@link io.netty.bootstrap.Bootstrap#resolver} needs to connect to host names this way. */
    AddressResolverGroup<InetSocketAddress> resolverGroup() {
        return group;
    }

    /**
     * Runs blocking {@code work} on a lookup thread.
     *
     * @throws RejectedExecutionException if every thread is busy or this is closed
     */
    void execute(Runnable work) {
        executor.execute(work);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        group.close();
    }

    /** Netty's name resolver contract, answered from a lookup thread. */
    private final class OffLoop extends InetNameResolver {
        private final EventExecutor loop;

        OffLoop(EventExecutor loop) {
            super(loop);
            this.loop = loop;
        }

        @Override
        protected void doResolve(String host, Promise<InetAddress> promise) {
            lookUp(host, all -> promise.trySuccess(all[0]), promise::tryFailure);
        }

        @Override
        protected void doResolveAll(String host, Promise<List<InetAddress>> promise) {
            lookUp(host, all -> promise.trySuccess(Arrays.asList(all)), promise::tryFailure);
        }

        private void lookUp(
                String host,
                java.util.function.Consumer<InetAddress[]> found,
                java.util.function.Consumer<Throwable> failed) {
            InetAddress literal = NetUtil.createInetAddressFromIpAddressString(host);
            if (literal != null) {
                found.accept(new InetAddress[] {literal});
                return;
            }
            try {
                executor.execute(() -> {
                    InetAddress[] all = null;
                    Exception failure = null;
                    try {
                        all = lookup.lookup(host);
                        if (all == null || all.length == 0) {
                            failure = new UnknownHostException(host + ": no addresses");
                        }
                    } catch (UnknownHostException | RuntimeException e) {
                        failure = e;
                    }
                    if (loop.isShuttingDown()) {
                        return; // the transport is closing: nobody waits for this any more
                    }
                    if (failure != null) {
                        failed.accept(failure);
                    } else {
                        found.accept(all);
                    }
                });
            } catch (RejectedExecutionException e) {
                failed.accept(new UnknownHostException(
                        host + ": not looked up, " + THREADS + " lookups are already in progress (or closing)"));
            }
        }
    }
}
