package io.bellwether.server.run;

import com.fasterxml.jackson.databind.JsonNode;
import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a command while this node leads: started for each leadership with its epoch in the environment, stopped
 * (SIGTERM, SIGKILL after the grace, the whole process group) when the leadership is revoked, so that it is gone
 * before the leadership's validity ends, provided the election was built with a revocation lead of {@code grace +}
 * {@link LeaderTiming#KILL_MARGIN} (see {@link LeaderTiming}).
 *
 * <p>While the command runs, the runner keeps its reaper told when the command must be gone: the leadership's validity
 * end less the kill margin, re-read every {@link RunPlan#reaperRefresh()} and sent whenever it moved (see {@link
 * GroupProcess#expiresAt}). A runner that stops answering (SIGSTOP, a long pause of its JVM) stops moving that
 * deadline on, and the reaper kills the command's group by itself when it passes: before the validity ends, and so
 * before another member can lead. A runner that answers sends its own SIGKILL {@link LeaderTiming#RUNNER_LEAD} before
 * that deadline, so the reaper's timer fires only for a runner that does not.
 *
 * <p>Every process is started, signalled and awaited on the runner's own thread. The election's listener only
 * queues events for it, so the runner never delays the election or its other listeners; a revocation reaches the
 * runner through {@link Leadership#revoked()}, which the runtime completes before the validity ends whether or not
 * the election's loop is making progress.
 *
 * <p>Thread-safe.
 */
public final class CommandRunner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CommandRunner.class);

    /** The first wait before a restart ({@code --on-exit restart}); it doubles with each exit in a row. */
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

    /** The longest wait before a restart; a command that ran longer than this starts the doubling again. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    /** A hook is killed after the grace, but never sooner than this after it started. */
    static final Duration MIN_HOOK_TIME = Duration.ofSeconds(1);

    /** How long past the validity the runner keeps waiting for a group that SIGKILL has not ended, before it says so. */
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(5);

    private sealed interface Event permits Elected, Revoked, Exited, Close {}

    private record Elected(Leadership leadership) implements Event {}

    private record Revoked(Leadership leadership, RevocationReason reason) implements Event {}

    private record Exited(GroupProcess process) implements Event {}

    private record Close(CompletableFuture<Void> done) implements Event {}

    private final Election election;
    private final List<String> command;
    private final Optional<OnExit> onExit;
    private final Optional<String> onElected;
    private final Optional<String> onRevoked;
    private final Duration grace;
    private final long refreshNanos;
    private final StepDown stepDown;
    private final PrintStream out;
    private final PrintStream err;
    private final CommandStatus status;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final ScheduledExecutorService hookTimer;
    private final ElectionListener listener = new ElectionListener() {
        @Override
        public void elected(Leadership leadership) {
            observe(leadership);
        }
    };

    // Confined to the runner's thread.
    private Leadership leadership; // the one the command runs for, while it holds
    private long lastEpoch = Long.MIN_VALUE;
    private GroupProcess running;
    private long runningEpoch;
    private int exitsInRow;
    private long timerAtNanos;
    private Runnable timer; // what to do at timerAtNanos: a restart after its backoff; null if nothing
    private long refreshAtNanos; // when the running command's deadline is next re-read
    private boolean closed;

    /**
     * @param plan the grace (the time between SIGTERM and SIGKILL; the election's revocation lead must be at least
     *     {@link RunPlan#revocationLead()}) and how often the reaper's deadline is re-read
     * @param registry where the {@code bellwether.command.*} meters go
     * @param out where the command's standard output goes, each line prefixed with its epoch
     * @param err where its standard error goes, likewise
     */
    public CommandRunner(
            Election election,
            RunOptions options,
            RunPlan plan,
            StepDown stepDown,
            MeterRegistry registry,
            PrintStream out,
            PrintStream err) {
        this.election = election;
        this.command = options.command();
        this.onExit = options.onExit();
        this.onElected = options.onElected();
        this.onRevoked = options.onRevoked();
        this.grace = plan.grace();
        this.refreshNanos = plan.reaperRefresh().toNanos();
        this.stepDown = stepDown;
        this.out = out;
        this.err = err;
        this.status = new CommandStatus(command, registry);
        this.thread = new Thread(this::loop, "bellwether-run-" + election.group() + "-" + election.self());
        thread.setDaemon(true);
        this.hookTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bellwether-run-hooks");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the runner's thread and follows the election (which may already lead). */
    public void start() {
        thread.start();
        election.addListener(listener);
        election.leadership().ifPresent(this::observe);
    }

    /** The {@code command} object of {@code GET /status}. */
    public JsonNode status() {
        return status.json();
    }

    /**
     * Stops the command, if it runs (SIGTERM, SIGKILL after the grace), and the runner. Call it before the election
     * is closed, so that a successor cannot lead while the command still runs. Idempotent; bounded.
     */
    @Override
    public void close() {
        election.removeListener(listener);
        CompletableFuture<Void> done = new CompletableFuture<>();
        events.add(new Close(done));
        try {
            done.get(grace.toMillis() + TimeUnit.NANOSECONDS.toMillis(GIVE_UP_NANOS) + 5_000, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            log.warn("the command runner did not stop in time: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        hookTimer.shutdown();
    }

    /** On the election's notifier (or the caller of start): queues the leadership and, later, its revocation. */
    private void observe(Leadership l) {
        events.add(new Elected(l));
        l.revoked().whenComplete((reason, failure) -> events.add(new Revoked(l, reason)));
    }

    private void loop() {
        while (!closed) {
            Event event;
            try {
                long now = System.nanoTime();
                long wait = Long.MAX_VALUE;
                if (timer != null) {
                    wait = Math.max(0, timerAtNanos - now);
                }
                if (running != null) {
                    wait = Math.min(wait, Math.max(0, refreshAtNanos - now));
                }
                event = wait == Long.MAX_VALUE ? events.take() : events.poll(wait, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                continue; // only close() ends the runner
            }
            try {
                if (event == null) {
                    if (timer != null && System.nanoTime() - timerAtNanos >= 0) {
                        Runnable due = timer;
                        timer = null;
                        due.run();
                    }
                } else if (event instanceof Elected e) {
                    onElected(e.leadership());
                } else if (event instanceof Revoked r) {
                    onRevoked(r.leadership(), r.reason());
                } else if (event instanceof Exited x) {
                    onExited(x.process());
                } else if (event instanceof Close c) {
                    onClose(c.done());
                }
                refreshDeadline();
            } catch (RuntimeException e) {
                log.error("the command runner failed handling {}", event, e);
            } catch (Error e) {
                // A runner that died would leave the command running unwatched by this JVM: an Error here is fatal
                // to the process, as on an election thread (the daemon halts; the reaper then kills the group).
                io.bellwether.runtime.FatalErrors.handler().onFatalError(Thread.currentThread(), e);
                throw e;
            }
        }
    }

    private void onElected(Leadership l) {
        if (l.epoch() <= lastEpoch) {
            return; // seen already (start() and the listener may both report it)
        }
        lastEpoch = l.epoch();
        if (!l.isValid()) {
            return;
        }
        leadership = l;
        exitsInRow = 0;
        timer = null;
        onElected.ifPresent(hook -> startHook(hook, "elected", l.epoch(), null));
        startCommand(l, false);
    }

    private void startCommand(Leadership l, boolean restart) {
        if (!l.isValid()) {
            return;
        }
        String prefix = "[epoch " + l.epoch() + "] ";
        GroupProcess p;
        try {
            p = GroupProcess.start(
                    command, environment(l.epoch(), election.self(), null), prefix, out, err, deadline(l));
        } catch (IOException e) {
            log.error("epoch {}: cannot start {}: {}", l.epoch(), command, e.toString());
            status.exited(127, l.epoch());
            afterExit(l, 127, 0);
            return;
        }
        running = p;
        runningEpoch = l.epoch();
        refreshAtNanos = System.nanoTime() + refreshNanos;
        status.started(p.pid(), l.epoch(), restart);
        log.info("epoch {}: {} command (pid {}): {}", l.epoch(), restart ? "restarted" : "started", p.pid(), command);
        p.onExit().whenComplete((x, failure) -> events.add(new Exited(p)));
    }

    private void onRevoked(Leadership l, RevocationReason reason) {
        if (l != leadership) {
            return;
        }
        leadership = null;
        timer = null;
        stopCommand(l, reason);
        onRevoked.ifPresent(hook -> startHook(hook, "revoked", l.epoch(), reason));
        // A leadership the watchdog revoked while the elector leads on at its epoch is resigned by the election
        // itself (the node then leads again, if at all, at a new epoch, which starts the command anew).
    }

    /** When the reaper kills the group of {@code l} unless told otherwise: the kill margin before its validity ends. */
    private static long deadline(Leadership l) {
        return reaperDeadline(l.validUntilNanos());
    }

    /** The reaper's deadline for a validity ending at {@code validUntilNanos}. */
    private static long reaperDeadline(long validUntilNanos) {
        return validUntilNanos - LeaderTiming.KILL_MARGIN.toNanos();
    }

    /**
     * When the runner's own SIGKILL goes out at the latest, for a validity ending at {@code validUntilNanos}: ahead
     * of the reaper's deadline for the same validity (computed from one reading of it: the validity may still move).
     */
    private static long killDeadline(long validUntilNanos) {
        return reaperDeadline(validUntilNanos) - LeaderTiming.RUNNER_LEAD.toNanos();
    }

    /**
     * Tells the running command's reaper the current deadline, when the time to re-read it has come. The leadership's
     * validity moves on with each renewal; the reaper hears of it within one refresh period.
     */
    private void refreshDeadline() {
        GroupProcess p = running;
        Leadership l = leadership;
        long now = System.nanoTime();
        if (p == null || now - refreshAtNanos < 0) {
            return;
        }
        refreshAtNanos = now + refreshNanos;
        if (l != null && !p.exited()) {
            p.expiresAt(deadline(l));
        }
    }

    private void at(long nanos, Runnable action) {
        timerAtNanos = nanos;
        timer = action;
    }

    /** Stops the running command as {@code l} ends: SIGKILL after the grace, ahead of the reaper's deadline. */
    private void stopCommand(Leadership l, RevocationReason reason) {
        GroupProcess p = running;
        if (p == null) {
            return;
        }
        running = null;
        long validUntil = l.validUntilNanos();
        // The reaper's deadline may lag a renewal behind; the grace is measured from the validity as it is now, one
        // reading for both deadlines.
        p.expiresAt(reaperDeadline(validUntil));
        long now = System.nanoTime();
        long killAt = Math.min(now + grace.toNanos(), killDeadline(validUntil));
        GroupProcess.Stopped stopped = p.stop(killAt, Math.max(now, validUntil) + GIVE_UP_NANOS);
        long beforeValidUntil = validUntil - stopped.goneNanos();
        if (stopped.gone() && beforeValidUntil < 0 && stopped.aliveNanos() - validUntil < 0) {
            // Seen gone only after the validity ended, but last seen alive before it: this thread was held up between
            // two readings (a busy machine), while the reaper's deadline ends the group the kill margin before the
            // validity ends. Nothing shows the group outlived the validity: not counted late.
            log.warn(
                    "epoch {}: the runner was held up while it stopped the command: its group was last seen alive {} ms"
                            + " before the leadership's validity ended and seen gone {} ms after",
                    l.epoch(),
                    TimeUnit.NANOSECONDS.toMillis(validUntil - stopped.aliveNanos()),
                    TimeUnit.NANOSECONDS.toMillis(-beforeValidUntil));
            beforeValidUntil = 0;
        }
        if (!stopped.gone()) {
            log.error(
                    "epoch {}: process group {} is still alive {} ms after SIGKILL",
                    l.epoch(),
                    p.pid(),
                    TimeUnit.NANOSECONDS.toMillis(stopped.goneNanos() - stopped.killNanos()));
            beforeValidUntil = Math.min(beforeValidUntil, -1);
        }
        status.stopped(l.epoch(), stopped, beforeValidUntil);
        p.drainOutput(1000);
        if (beforeValidUntil < 0) {
            log.error(
                    "epoch {}: the command's group was not gone until {} ms after the leadership's validity ended ({})",
                    l.epoch(),
                    TimeUnit.NANOSECONDS.toMillis(-beforeValidUntil),
                    reason);
        } else {
            log.info(
                    "epoch {}: leadership revoked ({}); command stopped{} {} ms before the leadership's validity ended",
                    l.epoch(),
                    reason,
                    stopped.killed() ? " with SIGKILL after the grace" : "",
                    TimeUnit.NANOSECONDS.toMillis(beforeValidUntil));
        }
    }

    private void onExited(GroupProcess p) {
        if (p != running) {
            return; // stopped by the runner: already accounted for
        }
        running = null;
        int exit = p.exitStatus();
        long epoch = runningEpoch;
        long ranNanos = System.nanoTime() - p.startedNanos();
        status.exited(exit, epoch);
        log.info("epoch {}: command (pid {}) exited with status {}", epoch, p.pid(), exit);
        // What it left behind in its group goes too, before anything else starts.
        long now = System.nanoTime();
        long killAt = now + grace.toNanos();
        Leadership l = leadership;
        if (l != null) {
            long validUntil = l.validUntilNanos();
            killAt = Math.min(killAt, killDeadline(validUntil));
            p.expiresAt(reaperDeadline(validUntil));
        }
        if (!p.stop(killAt, killAt + GIVE_UP_NANOS).gone()) {
            log.error("epoch {}: process group {} outlived SIGKILL", epoch, p.pid());
        }
        p.drainOutput(1000);
        if (l != null && l.isValid()) {
            afterExit(l, exit, ranNanos);
        }
    }

    /** Applies {@code --on-exit} after the command of leadership {@code l} exited with {@code exit}. */
    private void afterExit(Leadership l, int exit, long ranNanos) {
        switch (OnExit.forExit(onExit.orElse(null), exit)) {
            case RESTART -> {
                exitsInRow = ranNanos > MAX_BACKOFF.toNanos() ? 1 : exitsInRow + 1;
                long backoff = Math.min(FIRST_BACKOFF.toNanos() << Math.min(exitsInRow - 1, 20), MAX_BACKOFF.toNanos());
                at(System.nanoTime() + backoff, () -> {
                    if (leadership == l && l.isValid() && running == null) {
                        startCommand(l, true);
                    }
                });
                log.info(
                        "epoch {}: restarting the command in {} ms", l.epoch(), TimeUnit.NANOSECONDS.toMillis(backoff));
            }
            case STAY -> log.info("epoch {}: staying leader with no command running (--on-exit stay)", l.epoch());
            case RESIGN -> {
                log.warn("epoch {}: the command exited with status {}; resigning (--on-exit resign)", l.epoch(), exit);
                stepDown.resign(StepDown.HOLD_OFF);
            }
        }
    }

    private void onClose(CompletableFuture<Void> done) {
        closed = true;
        timer = null;
        GroupProcess p = running;
        running = null;
        try {
            if (p != null) {
                long now = System.nanoTime();
                long killAt = now + grace.toNanos();
                if (leadership != null) {
                    // Still leading: SIGKILL ahead of the reaper's deadline too, so the kill is the runner's own.
                    long validUntil = leadership.validUntilNanos();
                    killAt = Math.min(killAt, killDeadline(validUntil));
                    p.expiresAt(reaperDeadline(validUntil));
                }
                GroupProcess.Stopped stopped = p.stop(killAt, killAt + GIVE_UP_NANOS);
                status.stopped(runningEpoch, stopped, 0);
                p.drainOutput(1000);
                log.info("epoch {}: command stopped: the node is stopping", runningEpoch);
            }
        } finally {
            done.complete(null);
        }
    }

    /** Starts a hook; it is killed (with its group) after the grace, at least {@link #MIN_HOOK_TIME}. */
    private void startHook(String hook, String event, long epoch, RevocationReason reason) {
        Map<String, String> env =
                environment(epoch, election.leader().map(LeaderView::leader).orElse(null), event);
        if (reason != null) {
            env.put("BELLWETHER_REASON", reason.name());
        }
        GroupProcess p;
        try {
            p = GroupProcess.start(
                    List.of(GroupProcess.SH, "-c", hook),
                    env,
                    "[on-" + event + " epoch " + epoch + "] ",
                    out,
                    err,
                    GroupProcess.NO_DEADLINE);
        } catch (IOException e) {
            log.warn("epoch {}: cannot start the on-{} hook: {}", epoch, event, e.toString());
            return;
        }
        long limit = Math.max(grace.toNanos(), MIN_HOOK_TIME.toNanos());
        hookTimer.schedule(
                () -> {
                    if (p.groupAlive()) {
                        log.warn("epoch {}: the on-{} hook (pid {}) ran too long; killed", epoch, event, p.pid());
                        p.kill();
                        p.awaitGroupGone(System.nanoTime() + GIVE_UP_NANOS);
                    }
                    p.release();
                },
                limit,
                TimeUnit.NANOSECONDS);
    }

    private Map<String, String> environment(long epoch, NodeId leader, String event) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("BELLWETHER_EPOCH", Long.toString(epoch));
        env.put("BELLWETHER_NODE", election.self().value());
        env.put("BELLWETHER_LEADER", leader == null ? "" : leader.value());
        env.put("BELLWETHER_GROUP", election.group());
        if (event != null) {
            env.put("BELLWETHER_EVENT", event);
        }
        return env;
    }
}
