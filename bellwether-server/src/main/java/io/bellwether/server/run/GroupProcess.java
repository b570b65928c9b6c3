package io.bellwether.server.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A program started in a process group (and session) of its own, watched by a <b>reaper</b>: a small {@code /bin/sh}
 * process ({@code reaper.sh}) whose standard input is a pipe from this JVM. The reaper signals the group when told
 * to ({@link #terminate()}, {@link #kill()}), and kills the whole group with SIGKILL when the pipe reaches end of
 * file: the kernel closes it when this JVM's process ends, however it ends, so the program and every process it
 * started in its group die with the runner.
 *
 * <p>A group started with a deadline is also under a <b>dead man's switch</b>: the reaper kills it with SIGKILL when
 * the deadline passes, unless {@link #expiresAt(long)} has moved the deadline on in time. A runner that stops
 * answering (SIGSTOP, a long pause of this JVM) leaves its pipe open, so end of file never comes; the deadline then
 * ends the group. The deadline travels as a relative duration ({@code expires-in MS}), so the reaper needs no
 * clock shared with this JVM: it starts counting when it reads the line, which only makes it later by the line's
 * transit.
 *
 * <p>The program is started through {@code /usr/bin/setsid} and a gate: a {@code /bin/sh} that waits for a line on
 * its standard input before it executes the program. The runner opens the gate only once the process leads its own
 * group and the reaper has been told that group, so there is no moment at which the program runs unwatched: if the
 * runner dies before the gate opens, the gate reads end of file and exits without running anything.
 *
 * <p>Its standard output and error are copied line by line to the given streams, each line prefixed. Not
 * thread-safe except {@link #terminate()}, {@link #kill()} and the getters.
 */
final class GroupProcess {
    private static final Logger log = LoggerFactory.getLogger(GroupProcess.class);

    static final String SETSID = "/usr/bin/setsid";
    static final String SH = "/bin/sh";

    /** Waits for "go" on standard input, then becomes the program; anything else (end of file) runs nothing. */
    private static final String GATE = "IFS= read -r go && [ \"$go\" = go ] && exec \"$@\"; exit 125";

    /** How long a started process may take to lead its own group (setsid runs first thing). */
    private static final long GROUP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final String REAPER = loadReaper();

    /** The longest deadline the reaper accepts, in milliseconds (9 digits, about 11.5 days); later ones are capped. */
    static final long MAX_EXPIRY_MILLIS = 999_999_999L;

    /** For {@link #start}: no deadline, the group lives until it is stopped or the runner dies. */
    static final long NO_DEADLINE = Long.MAX_VALUE;

    private final Process process;
    private final Process reaper;
    private final OutputStream control;
    private final long pgid;
    private final long startedNanos = System.nanoTime();
    private volatile long lastAliveNanos = startedNanos; // the start of the last reading that found the group alive
    private final List<Thread> pumps = new ArrayList<>();
    private boolean released; // guarded by this
    private long deadlineNanos = NO_DEADLINE; // the last one the reaper was told; guarded by this
    private boolean deadlineFailed; // guarded by this

    private GroupProcess(Process process, Process reaper) {
        this.process = process;
        this.reaper = reaper;
        this.control = reaper.getOutputStream();
        this.pgid = process.pid();
    }

    /**
     * Starts {@code command} with {@code environment} added to this JVM's, in a group of its own under a reaper.
     *
     * @param prefix put before every line the program writes, e.g. {@code "[epoch 7] "}
     * @param deadlineNanos when ({@link System#nanoTime()}) the reaper kills the group unless {@link #expiresAt}
     *     moves it on, told to the reaper before the program may run; {@link #NO_DEADLINE} for none
     * @throws IOException if the program, {@code setsid} or the reaper cannot be started
     */
    static GroupProcess start(
            List<String> command,
            Map<String, String> environment,
            String prefix,
            PrintStream out,
            PrintStream err,
            long deadlineNanos)
            throws IOException {
        Process reaper = new ProcessBuilder(SH, "-c", REAPER, "bellwether-reaper")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<String> argv = new ArrayList<>(List.of(SETSID, SH, "-c", GATE, "bellwether-run"));
        argv.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(argv);
        builder.environment().putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            reaper.destroyForcibly();
            throw e;
        }
        GroupProcess started = new GroupProcess(process, reaper);
        try {
            // setsid(1) execs at once (a process this JVM starts never leads a group, so setsid does not fork): the
            // pid becomes the group's id. Until it does, the gate holds the program back.
            if (!ProcessGroups.awaitOwnGroup(process.pid(), System.nanoTime() + GROUP_TIMEOUT_NANOS)) {
                throw new IOException("process " + process.pid() + " did not come to lead a process group of its own"
                        + " through " + SETSID);
            }
            started.tell("group " + started.pgid);
            if (deadlineNanos != NO_DEADLINE) {
                started.tell(expiresIn(deadlineNanos, System.nanoTime()));
                started.deadlineNanos = deadlineNanos;
            }
            OutputStream gate = process.getOutputStream();
            gate.write("go\n".getBytes(StandardCharsets.US_ASCII));
            gate.close();
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            started.release();
            throw e instanceof IOException io ? io : new IOException(e);
        }
        started.pump(process.getInputStream(), out, prefix, "out");
        started.pump(process.getErrorStream(), err, prefix, "err");
        return started;
    }

    /** The program's pid, which is also its process group's id. */
    long pid() {
        return pgid;
    }

    long startedNanos() {
        return startedNanos;
    }

    /** Completes when the program (the group's first process) has exited. */
    CompletableFuture<Process> onExit() {
        return process.onExit();
    }

    boolean exited() {
        return !process.isAlive();
    }

    /** The program's exit status (128 + signal number if a signal ended it); only once it has exited. */
    int exitStatus() {
        return process.exitValue();
    }

    /** SIGTERM to the whole group. */
    void terminate() {
        signal("term", "-TERM");
    }

    /** SIGKILL to the whole group. */
    void kill() {
        signal("kill", "-KILL");
    }

    /** Whether any process of the group is still alive. */
    boolean groupAlive() {
        return ProcessGroups.alive(pgid);
    }

    /** Waits until no process of the group is alive, or {@code deadlineNanos}; true if the group is gone. */
    boolean awaitGroupGone(long deadlineNanos) {
        while (true) {
            long before = System.nanoTime();
            if (!ProcessGroups.alive(pgid)) {
                return true;
            }
            lastAliveNanos = before;
            if (System.nanoTime() - deadlineNanos >= 0) {
                return false;
            }
            // Not past the deadline: a SIGKILL due then goes out on time, not up to a poll period late.
            LockSupport.parkNanos(Math.min(ProcessGroups.POLL_NANOS, deadlineNanos - System.nanoTime()));
        }
    }

    /**
     * How a {@link #stop} went.
     *
     * @param gone whether the group was seen gone before the stop gave up
     * @param killed whether SIGKILL was sent
     * @param termNanos when SIGTERM was sent ({@link System#nanoTime()}), or when the stop began if the group was gone
     * @param killNanos when SIGKILL was sent, or 0
     * @param goneNanos when the group was seen gone, or when the stop gave up
     * @param aliveNanos when the last reading that found the group alive began: the group was alive at or after it
     */
    record Stopped(boolean gone, boolean killed, long termNanos, long killNanos, long goneNanos, long aliveNanos) {}

    /**
     * Stops the group: SIGTERM now, SIGKILL at {@code killAtNanos} if it is still alive then, and waits for it until
     * {@code giveUpNanos}. Releases the reaper once the group is gone.
     */
    Stopped stop(long killAtNanos, long giveUpNanos) {
        long term = System.nanoTime();
        if (!groupAlive()) {
            release();
            return new Stopped(true, false, term, 0, System.nanoTime(), lastAliveNanos);
        }
        terminate();
        if (awaitGroupGone(killAtNanos)) {
            release();
            return new Stopped(true, false, term, 0, System.nanoTime(), lastAliveNanos);
        }
        long kill = System.nanoTime();
        kill();
        boolean gone = awaitGroupGone(giveUpNanos);
        if (gone) {
            release();
        }
        return new Stopped(gone, true, term, kill, System.nanoTime(), lastAliveNanos);
    }

    /**
     * Tells the reaper that the group must be gone at {@code deadlineNanos} ({@link System#nanoTime()}), replacing the
     * previous deadline; does nothing if that is the deadline it has, or once the group is released. A deadline in the
     * past kills the group at once.
     */
    synchronized void expiresAt(long deadlineNanos) {
        if (released || deadlineNanos == this.deadlineNanos) {
            return;
        }
        try {
            tell(expiresIn(deadlineNanos, System.nanoTime()));
            this.deadlineNanos = deadlineNanos;
        } catch (IOException e) {
            if (!deadlineFailed) {
                deadlineFailed = true;
                log.warn(
                        "the reaper of process group {} does not answer ({}): the group is not killed if this runner"
                                + " stops answering",
                        pgid,
                        e.toString());
            }
        }
    }

    /** The reaper's line for a deadline of {@code deadlineNanos} at {@code nowNanos}: whole milliseconds, rounded down. */
    static String expiresIn(long deadlineNanos, long nowNanos) {
        long millis = Math.max(0, deadlineNanos - nowNanos) / 1_000_000;
        return "expires-in " + Math.min(millis, MAX_EXPIRY_MILLIS);
    }

    /** Tells the reaper the group is gone and lets it exit; call only once no process of the group is left. */
    synchronized void release() {
        if (released) {
            return;
        }
        released = true;
        try {
            control.write("done\n".getBytes(StandardCharsets.US_ASCII));
            control.close();
        } catch (IOException e) {
            reaper.destroyForcibly();
        }
    }

    private synchronized void tell(String line) throws IOException {
        control.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        control.flush();
    }

    private void signal(String word, String option) {
        try {
            synchronized (this) {
                if (released) {
                    return;
                }
                tell(word);
            }
        } catch (IOException e) {
            // The reaper is gone (it should not be): signal the group with kill(1) instead.
            log.warn(
                    "the reaper of process group {} does not answer ({}); signalling with /bin/kill",
                    pgid,
                    e.toString());
            try {
                new ProcessBuilder("/bin/kill", option, "--", "-" + pgid)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
            } catch (IOException e2) {
                throw new UncheckedIOException("cannot signal process group " + pgid, e2);
            }
        }
    }

    private void pump(InputStream in, PrintStream to, String prefix, String name) {
        byte[] head = prefix.getBytes(StandardCharsets.UTF_8);
        Thread t = new Thread(
                () -> {
                    try (InputStream source = in) {
                        LinePump.copy(source, to, head);
                    } catch (IOException e) {
                        log.debug("output of process {} ended: {}", pgid, e.toString());
                    }
                },
                "bellwether-run-" + name + "-" + pgid);
        t.setDaemon(true);
        t.start();
        pumps.add(t);
    }

    /** Waits (bounded) for the output of the group to be copied out, after the group is gone. */
    void drainOutput(long timeoutMillis) {
        for (Thread t : pumps) {
            try {
                t.join(timeoutMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The reaper's script, for its tests. */
    static String reaperScript() {
        return REAPER;
    }

    private static String loadReaper() {
        try (InputStream in = Objects.requireNonNull(
                GroupProcess.class.getResourceAsStream("reaper.sh"), "reaper.sh missing from the class path")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
