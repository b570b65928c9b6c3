package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.Algorithm;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.Environment;
import io.bellwether.elector.Setting;
import io.bellwether.elector.TimerKey;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A deliberately simple elector for testing the simulator itself: every node pings every peer each tick;
 * the lowest id heard from recently leads, at an epoch above every epoch it has seen. Safe only without
 * partitions and message loss, which makes it useful both as a passing and as a failing subject.
 */
final class ToyElector implements Elector {
    static final long TICK_NANOS = 50_000_000L;
    static final long LIVENESS_NANOS = 200_000_000L;

    /** Runs the toy elector. */
    static final ElectorSpec SPEC = new ElectorSpec() {
        @Override
        public String algorithm() {
            return "toy";
        }

        @Override
        public Elector create(ElectorContext context) {
            return new ToyElector(context);
        }
    };

    /**
     * Its descriptor, handed to {@link SimulationConfig} directly (not registered): a message-passing algorithm
     * with no guarantee to check beyond the generic ones, whose pings are its keep-alives.
     */
    static final Algorithm ALGORITHM = new Algorithm() {
        @Override
        public String name() {
            return "toy";
        }

        @Override
        public String summary() {
            return "The simulator's test elector.";
        }

        @Override
        public List<Setting<?>> settings() {
            return List.of();
        }

        @Override
        public ElectorSpec configure(Map<String, Object> values, Environment environment) {
            return SPEC;
        }

        @Override
        public List<Variant> variants() {
            return List.of(Variant.defaults("toy", Set.of(Trait.PEER_MESSAGES)));
        }

        @Override
        public boolean isKeepAlive(ElectorMessage message) {
            return message instanceof Ping;
        }
    };

    enum Timer implements TimerKey {
        TICK
    }

    record Ping(long epoch, boolean leading) implements ElectorMessage {}

    private final ElectorContext ctx;
    private final Map<NodeId, Long> lastHeard = new HashMap<>();
    private ElectorState state = ElectorState.DORMANT;
    private long epoch;
    private long startedAt;
    private boolean stopped;

    ToyElector(ElectorContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void start() {
        epoch = ctx.storedState().get("epoch", 0);
        startedAt = ctx.nanoTime();
        change(Role.FOLLOWER, Optional.empty(), ChangeReason.STARTED);
        ctx.schedule(Timer.TICK, TICK_NANOS);
    }

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        if (stopped || !(message instanceof Ping ping)) {
            return;
        }
        lastHeard.put(from, ctx.nanoTime());
        if (ping.epoch() > epoch) {
            adopt(ping.epoch());
            change(Role.FOLLOWER, ping.leading() ? Optional.of(from) : Optional.empty(), ChangeReason.HIGHER_EPOCH);
        } else if (ping.leading() && ping.epoch() == epoch && state.role() != Role.LEADER) {
            change(Role.FOLLOWER, Optional.of(from), ChangeReason.LEADER_DISCOVERED);
        }
    }

    @Override
    public void onTimer(TimerKey key) {
        if (stopped) {
            return;
        }
        long now = ctx.nanoTime();
        ctx.schedule(Timer.TICK, TICK_NANOS);
        boolean leading = state.role() == Role.LEADER;
        ctx.broadcast(new Ping(epoch, leading));
        if (now - startedAt < LIVENESS_NANOS) {
            return;
        }
        NodeId lowest = ctx.self();
        for (NodeId peer : ctx.members()) {
            Long heard = lastHeard.get(peer);
            if (heard != null && now - heard < LIVENESS_NANOS && peer.compareTo(lowest) < 0) {
                lowest = peer;
            }
        }
        if (lowest.equals(ctx.self()) && !leading) {
            adopt(epoch + 1);
            change(Role.LEADER, Optional.of(ctx.self()), ChangeReason.ELECTED);
            ctx.broadcast(new Ping(epoch, true));
        } else if (!lowest.equals(ctx.self())) {
            Optional<NodeId> leader = state.leader().filter(l -> !l.equals(ctx.self()));
            if (leading) {
                change(Role.FOLLOWER, Optional.empty(), ChangeReason.HIGHER_EPOCH);
            } else if (leader.isPresent() && !leader.get().equals(lowest)) {
                change(Role.FOLLOWER, Optional.empty(), ChangeReason.LEADER_TIMEOUT);
            }
        }
    }

    private void adopt(long newEpoch) {
        epoch = newEpoch;
        ctx.persist(ctx.storedState().with("epoch", newEpoch));
    }

    private void change(Role role, Optional<NodeId> leader, ChangeReason reason) {
        ElectorState next = new ElectorState(role, epoch, leader);
        if (!next.equals(state)) {
            state = next;
            ctx.announce(next, reason);
        }
    }

    @Override
    public void stop() {
        if (!stopped) {
            stopped = true;
            ctx.cancel(Timer.TICK);
            state = ElectorState.DORMANT;
            ctx.announce(state, ChangeReason.STOPPED);
        }
    }

    @Override
    public ElectorState state() {
        return state;
    }
}
