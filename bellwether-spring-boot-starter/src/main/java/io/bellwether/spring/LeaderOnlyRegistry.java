package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.Leadership;
import io.bellwether.state.GroupNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link LeaderOnly} work: finds the election of a group (the application's, or one per {@link
 * LeaderOnly#group()} created at its first use), runs the work only under a valid leadership, and interrupts it when
 * that leadership is revoked. {@link #runIfLeader} is the same for code that is not an annotated method.
 *
 * <p>Thread-safe.
 */
public final class LeaderOnlyRegistry {
    private static final Logger log = LoggerFactory.getLogger(LeaderOnlyRegistry.class);

    /** What {@link #invoke} returns for work it did not run. */
    static final Object SKIPPED = new Object();

    /** The work of one run. */
    @FunctionalInterface
    interface Work {
        Object run(Leadership leadership) throws Throwable;
    }

    private final Election main;
    private final Function<String, Election> factory;
    private final LeaderOnlyCounter counter;
    private final Map<String, Election> groups = new ConcurrentHashMap<>();
    private final Map<Leadership, Watch> watches = new ConcurrentHashMap<>();

    // Guarded by this.
    private boolean open;
    private boolean stopped;
    private int running;

    /**
     * @param main the application's election
     * @param factory makes the unstarted election of another group
     * @param counter counts skipped and revoked runs
     */
    LeaderOnlyRegistry(Election main, Function<String, Election> factory, LeaderOnlyCounter counter) {
        this.main = Objects.requireNonNull(main, "main");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.counter = Objects.requireNonNull(counter, "counter");
    }

    /**
     * The election of {@code group}: the application's for an empty name or its own group, else the group's own,
     * created and started now if it does not exist yet (and the application is running).
     *
     * @throws IllegalArgumentException if {@code group} is not a valid group name
     * @throws IllegalStateException if the application is stopping or stopped
     */
    public Election election(String group) {
        if (group.isEmpty() || group.equals(main.group())) {
            return main;
        }
        Election existing = groups.get(group);
        if (existing != null) {
            return existing;
        }
        GroupNames.check("@LeaderOnly group", group);
        synchronized (this) {
            if (stopped) {
                throw new IllegalStateException("the application is stopping: no election for group " + group);
            }
            return groups.computeIfAbsent(group, g -> {
                Election election = factory.apply(g);
                election.start();
                log.info("started the election of group {} for @LeaderOnly methods", g);
                return election;
            });
        }
    }

    /**
     * Runs {@code work} on this thread if this instance leads {@code group} now, as a {@link LeaderOnly} method runs
     * (interrupted when the leadership is revoked; the interrupt flag cleared before this returns).
     *
     * @param group the group, empty for the application's
     * @return whether {@code work} ran
     */
    public boolean runIfLeader(String group, Consumer<Leadership> work) {
        Objects.requireNonNull(work, "work");
        try {
            return invoke(group, work.getClass().getName(), l -> {
                        work.accept(l);
                        return null;
                    })
                    != SKIPPED;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e); // a Consumer throws nothing checked
        }
    }

    /**
     * Runs {@code work} under this instance's valid leadership of {@code group}, or returns {@link #SKIPPED}.
     *
     * @param name what runs, for logs and metrics
     */
    Object invoke(String group, String name, Work work) throws Throwable {
        String groupName = group.isEmpty() ? main.group() : group;
        Optional<Leadership> current;
        synchronized (this) {
            current = open ? Optional.of(election(group)).flatMap(Election::leadership) : Optional.empty();
        }
        Leadership leadership = current.filter(Leadership::isValid).orElse(null);
        Watch watch = leadership == null ? null : watch(leadership);
        Thread thread = Thread.currentThread();
        if (watch == null || !enter(watch, thread)) {
            log.debug("{} skipped: this instance does not lead group {}", name, groupName);
            counter.skipped(groupName, name);
            return SKIPPED;
        }
        Leadership before = CurrentLeadership.set(leadership);
        boolean revoked = false;
        try {
            return work.run(leadership);
        } catch (Throwable e) {
            revoked = watch.isRevoked();
            if (!revoked) {
                throw e;
            }
            log.debug("{} ended by the revocation of its leadership of group {}: {}", name, groupName, e.toString());
            return SKIPPED;
        } finally {
            CurrentLeadership.set(before);
            if (exit(watch, thread)) {
                if (before == null) {
                    // This run's interrupt, not the scheduler's business; a nested run leaves it to the outer one,
                    // which must see it too.
                    Thread.interrupted();
                }
                if (!revoked) {
                    log.debug("{}: its leadership of group {} was revoked while it ran", name, groupName);
                }
                counter.revoked(groupName, name);
            }
        }
    }

    /** The watch of {@code leadership}, which interrupts its runs once it is revoked. */
    private Watch watch(Leadership leadership) {
        Watch watch = watches.get(leadership);
        if (watch != null) {
            return watch;
        }
        Watch fresh = new Watch();
        watch = watches.putIfAbsent(leadership, fresh);
        if (watch != null) {
            return watch;
        }
        // Registered outside the map's update: an already revoked leadership runs the callback at once.
        leadership.revoked().whenComplete((reason, error) -> {
            watches.remove(leadership, fresh);
            fresh.revoke();
        });
        return fresh;
    }

    private boolean enter(Watch watch, Thread thread) {
        synchronized (this) {
            if (!open) {
                return false;
            }
            if (!watch.enter(thread)) {
                return false;
            }
            running++;
            return true;
        }
    }

    /** Whether the run was revoked (so its thread may have been interrupted for it). */
    private boolean exit(Watch watch, Thread thread) {
        boolean revoked = watch.exit(thread);
        synchronized (this) {
            running--;
            notifyAll();
        }
        return revoked;
    }

    /** Lets work run: the application's election has started. */
    synchronized void open() {
        open = true;
    }

    /**
     * Stops leader-only work: no new run starts, running ones are interrupted, and this waits up to {@code timeout}
     * for them to return.
     *
     * @return whether every run returned in time
     */
    boolean stopWork(Duration timeout) {
        List<Watch> all;
        synchronized (this) {
            open = false;
            stopped = true;
            all = new ArrayList<>(watches.values());
        }
        all.forEach(Watch::revoke);
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            boolean interrupted = false;
            try {
                while (running > 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        log.warn("{} @LeaderOnly runs still running after {}: resigning anyway", running, timeout);
                        return false;
                    }
                    try {
                        wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                return true;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The elections of other groups created so far. */
    List<Election> groupElections() {
        return List.copyOf(groups.values());
    }

    /** The runs of one leadership: interrupted, and no new one admitted, once it is revoked. */
    private static final class Watch {
        /** The threads running under the leadership, once per run (a run may call another on its thread). */
        private final List<Thread> threads = new ArrayList<>();

        private boolean revoked;

        synchronized boolean enter(Thread thread) {
            if (revoked) {
                return false;
            }
            threads.add(thread);
            return true;
        }

        synchronized boolean exit(Thread thread) {
            threads.remove(thread);
            return revoked;
        }

        synchronized boolean isRevoked() {
            return revoked;
        }

        synchronized void revoke() {
            revoked = true;
            threads.forEach(Thread::interrupt);
        }
    }
}
