package io.bellwether.micrometer;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.TaskEvent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Publishes an embedded election's metrics to Micrometer, with the names the {@code bellwether node} daemon serves
 * at {@code /metrics} (see {@link ElectionMeters} for the list):
 *
 * <pre>{@code
 * Election election = Election.builder()...build();
 * BellwetherMetrics metrics = new BellwetherMetrics(election);
 * metrics.bindTo(registry);   // before or after election.start()
 * election.start();
 * ...
 * metrics.close();            // stops listening; the meters stay registered
 * }</pre>
 *
 * <p>Every meter is tagged {@code group} (the election's group) and {@code node} (its member id), plus the tags
 * given to {@link #BellwetherMetrics(Election, Iterable)} (a {@code cluster} tag, say, as the daemon has). The
 * meters follow the election's listener events; a leader task's events ({@link Election#runWhileLeader}) are counted
 * by task and kind. To time the lease store's calls too, wrap it in a {@link MeteredLeaseStore}. Peer message counts
 * ({@code bellwether.messages}) come from the TCP transport: give it a {@link TransportMetrics} as its observer.
 *
 * <p>Binding to several registries is allowed: each gets its own meters, all fed by one listener. Thread-safe.
 */
public final class BellwetherMetrics implements MeterBinder, AutoCloseable {
    private final Election election;
    private final Tags tags;
    private final List<ElectionMeters> bound = new CopyOnWriteArrayList<>();
    private final Listener listener = new Listener();

    // Guarded by this.
    private boolean listening;
    private Role role = Role.DORMANT;
    private long epoch;
    private Optional<LeaderView> leader = Optional.empty();
    private long leaderlessSinceNanos = -1;

    /** Metrics of {@code election}, tagged {@code group} and {@code node}. */
    public BellwetherMetrics(Election election) {
        this(election, Tags.empty());
    }

    /** Metrics of {@code election}, tagged {@code group}, {@code node} and {@code extraTags}. */
    public BellwetherMetrics(Election election, Iterable<Tag> extraTags) {
        this.election = Objects.requireNonNull(election, "election");
        this.tags = Tags.of("group", election.group(), "node", election.self().value())
                .and(Objects.requireNonNull(extraTags, "extraTags"));
    }

    /** Registers the election's meters on {@code registry} and, at the first binding, starts listening. */
    @Override
    public void bindTo(MeterRegistry registry) {
        ElectionMeters meters = new ElectionMeters(registry, tags);
        synchronized (this) {
            meters.role(role, false);
            meters.epoch(epoch);
            bound.add(meters);
            if (listening) {
                return;
            }
            listening = true;
        }
        election.addListener(listener);
        // Events before the listener was added are not replayed: start from what the election says now.
        synchronized (this) {
            if (role == Role.DORMANT) {
                update(election.role(), election.epoch(), election.leader(), true);
            }
        }
    }

    /** Stops following the election; the meters stay registered with their last values. */
    @Override
    public void close() {
        election.removeListener(listener);
    }

    /** Folds a role and leader into the meters; {@code leaderEvent} false leaves the known leader as it is. */
    private void update(Role newRole, long newEpoch, Optional<LeaderView> newLeader, boolean leaderEvent) {
        Role before = role;
        role = newRole;
        epoch = Math.max(epoch, newEpoch);
        if (leaderEvent) {
            Optional<NodeId> was = leader.map(LeaderView::leader);
            long wasEpoch = leader.map(LeaderView::epoch).orElse(-1L);
            if (was.isPresent() && newLeader.isEmpty() && leaderlessSinceNanos < 0) {
                leaderlessSinceNanos = System.nanoTime();
            }
            boolean newLeadership = newLeader.isPresent()
                    && (newLeader.get().epoch() != wasEpoch
                            || !newLeader.get().leader().equals(was.orElse(null)));
            Duration failover = null;
            if (newLeadership) {
                if (leaderlessSinceNanos >= 0) {
                    failover = Duration.ofNanos(System.nanoTime() - leaderlessSinceNanos);
                    leaderlessSinceNanos = -1;
                } else if (was.isPresent()) {
                    // Handed over with no leaderless moment this member saw: still a failover.
                    failover = Duration.ZERO;
                }
                epoch = Math.max(epoch, newLeader.get().epoch());
            }
            leader = newLeader;
            for (ElectionMeters meters : bound) {
                if (newLeadership) {
                    meters.newLeadership();
                }
                if (failover != null) {
                    meters.failover(failover);
                }
            }
        }
        for (ElectionMeters meters : bound) {
            meters.role(role, role != before);
            meters.epoch(epoch);
        }
    }

    private final class Listener implements ElectionListener {
        @Override
        public void roleChanged(Role previous, Role current, long newEpoch) {
            synchronized (BellwetherMetrics.this) {
                update(current, newEpoch, leader, false);
            }
        }

        @Override
        public void elected(Leadership leadership) {
            // The election may tell of this leadership here before its leader change arrives: it is the same
            // leadership, counted once (the leader change finds the same leader and epoch).
            LeaderView self = new LeaderView(election.self(), Optional.empty(), leadership.epoch(), System.nanoTime());
            synchronized (BellwetherMetrics.this) {
                update(Role.LEADER, leadership.epoch(), Optional.of(self), true);
            }
        }

        @Override
        public void leaderChanged(Optional<LeaderView> newLeader) {
            synchronized (BellwetherMetrics.this) {
                update(role, 0, newLeader, true);
            }
        }

        @Override
        public void taskEvent(TaskEvent event) {
            for (ElectionMeters meters : bound) {
                meters.taskEvent(event);
            }
        }
    }
}
