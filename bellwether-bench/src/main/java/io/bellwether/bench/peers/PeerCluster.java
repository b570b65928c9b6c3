package io.bellwether.bench.peers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The processes of one system under test, on loopback: its nodes (which print {@link PeerProtocol} lines) and its
 * supporting servers (the ZooKeeper ensemble under Curator), with the directory that holds their configuration,
 * data and logs. Every wait is bounded.
 */
public final class PeerCluster implements AutoCloseable {
    /** A leader line: which node, and the wall-clock nanoseconds it printed. */
    public record LeaderEvent(NodeProcess node, long wallNanos) {}

    private final String name;
    private final Path dir;
    private final Object monitor = new Object();
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final List<NodeProcess> support = new ArrayList<>();
    private final List<LeaderEvent> leaderEvents = new ArrayList<>();
    private final List<Runnable> cleanups = new ArrayList<>();
    private boolean keepDirectory;

    /**
     * A cluster with no processes yet.
     *
     * @param name the system's name, as {@code --systems} gives it
     * @param dir an empty directory of its own
     */
    public PeerCluster(String name, Path dir) {
        this.name = name;
        this.dir = dir;
    }

    /** The system's name. */
    public String name() {
        return name;
    }

    /** The directory of configuration, data and logs. */
    public Path directory() {
        return dir;
    }

    Object monitor() {
        return monitor;
    }

    /** Adds a node running {@code command}; its log is {@code ID.log} in the directory. */
    public NodeProcess addNode(String id, List<String> command) {
        NodeProcess p = new NodeProcess(this, id, command, dir.resolve(id + ".log"), true);
        nodes.add(p);
        return p;
    }

    /** Adds a supporting server running {@code command}; it prints no protocol lines. */
    public NodeProcess addSupport(String id, List<String> command) {
        NodeProcess p = new NodeProcess(this, id, command, dir.resolve(id + ".log"), false);
        support.add(p);
        return p;
    }

    /** Adds something to do on {@link #close}, after every process has ended (e.g. dropping tables). */
    public void onClose(Runnable cleanup) {
        cleanups.add(cleanup);
    }

    /** Keeps the directory, with the logs, after {@link #close}. */
    public void keepDirectory() {
        keepDirectory = true;
    }

    /** The nodes. */
    public List<NodeProcess> nodes() {
        return List.copyOf(nodes);
    }

    /** The supporting servers. */
    public List<NodeProcess> support() {
        return List.copyOf(support);
    }

    void recordLeader(NodeProcess node, long wallNanos) {
        leaderEvents.add(new LeaderEvent(node, wallNanos));
    }

    /** How many leader lines have been seen: a mark for {@link #awaitLeaderAfter}. */
    public int leaderMark() {
        synchronized (monitor) {
            return leaderEvents.size();
        }
    }

    /** Starts the supporting servers, then the nodes, and waits until every node is ready and one leads. */
    public NodeProcess start(Duration timeout) throws IOException, InterruptedException {
        for (NodeProcess p : support) {
            p.start();
        }
        for (NodeProcess p : nodes) {
            p.start();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean settled = await(
                () -> {
                    for (NodeProcess p : nodes) {
                        if (!p.isAlive()) {
                            throw new IllegalStateException(name + ": " + p.id() + " ended at start; see " + p.log());
                        }
                    }
                    return leaderIfSettled().isPresent();
                },
                timeout);
        return (settled
                        ? awaitOneLeader(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))
                        : Optional.<NodeProcess>empty())
                .orElseThrow(() -> new IllegalStateException(name + ": no single leader with every node ready within "
                        + timeout + " of the start; logs in " + dir));
    }

    /**
     * Waits for the first leader line, after {@code mark}, of a node other than {@code except}.
     *
     * @return the line, or empty after {@code timeout}
     */
    public Optional<LeaderEvent> awaitLeaderAfter(int mark, NodeProcess except, Duration timeout)
            throws InterruptedException {
        AtomicReference<LeaderEvent> found = new AtomicReference<>();
        await(
                () -> {
                    for (int i = mark; i < leaderEvents.size(); i++) {
                        if (leaderEvents.get(i).node() != except) {
                            found.set(leaderEvents.get(i));
                            return true;
                        }
                    }
                    return false;
                },
                timeout);
        return Optional.ofNullable(found.get());
    }

    /**
     * Waits until every node runs, is ready and not stopped, and exactly one says it leads.
     *
     * @return the leader, or empty after {@code timeout}
     */
    public Optional<NodeProcess> awaitOneLeader(Duration timeout) throws InterruptedException {
        boolean ok = await(() -> leaderIfSettled().isPresent(), timeout);
        synchronized (monitor) {
            return ok ? leaderIfSettled() : Optional.empty();
        }
    }

    private Optional<NodeProcess> leaderIfSettled() {
        NodeProcess leader = null;
        for (NodeProcess n : nodes) {
            if (!n.isReady() || n.isStopped()) {
                return Optional.empty();
            }
            if (n.isLeading()) {
                if (leader != null) {
                    return Optional.empty();
                }
                leader = n;
            }
        }
        for (NodeProcess s : support) {
            if (!s.isAlive()) {
                throw new IllegalStateException(name + ": " + s.id() + " ended; see " + s.log());
            }
        }
        return Optional.ofNullable(leader);
    }

    /** The nodes that say they lead, the latest to have said so first. */
    public List<NodeProcess> claimedLeaders() {
        synchronized (monitor) {
            List<NodeProcess> claims = new ArrayList<>();
            for (int i = leaderEvents.size() - 1; i >= 0; i--) {
                NodeProcess n = leaderEvents.get(i).node();
                if (n.isLeading() && !claims.contains(n)) {
                    claims.add(n);
                }
            }
            return claims;
        }
    }

    private boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (monitor) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                // Woken by every protocol line and every process end; the bound also catches a process that ended
                // without a line.
                monitor.wait(Math.max(1, Math.min(200, left / 1_000_000)));
            }
            return true;
        }
    }

    /** Every process id running now, nodes and supporting servers. */
    public List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        for (NodeProcess p : Stream.concat(nodes.stream(), support.stream()).toList()) {
            if (p.isAlive()) {
                pids.add(p.pid());
            }
        }
        return pids;
    }

    /** Ends every process (SIGCONT first for a stopped one), runs the clean-ups, deletes the directory. */
    @Override
    public void close() {
        for (NodeProcess p : Stream.concat(nodes.stream(), support.stream()).toList()) {
            try {
                if (p.isStopped() && p.isAlive()) {
                    p.sigcont();
                }
                p.destroy();
            } catch (Exception e) {
                System.err.println(name + ": could not end " + p.id() + ": " + e);
            }
        }
        for (Runnable cleanup : cleanups) {
            try {
                cleanup.run();
            } catch (RuntimeException e) {
                System.err.println(name + ": clean-up failed: " + e);
            }
        }
        if (!keepDirectory) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            } catch (IOException e) {
                System.err.println(name + ": could not delete " + dir + ": " + e);
            }
        }
    }
}
