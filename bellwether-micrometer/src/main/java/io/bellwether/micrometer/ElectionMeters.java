package io.bellwether.micrometer;

import io.bellwether.Role;
import io.bellwether.TaskEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The meters of one election, registered on one registry, and the calls that update them. {@link BellwetherMetrics}
 * feeds them from the election's listener; the {@code bellwether node} daemon feeds them from its monitor, so that
 * an embedded election and a node publish the same names. As Micrometer names (Prometheus names in brackets):
 *
 * <ul>
 *   <li>{@value #ROLE} ({@code bellwether_role{role}}): 1 for the current role, 0 for the others;
 *   <li>{@value #EPOCH} ({@code bellwether_epoch}): the epoch this member knows (its leader's, or its own);
 *   <li>{@value #ELECTIONS} ({@code bellwether_elections_total}): leaderships this member learned of (each new
 *       leader or leader epoch);
 *   <li>{@value #ROLE_CHANGES} ({@code bellwether_role_changes_total}): changes of this member's role;
 *   <li>{@value #FAILOVER} ({@code bellwether_failover_seconds}, a histogram): time from losing a leader to knowing
 *       a new one; a change of leader with no leaderless moment between counts as zero;
 *   <li>{@value #TASK_EVENTS} ({@code bellwether_task_events_total{task,kind}}): leader task events ({@link
 *       TaskEvent}) by task name and {@link TaskEvent.Kind kind}, each counter registered at its first event.
 * </ul>
 *
 * Every meter carries the tags given to the constructor (besides the registry's common tags). Thread-safe.
 */
public final class ElectionMeters {
    /** Gauge: 1 for the current role (tag {@code role}), 0 for the others. */
    public static final String ROLE = "bellwether.role";
    /** Gauge: the epoch this member knows. */
    public static final String EPOCH = "bellwether.epoch";
    /** Counter: leaderships this member learned of. */
    public static final String ELECTIONS = "bellwether.elections";
    /** Counter: changes of this member's role. */
    public static final String ROLE_CHANGES = "bellwether.role.changes";
    /** Timer with a histogram: time from losing a leader to knowing a new one. */
    public static final String FAILOVER = "bellwether.failover";
    /** Counter: leader task events, tags {@code task} and {@code kind}. */
    public static final String TASK_EVENTS = "bellwether.task.events";

    private final MeterRegistry registry;
    private final Tags tags;
    private final AtomicReference<Role> role = new AtomicReference<>(Role.DORMANT);
    private final AtomicLong epoch = new AtomicLong();
    private final Counter elections;
    private final Counter roleChanges;
    private final Timer failover;
    private final Map<TaskKey, Counter> taskEvents = new ConcurrentHashMap<>();

    private record TaskKey(String task, TaskEvent.Kind kind) {}

    /**
     * Registers the meters on {@code registry}, each with {@code tags}; the role gauges start at {@link
     * Role#DORMANT}, the epoch at 0.
     */
    public ElectionMeters(MeterRegistry registry, Iterable<Tag> tags) {
        this(registry, tags, null);
    }

    /**
     * As {@link #ElectionMeters(MeterRegistry, Iterable)}, but failovers are recorded on {@code failover} (from {@link
     * #failoverTimer}), which many elections may share: a process of many groups that tags each group's meters with
     * its name would otherwise register a histogram of some seventy buckets per group.
     *
     * @param failover the timer failovers are recorded on; null to register this election's own with {@code tags}
     */
    public ElectionMeters(MeterRegistry registry, Iterable<Tag> tags, Timer failover) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
        for (Role r : Role.values()) {
            Gauge.builder(ROLE, role, current -> current.get() == r ? 1 : 0)
                    .description("1 for this node's current role, 0 for the others")
                    .tags(this.tags)
                    .tag("role", r.name())
                    .register(registry);
        }
        Gauge.builder(EPOCH, epoch, AtomicLong::get)
                .description("The epoch this node knows: its leader's, or its own")
                .tags(this.tags)
                .register(registry);
        elections = Counter.builder(ELECTIONS)
                .description("Leaderships this node learned of (each new leader epoch)")
                .tags(this.tags)
                .register(registry);
        roleChanges = Counter.builder(ROLE_CHANGES)
                .description("Changes of this node's role")
                .tags(this.tags)
                .register(registry);
        this.failover = failover != null ? failover : failoverTimer(registry, this.tags);
    }

    /** Registers (or finds) the {@value #FAILOVER} timer, with its histogram, tagged {@code tags}. */
    public static Timer failoverTimer(MeterRegistry registry, Iterable<Tag> tags) {
        return Timer.builder(FAILOVER)
                .description("Time from losing a leader to knowing a new one")
                .tags(tags)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
    }

    /** Sets the role gauges to {@code current}; counts a role change if {@code changed}. */
    public void role(Role current, boolean changed) {
        role.set(Objects.requireNonNull(current, "current"));
        if (changed) {
            roleChanges.increment();
        }
    }

    /** Sets the epoch gauge. */
    public void epoch(long current) {
        epoch.set(current);
    }

    /** Counts a leadership this member learned of. */
    public void newLeadership() {
        elections.increment();
    }

    /** Records one failover that left this member without a leader for {@code leaderless}. */
    public void failover(Duration leaderless) {
        failover.record(leaderless);
    }

    /** Counts {@code event} under its task and kind. */
    public void taskEvent(TaskEvent event) {
        taskEvents
                .computeIfAbsent(new TaskKey(event.task(), event.kind()), k -> Counter.builder(TASK_EVENTS)
                        .description("Leader task events by task and kind")
                        .tags(tags)
                        .tags("task", k.task(), "kind", k.kind().name())
                        .register(registry))
                .increment();
    }
}
