package io.bellwether.bench.peers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One OS process of a system under test: a node (whose protocol lines, see {@link PeerProtocol}, it parses) or a
 * supporting server (a ZooKeeper server, which prints none). Its standard output and error go through a pipe to a
 * reader thread, which appends every line to the process's log file and reports protocol lines to the {@link
 * PeerCluster} it belongs to. Restartable: {@link #start} runs the same command again.
 */
public final class NodeProcess {
    private final String id;
    private final List<String> command;
    private final Path log;
    private final PeerCluster cluster;
    private final boolean node;

    private Process process;
    private boolean ready;
    private boolean leading;
    private boolean stopped;
    /** Statement totals with the driver's monotonic time of each: {nanoTime, total}. */
    private final List<long[]> statements = new ArrayList<>();

    NodeProcess(PeerCluster cluster, String id, List<String> command, Path log, boolean node) {
        this.cluster = cluster;
        this.id = id;
        this.command = List.copyOf(command);
        this.log = log;
        this.node = node;
    }

    /** The node's id (a supporting server's name). */
    public String id() {
        return id;
    }

    /** Whether this is a node (prints protocol lines) rather than a supporting server. */
    public boolean isNode() {
        return node;
    }

    /** The command line the process runs. */
    public List<String> command() {
        return command;
    }

    /** Where the process's output goes. */
    public Path log() {
        return log;
    }

    /** Starts (or restarts) the process; its state is that of a process not yet ready. */
    public void start() throws IOException {
        synchronized (cluster.monitor()) {
            if (process != null && process.isAlive()) {
                throw new IllegalStateException(id + " is already running");
            }
            ready = false;
            leading = false;
            stopped = false;
            statements.clear();
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            process = p;
            Thread reader = new Thread(() -> read(p), "bw-peer-reader-" + id);
            reader.setDaemon(true);
            reader.start();
        }
    }

    private void read(Process p) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                Writer out = Files.newBufferedWriter(
                        log, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            String line;
            while ((line = in.readLine()) != null) {
                long received = System.nanoTime();
                out.write(line);
                out.write('\n');
                if (node) {
                    Optional<PeerProtocol.Event> event = PeerProtocol.parse(line);
                    if (event.isPresent()) {
                        out.flush();
                        handle(p, event.get(), received);
                    }
                }
            }
        } catch (IOException e) {
            // the process ended; its pipe closed
        }
        synchronized (cluster.monitor()) {
            cluster.monitor().notifyAll();
        }
    }

    private void handle(Process p, PeerProtocol.Event event, long received) {
        synchronized (cluster.monitor()) {
            if (p != process) {
                return; // a line from an earlier run of this node, still draining
            }
            switch (event.kind()) {
                case READY -> ready = true;
                case LEADER -> {
                    leading = true;
                    cluster.recordLeader(this, event.value());
                }
                case FOLLOWER -> leading = false;
                case STATEMENTS -> statements.add(new long[] {received, event.value()});
            }
            cluster.monitor().notifyAll();
        }
    }

    /** Whether the process runs (it may be stopped by SIGSTOP). */
    public boolean isAlive() {
        synchronized (cluster.monitor()) {
            return process != null && process.isAlive();
        }
    }

    /** Whether the running process has said it is ready. */
    public boolean isReady() {
        synchronized (cluster.monitor()) {
            return process != null && process.isAlive() && ready;
        }
    }

    /** Whether the running process's last leadership line said it leads. */
    public boolean isLeading() {
        synchronized (cluster.monitor()) {
            return process != null && process.isAlive() && leading;
        }
    }

    /** Whether the process is stopped by {@link #sigstop}. */
    public boolean isStopped() {
        synchronized (cluster.monitor()) {
            return stopped;
        }
    }

    /** The process id; throws if it does not run. */
    public long pid() {
        synchronized (cluster.monitor()) {
            if (process == null || !process.isAlive()) {
                throw new IllegalStateException(id + " is not running");
            }
            return process.pid();
        }
    }

    /** The statement totals reported so far by this run, as {nanoTime received, total}. */
    public List<long[]> statements() {
        synchronized (cluster.monitor()) {
            return List.copyOf(statements);
        }
    }

    /** Sends SIGKILL. */
    public void kill9() {
        Process p = current();
        p.destroyForcibly();
    }

    /** Sends SIGTERM. */
    public void sigterm() {
        current().destroy();
    }

    /**
     * Sends SIGSTOP, through the {@link Signaller}'s shell (the JDK cannot send it itself); returns once the shell
     * has sent it.
     */
    public void sigstop() throws IOException {
        long pid = pid();
        synchronized (cluster.monitor()) {
            stopped = true;
        }
        Signaller.send("STOP", pid);
    }

    /** Sends SIGCONT. */
    public void sigcont() throws IOException {
        Signaller.send("CONT", pid());
        synchronized (cluster.monitor()) {
            stopped = false;
        }
    }

    /**
     * Sends signals through one long-running shell whose {@code kill} is a builtin: a line written to its input is
     * a signal sent within microseconds, where starting {@code kill(1)} for each would put a process start (a few
     * ms) between the time stamp and the signal.
     */
    /** Sends signals through one long-lived shell ({@code kill -SIG pid}); also used by the scale benchmark. */
    public static final class Signaller {
        private static Process shell;
        private static java.io.BufferedWriter in;
        private static BufferedReader out;

        private Signaller() {}

        /**
         * Sends {@code signal} (a name such as {@code STOP}) to process {@code pid}.
         *
         * @throws IOException if the signal could not be sent
         */
        public static synchronized void send(String signal, long pid) throws IOException {
            if (shell == null || !shell.isAlive()) {
                shell = new ProcessBuilder("sh").redirectErrorStream(true).start();
                in = new java.io.BufferedWriter(
                        new java.io.OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8));
                out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
                Runtime.getRuntime().addShutdownHook(new Thread(shell::destroy));
            }
            in.write("kill -" + signal + " " + pid + " && echo sent || echo failed\n");
            in.flush();
            String answer = out.readLine();
            while (answer != null && !answer.equals("sent") && !answer.equals("failed")) {
                answer = out.readLine(); // the shell's complaint, before its "failed"
            }
            if (!"sent".equals(answer)) {
                throw new IOException("kill -" + signal + " " + pid + " failed");
            }
        }
    }

    /**
     * Waits up to {@code timeout} for the process to end, then kills it (SIGKILL, and SIGCONT should it be
     * stopped) and waits for that.
     *
     * @return whether it ended of itself within the timeout
     */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        Process p;
        synchronized (cluster.monitor()) {
            p = process;
        }
        if (p == null) {
            return true;
        }
        if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        p.destroyForcibly();
        try {
            Signaller.send("CONT", p.pid());
        } catch (IOException e) {
            // already gone
        }
        p.waitFor(30, TimeUnit.SECONDS);
        return false;
    }

    /** Ends the process at once (SIGKILL) and waits for it, if it runs. */
    public void destroy() throws InterruptedException {
        Process p;
        synchronized (cluster.monitor()) {
            p = process;
        }
        if (p != null && p.isAlive()) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Process current() {
        synchronized (cluster.monitor()) {
            if (process == null || !process.isAlive()) {
                throw new IllegalStateException(id + " is not running");
            }
            return process;
        }
    }

    @Override
    public String toString() {
        return id;
    }
}
