package io.bellwether.server.cli;

import io.bellwether.server.config.LeaseSettings;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.node.NodeDaemon;
import io.bellwether.spi.StateStoreException;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bellwether node --config FILE}: runs one node in the foreground until SIGTERM or SIGINT, then resigns
 * gracefully (a leader hands over to a successor) and exits 0.
 */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        description = {
            "Runs one node of a cluster in the foreground: peer transport, election, HTTP status, metrics and"
                    + " dashboard.",
            "SIGTERM or Ctrl-C resigns gracefully (leadership is handed over) and exits 0.",
            "Exit status: 0 stopped cleanly, 2 invalid configuration (an unusable state-dir or state file included), 3"
                    + " could not start (or out of memory), 70 halted by a fatal error on an election thread."
        })
final class NodeCommand implements Callable<Integer> {
    /** The JVM's DNS cache while a node runs, unless set otherwise (see {@link #capDnsCache()}). */
    static final int DNS_CACHE_SECONDS = 1;

    @Spec
    CommandSpec spec;

    @Mixin
    NodeConfigFile config;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Optional<NodeConfig> loaded = config.load("node", err);
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        NodeConfig node = loaded.get();
        configureLogging();
        capDnsCache();
        NodeDaemon.haltOnFatalError();
        CountDownLatch stop = new CountDownLatch(1);
        NodeDaemon daemon;
        try {
            daemon = NodeDaemon.start(node);
        } catch (RuntimeException e) {
            return startFailed("node", node, e, err);
        }
        // The node resigns on the thread the JVM starts for the signal, rather than waking the main thread to do it:
        // one thread hand-off less between the signal and the handover's first message. A second signal finds
        // the resignation under way and leaves it be.
        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable resign = () -> {
            if (stopping.compareAndSet(false, true)) {
                try {
                    daemon.close();
                } finally {
                    stop.countDown();
                }
            }
        };
        Signals.onTermination(resign, daemon::close);
        out.println("bellwether node " + node.node() + " of cluster " + node.cluster() + " ("
                + NodeDaemon.describeGroups(node) + ", " + node.algorithm() + ") on "
                + (node.listen() != null
                        ? node.listen()
                        : node.lease().map(LeaseSettings::redactedStore).orElse("?")));
        out.println("dashboard: " + daemon.url() + "   status: " + daemon.url() + "status   metrics: " + daemon.url()
                + "metrics");
        out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        daemon.close();
        out.println("bellwether node " + node.node() + ": stopped");
        out.flush();
        return Main.EXIT_OK;
    }

    /**
     * The JVM keeps a successful name lookup for 30 s by default, so a peer's new address (a pod restarted with
     * another IP, under {@code peers-dns} or a host name under {@code peers}) would stay hidden that long after
     * its DNS record changed. The node caps it at {@value #DNS_CACHE_SECONDS} s unless the operator set it (the
     * security property {@code networkaddress.cache.ttl}, or {@code -Dsun.net.inetaddr.ttl}). It only takes
     * effect before the JVM's first lookup, which is why it is set here, before the node starts.
     */
    static void capDnsCache() {
        if (java.security.Security.getProperty("networkaddress.cache.ttl") == null
                && System.getProperty("sun.net.inetaddr.ttl") == null) {
            java.security.Security.setProperty("networkaddress.cache.ttl", Integer.toString(DNS_CACHE_SECONDS));
        }
    }

    /**
     * The daemon's log is its record of role changes: one INFO line each (the command line's default is warn, to keep
     * simulations quiet). Call before the election's classes create their loggers.
     */
    static void configureLogging() {
        setIfAbsent("org.slf4j.simpleLogger.log.io.bellwether", "info");
        setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSZ");
    }

    /** The state store's refusal among {@code e}'s causes, if it is one. */
    static Optional<StateStoreException> stateStoreProblem(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StateStoreException s) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }

    /**
     * Says why {@code node} could not start, as {@code bellwether <command>: ...}, and returns the exit status: {@link
     * Main#EXIT_USAGE} when its state-dir (or what that holds) is the problem, else {@link Main#EXIT_ERROR}.
     */
    static int startFailed(String command, NodeConfig node, RuntimeException e, PrintWriter err) {
        Optional<StateStoreException> state = stateStoreProblem(e);
        if (state.isPresent()) {
            // At start-up the state store only opens its directory and reads the state files: what fails there
            // is the configured state-dir or what it holds, not this program.
            err.println("bellwether " + command + ": cannot start node " + node.node() + ": state-dir = '"
                    + node.stateDir() + "' cannot be used: " + state.get().getMessage() + " (allowed a directory"
                    + " this process can write, holding only state files this node wrote)");
            err.println("See docs/configuration.md for every key, its default and allowed values.");
            return Main.EXIT_USAGE;
        }
        err.println("bellwether " + command + ": cannot start node " + node.node() + ": " + describe(e));
        return Main.EXIT_ERROR;
    }
}
