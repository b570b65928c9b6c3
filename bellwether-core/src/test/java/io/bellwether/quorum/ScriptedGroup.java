package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.stream.IntStream;

/**
 * A few quorum electors over scripted contexts, wired by a hand-made network with fixed link latency: the test
 * silences links, closes connections with a separate notification delay at each end (or "when that end next
 * writes"), and kills processes. It measures, on the one true clock (no drift), how long two members held a
 * valid leadership at once.
 *
 * <p>{@code closingIsDeparture} replays the elector as it behaved before closings and departures were told
 * apart: every reported closing is at once taken as proof that the peer is gone ({@link QuorumElector#onPeerGone}).
 */
final class ScriptedGroup {
    /** A notification delay meaning: that end learns of the closing only when it next writes to the other. */
    static final long AT_NEXT_WRITE = -1;

    private record Ev(long at, long seq, Runnable action) {}

    private final int n;
    private final long latencyNanos;
    private final boolean closingIsDeparture;
    final NodeId[] ids;
    final ScriptedContext[] ctx;
    final QuorumElector[] electors;
    private final boolean[] alive;
    private final boolean[][] silent;
    private final long[][] gen;
    private final boolean[][] learnOnWrite;
    private final PriorityQueue<Ev> queue =
            new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private long seq;
    private long now;
    private long overlapNanos;
    private long firstOverlapAt = -1;
    final List<String> trace = new ArrayList<>();

    ScriptedGroup(QuorumConfig config, int n, long latencyNanos, boolean closingIsDeparture) {
        this.n = n;
        this.latencyNanos = latencyNanos;
        this.closingIsDeparture = closingIsDeparture;
        ids = IntStream.rangeClosed(1, n).mapToObj(i -> NodeId.of("n" + i)).toArray(NodeId[]::new);
        ctx = new ScriptedContext[n];
        electors = new QuorumElector[n];
        alive = new boolean[n];
        silent = new boolean[n][n];
        gen = new long[n][n];
        learnOnWrite = new boolean[n][n];
        for (int i = 0; i < n; i++) {
            ctx[i] = new ScriptedContext(ids[i], List.of(ids), 1000 + i);
            electors[i] = (QuorumElector) config.create(ctx[i]);
            alive[i] = true;
        }
        for (int i = 0; i < n; i++) {
            int node = i;
            act(node, () -> electors[node].start());
            for (int j = 0; j < n; j++) {
                if (j != i) {
                    NodeId peer = ids[j];
                    act(node, () -> electors[node].onPeerConnected(peer));
                }
            }
        }
    }

    long now() {
        return now;
    }

    /** Runs every event up to and including {@code until}, firing the electors' timers as they fall due. */
    void runUntil(long until) {
        while (true) {
            Ev next = queue.peek();
            long timerAt = Long.MAX_VALUE;
            int timerNode = -1;
            QuorumElector.Timer timer = null;
            for (int i = 0; i < n; i++) {
                if (!alive[i]) {
                    continue;
                }
                for (QuorumElector.Timer t : QuorumElector.Timer.values()) {
                    Long at = ctx[i].deadline(t.name()).orElse(null);
                    if (at != null && at < timerAt) {
                        timerAt = at;
                        timerNode = i;
                        timer = t;
                    }
                }
            }
            long at = Math.min(timerAt, next == null ? Long.MAX_VALUE : next.at);
            if (at > until) {
                advance(until);
                return;
            }
            advance(at);
            if (next != null && next.at <= timerAt) {
                queue.poll();
                next.action.run();
            } else {
                int node = timerNode;
                QuorumElector.Timer t = timer;
                act(node, () -> electors[node].onTimer(ctx[node].fire(t.name())));
            }
        }
    }

    /** Drops everything between a and b from now on, in both directions, without closing anything. */
    void silence(int a, int b) {
        silent[a][b] = silent[b][a] = true;
        trace.add(ms(now) + " link " + ids[a] + "<->" + ids[b] + " silent");
    }

    /**
     * Closes the connection between a and b for good (what either sends on it from now on is lost): a learns of
     * it after {@code delayA}, b after {@code delayB} ({@link #AT_NEXT_WRITE}: when it next sends to the other).
     */
    void close(int a, int b, long delayA, long delayB) {
        gen[a][b]++;
        gen[b][a]++;
        silent[a][b] = silent[b][a] = true;
        trace.add(ms(now) + " connection " + ids[a] + "<->" + ids[b] + " closed");
        tellClosedLater(a, b, delayA);
        tellClosedLater(b, a, delayB);
    }

    /**
     * A connection between a and b closes and another replaces it at once (a dial tie): each end is told of the
     * closing after its delay, then of the new connection; messages flow on the new one throughout.
     */
    void reopenAfterClose(int a, int b, long delayA, long delayB) {
        gen[a][b]++;
        gen[b][a]++;
        trace.add(ms(now) + " connection " + ids[a] + "<->" + ids[b] + " replaced");
        at(now + delayA, () -> {
            tellClosed(a, b);
            act(a, () -> electors[a].onPeerConnected(ids[b]));
        });
        at(now + delayB, () -> {
            tellClosed(b, a);
            act(b, () -> electors[b].onPeerConnected(ids[a]));
        });
    }

    /** Kills a process: its connections close, and each peer learns at once and finds the address refused. */
    void kill(int a, long dialNanos) {
        long[] dial = new long[n];
        java.util.Arrays.fill(dial, dialNanos);
        kill(a, dial);
    }

    /**
     * As {@link #kill(int, long)}, with each peer's own time from the closing to the refusal of its redial
     * ({@code dialNanos[j]} for peer j), so that peers learn of the departure in any order.
     */
    void kill(int a, long[] dialNanos) {
        alive[a] = false;
        trace.add(ms(now) + " " + ids[a] + " killed");
        for (int j = 0; j < n; j++) {
            if (j != a) {
                gen[a][j]++;
                gen[j][a]++;
                int peer = j;
                at(now, () -> tellClosed(peer, a));
                at(now + dialNanos[j], () -> act(peer, () -> electors[peer].onPeerGone(ids[a])));
            }
        }
    }

    /** Runs {@code event} at member {@code a} now, then sends what it asked for (e.g. a stop). */
    void run(int a, java.util.function.Consumer<QuorumElector> event) {
        act(a, () -> event.accept(electors[a]));
    }

    /** The successor member {@code a} last reported as leader (its ready standby), if any. */
    java.util.Optional<NodeId> successor(int a) {
        List<java.util.Optional<NodeId>> all = ctx[a].successors();
        return all.isEmpty() ? java.util.Optional.empty() : all.get(all.size() - 1);
    }

    /** Whether member {@code a}'s process runs. */
    boolean alive(int a) {
        return alive[a];
    }

    /** The index of member {@code id}. */
    int indexOf(NodeId id) {
        return index(id);
    }

    private void tellClosedLater(int at, int peer, long delay) {
        if (delay == AT_NEXT_WRITE) {
            learnOnWrite[at][peer] = true;
        } else {
            at(now + delay, () -> tellClosed(at, peer));
        }
    }

    private void tellClosed(int at, int peer) {
        learnOnWrite[at][peer] = false;
        trace.add(ms(now) + " " + ids[at] + " learns its connection to " + ids[peer] + " closed");
        act(at, () -> {
            electors[at].onPeerDisconnected(ids[peer]);
            if (closingIsDeparture) {
                electors[at].onPeerGone(ids[peer]);
            }
        });
    }

    /** Total time during which two members both held a valid leadership. */
    long overlapNanos() {
        return overlapNanos;
    }

    /** When two valid leaderships first overlapped; -1 if never. */
    long firstOverlapAt() {
        return firstOverlapAt;
    }

    /** The members that lead now with a validity that has not run out. */
    List<NodeId> validLeaders() {
        List<NodeId> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (isValidLeader(i, now)) {
                out.add(ids[i]);
            }
        }
        return out;
    }

    long term(int i) {
        return electors[i].term();
    }

    Role role(int i) {
        return electors[i].state().role();
    }

    private boolean isValidLeader(int i, long t) {
        return alive[i] && electors[i].state().role() == Role.LEADER && t < ctx[i].validUntil();
    }

    /** Accounts for the time from {@code now} to {@code t}: leaderships only change at events. */
    private void advance(long t) {
        if (t <= now) {
            return;
        }
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (isValidLeader(i, now) && isValidLeader(j, now)) {
                    long end = Math.min(t, Math.min(ctx[i].validUntil(), ctx[j].validUntil()));
                    if (end > now) {
                        if (firstOverlapAt < 0) {
                            firstOverlapAt = now;
                            trace.add(ms(now) + " OVERLAP " + ids[i] + " and " + ids[j]);
                        }
                        overlapNanos += end - now;
                    }
                }
            }
        }
        now = t;
    }

    private void at(long t, Runnable action) {
        queue.add(new Ev(t, seq++, action));
    }

    /** Runs one event at a live node, then sends what it asked for. */
    private void act(int node, Runnable event) {
        if (!alive[node]) {
            return;
        }
        ctx[node].setNanos(now);
        ElectorState before = electors[node].state();
        QuorumRole roleBefore = electors[node].role;
        long termBefore = electors[node].term();
        event.run();
        ElectorState after = electors[node].state();
        QuorumRole roleAfter = electors[node].role;
        if (!before.equals(after) || roleBefore != roleAfter || termBefore != electors[node].term()) {
            // The elector's own roles, so that a scout (announced as a follower) shows as one.
            trace.add(ms(now) + " " + ids[node] + " " + roleBefore + " -> " + roleAfter + " term "
                    + electors[node].term() + " leader "
                    + after.leader().map(NodeId::toString).orElse("none")
                    + (after.role() == Role.LEADER ? " valid until " + ms(ctx[node].validUntil()) : ""));
        }
        for (Sent s : ctx[node].takeSent()) {
            int to = index(s.to());
            if (learnOnWrite[node][to]) {
                at(now, () -> tellClosed(node, to));
            }
            if (silent[node][to]) {
                continue;
            }
            long g = gen[node][to];
            at(now + latencyNanos, () -> {
                if (!silent[node][to] && gen[node][to] == g) {
                    act(to, () -> electors[to].onMessage(ids[node], s.message()));
                }
            });
        }
    }

    private int index(NodeId id) {
        for (int i = 0; i < n; i++) {
            if (ids[i].equals(id)) {
                return i;
            }
        }
        throw new IllegalArgumentException(id.toString());
    }

    static String ms(long nanos) {
        return String.format("%.3f", nanos / 1e6);
    }
}
