package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.ElectionBuilder;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.Transport;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Builds the elections of this application, all alike but for their group: the application's own and those of
 * {@link LeaderOnly#group()}. Their listeners run on an executor of its own, so that an application listener that
 * blocks never holds up the election's threads, and it publishes their events as Spring application events.
 */
final class ElectionFactory implements AutoCloseable {
    private final Settings settings;
    private final StoreHealth store;
    /** The lease store the starter made, which it closes; null for the application's own. */
    private final LeaseStore ownedStore;

    private final StateStore stateStore;
    private final Transport transport;
    private final ApplicationEventPublisher publisher;
    private final java.util.List<Election> created = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ExecutorService listeners = Executors.newCachedThreadPool(new ThreadFactory() {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread thread = new Thread(r, "bellwether-listener-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    });

    /**
     * @param store the lease store in lease mode, else null
     * @param ownsStore whether the starter made {@code store} (and so closes it)
     * @param transport the transport of a peer algorithm, else null
     */
    ElectionFactory(
            Settings settings,
            LeaseStore store,
            boolean ownsStore,
            StateStore stateStore,
            Transport transport,
            ApplicationEventPublisher publisher) {
        this.settings = settings;
        this.store = store == null ? null : new StoreHealth(store);
        this.ownedStore = ownsStore ? store : null;
        this.stateStore = stateStore;
        this.transport = transport;
        this.publisher = publisher;
    }

    Settings settings() {
        return settings;
    }

    /** The lease store as the elections see it, in lease mode. */
    Optional<StoreHealth> store() {
        return Optional.ofNullable(store);
    }

    Optional<Transport> transport() {
        return Optional.ofNullable(transport);
    }

    /** An unstarted election of {@code group}. */
    Election create(String group) {
        ElectionBuilder builder = Election.builder()
                .group(group)
                .self(settings.node())
                .algorithm(settings.spec(group, store))
                .stateStore(stateStore)
                .listenerExecutor(listeners);
        if (transport != null) {
            builder.transport(transport);
        }
        if (!settings.peers().isEmpty()) {
            builder.members(settings.peers());
        }
        Election election = builder.build();
        created.add(election);
        return election;
    }

    /** An unstarted election of {@code group} whose events are published as application events. */
    Election createPublishing(String group) {
        Election election = create(group);
        publishEvents(election);
        return election;
    }

    void publishEvents(Election election) {
        election.addListener(new EventPublisher(election, publisher));
    }

    /**
     * Closes the elections it made (a no-op for those already closed, and what frees the threads of one never
     * started, as when the context fails to start), then shuts the listeners' executor down once they have stopped
     * (at most a few seconds), so that their last events still run on it.
     */
    /**
     * Closes the lease store the starter made, once the elections are closed: in the lifecycle's stop, while the
     * DataSource or Redis client it borrows from is still open (Spring Data Redis' connection factory shuts its
     * client down in its own lifecycle stop, before any bean is destroyed).
     */
    void closeOwnedStore() {
        if (ownedStore != null) {
            ownedStore.close();
        }
    }

    @Override
    public void close() {
        created.forEach(Election::close);
        closeOwnedStore();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        for (Election election : created) {
            try {
                election.closed()
                        .toCompletableFuture()
                        .get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // Not stopped (never started, or stuck): nothing more to wait for.
            }
        }
        listeners.shutdown();
    }
}
