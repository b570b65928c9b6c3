package io.bellwether.testkit.toy;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.TimerKey;
import io.bellwether.testkit.toy.ToyMessage.Ping;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The toy elector: every member pings every peer each ping interval, with its epoch; the lowest id (the highest,
 * with {@code highest-wins}) heard from within four intervals leads. It becomes a candidate at an epoch above every
 * epoch it has seen, and leader once every member it hears from has pinged that epoch back (so that a leadership
 * that ends in a crash is known to everyone who could lead next). A leader's leadership is valid for four
 * intervals from its last ping; a leader whose ping comes later than that (a stalled process) steps down before it
 * pings again.
 */
final class ToyElector implements Elector {
    enum Timer implements TimerKey {
        TICK
    }

    private final ElectorContext ctx;
    private final long tickNanos;
    private final long livenessNanos;
    private final boolean highestWins;
    private final Map<NodeId, Long> lastHeard = new HashMap<>();
    /** The epoch of each peer's last ping. */
    private final Map<NodeId, Long> epochOf = new HashMap<>();

    private ElectorState state = ElectorState.DORMANT;
    private long epoch;
    private long startedAt;
    private long validUntil;
    private boolean stopped;

    ToyElector(ElectorContext ctx, ToyConfig config) {
        this.ctx = ctx;
        this.tickNanos = config.pingInterval().toNanos();
        this.livenessNanos = ToyConfig.LIVENESS_INTERVALS * tickNanos;
        this.highestWins = config.highestWins();
    }

    @Override
    public void start() {
        epoch = ctx.storedState().get("epoch", 0);
        startedAt = ctx.nanoTime();
        change(Role.FOLLOWER, Optional.empty(), ChangeReason.STARTED);
        ctx.schedule(Timer.TICK, tickNanos);
    }

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        if (stopped || !(message instanceof Ping ping)) {
            return;
        }
        lastHeard.put(from, ctx.nanoTime());
        epochOf.put(from, ping.epoch());
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
        ctx.schedule(Timer.TICK, tickNanos);
        boolean leading = state.role() == Role.LEADER;
        if (leading && now - validUntil >= 0) {
            // Stalled past its own validity: the others may have elected meanwhile.
            change(Role.FOLLOWER, Optional.empty(), ChangeReason.LEADER_TIMEOUT);
            leading = false;
        } else if (leading) {
            validUntil = now + livenessNanos;
            ctx.validUntil(validUntil);
        }
        ctx.broadcast(new Ping(epoch, leading));
        if (now - startedAt < livenessNanos) {
            return;
        }
        NodeId best = ctx.self();
        for (NodeId peer : ctx.members()) {
            Long heard = lastHeard.get(peer);
            if (heard != null && now - heard < livenessNanos && beats(peer, best)) {
                best = peer;
            }
        }
        if (best.equals(ctx.self()) && state.role() == Role.CANDIDATE && confirmed(now)) {
            validUntil = now + livenessNanos;
            ctx.validUntil(validUntil);
            change(Role.LEADER, Optional.of(ctx.self()), ChangeReason.ELECTED);
            ctx.broadcast(new Ping(epoch, true));
        } else if (best.equals(ctx.self()) && state.role() == Role.FOLLOWER) {
            adopt(epoch + 1);
            change(Role.CANDIDATE, Optional.empty(), ChangeReason.CAMPAIGNING);
            ctx.broadcast(new Ping(epoch, false));
        } else if (!best.equals(ctx.self())) {
            Optional<NodeId> leader = state.leader().filter(l -> !l.equals(ctx.self()));
            if (leading || state.role() == Role.CANDIDATE) {
                change(Role.FOLLOWER, Optional.empty(), ChangeReason.HIGHER_EPOCH);
            } else if (leader.isPresent() && !leader.get().equals(best)) {
                change(Role.FOLLOWER, Optional.empty(), ChangeReason.LEADER_TIMEOUT);
            }
        }
    }

    /** Whether every member heard from recently has pinged this candidate's epoch (or a later one) back. */
    private boolean confirmed(long now) {
        for (Map.Entry<NodeId, Long> heard : lastHeard.entrySet()) {
            if (now - heard.getValue() < livenessNanos && epochOf.get(heard.getKey()) < epoch) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code peer} would lead rather than {@code other}. */
    private boolean beats(NodeId peer, NodeId other) {
        int c = peer.compareTo(other);
        return highestWins ? c > 0 : c < 0;
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
