package io.bellwether.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;

/**
 * Draws and applies the random faults of a run's fault phase, then heals everything when the quiet phase
 * begins. Faults overlap: a new one starts every 0.1–1.1 s (virtual) and lasts 0.1–3 s. Targets are chosen
 * when a fault starts, often the current leader, so that failovers happen. At most a minority of nodes is
 * crashed or stopped at once, so that the group can still elect a leader during the fault phase.
 */
final class FaultInjector {
    private static final long MS = 1_000_000L;

    /**
     * The largest bound of one event's service time on a starved node ({@link FaultKind#STARVE}), in milliseconds:
     * above a heartbeat interval, so that a starved node can fall behind (events arriving faster than it serves
     * them), as a process on a saturated host does.
     */
    static final int STARVE_MAX_COST_MS = 100;

    private final Engine e;
    private final SplittableRandom rng;
    private final FaultKind[] kinds;
    private final List<Fault> active = new ArrayList<>();
    private final ByzantinePeer byzantine;
    private long faultPhaseEnd;
    private long lastFaultEnd = Long.MIN_VALUE / 2;
    private boolean quiet;
    private int down;

    /** One fault in progress. */
    private static final class Fault {
        final FaultKind kind;
        int node = -1;
        /** The nodes a pause-all stopped. */
        final List<Integer> nodes = new ArrayList<>();

        final List<int[]> cuts = new ArrayList<>();
        double rate;
        long delay;
        boolean active = true;

        Fault(FaultKind kind) {
            this.kind = kind;
        }
    }

    FaultInjector(Engine engine) {
        this.e = engine;
        this.rng = engine.faultRng;
        List<FaultKind> list = new ArrayList<>();
        // Enum order, not the config's set order: the set's iteration order varies between JVM runs. Kinds that do
        // not apply to the algorithm (store faults for message-passing runs, network faults for lease runs) are
        // skipped, so adding kinds never changes the draws of the runs they do not apply to.
        for (FaultKind k : FaultKind.values()) {
            if (k != FaultKind.DRIFT
                    && engine.config.faults().contains(k)
                    && k.appliesTo(engine.config.variant())
                    && (k != FaultKind.RESIGN || engine.spec.resignHoldOff().isPresent())) {
                list.add(k);
            }
        }
        this.kinds = list.toArray(new FaultKind[0]);
        this.byzantine = new ByzantinePeer(engine);
    }

    void plan(long faultPhaseNanos, long quietPhaseNanos) {
        faultPhaseEnd = faultPhaseNanos;
        if (kinds.length > 0) {
            e.at(nextGap(), this::injectOne);
        }
        e.at(faultPhaseNanos, () -> beginQuiet(quietPhaseNanos));
    }

    private long nextGap() {
        return 100 * MS + rng.nextLong(1000 * MS);
    }

    private void injectOne() {
        if (quiet) {
            return;
        }
        FaultKind kind = kinds[rng.nextInt(kinds.length)];
        long duration = 100 * MS + rng.nextLong(2900 * MS);
        // Before the fault acts: its own effects must not count against the isolation check.
        e.invariants.onFaultStarted();
        e.accounting.faultEvent();
        Fault f = start(kind);
        if (f != null) {
            if (f.active) {
                active.add(f);
                recomputeNetwork();
                long end = Math.min(e.now + duration, faultPhaseEnd);
                e.at(end, () -> heal(f));
            } else {
                lastFaultEnd = e.now;
            }
        }
        long next = e.now + nextGap();
        if (next < faultPhaseEnd) {
            e.at(next, this::injectOne);
        }
    }

    /** Applies a fault; returns null when none could be applied (no eligible target). */
    private Fault start(FaultKind kind) {
        int n = e.n;
        Fault f = new Fault(kind);
        switch (kind) {
            case CRASH, SILENT_CRASH, STOP -> {
                if (down >= (n - 1) / 2) {
                    return null;
                }
                // A node that is handing over may crash, but is not stopped a second time.
                int target = pick(
                        i -> e.nodes[i].live()
                                && !e.nodes[i].paused
                                && (kind != FaultKind.STOP || !e.nodes[i].handingOver),
                        0.5);
                if (target < 0) {
                    return null;
                }
                f.node = target;
                if (target == e.currentLeader()) {
                    e.accounting.leaderHit(kind);
                }
                down++;
                if (kind == FaultKind.STOP) {
                    e.driver.stop(e.nodes[target]);
                } else {
                    e.driver.crash(e.nodes[target], kind == FaultKind.SILENT_CRASH);
                }
            }
            case RESIGN -> {
                int target = pick(i -> e.nodes[i].live() && !e.nodes[i].paused && !e.nodes[i].handingOver, 0.7);
                if (target < 0) {
                    return null;
                }
                f.node = target;
                f.active = false; // instant: nothing to heal; the hold-off ends on its own
                if (target == e.currentLeader()) {
                    e.accounting.leaderHit(kind);
                }
                // Up to 2 s, ending well before the quiet phase, whose convergence checks assume no hold-off.
                long room = Math.max(0, (faultPhaseEnd - e.now) / 2);
                long holdOff = rng.nextLong(Math.min(2000 * MS, room) + 1);
                e.driver.resign(e.nodes[target], holdOff);
            }
            case PAUSE -> {
                int target = pick(i -> e.nodes[i].live() && !e.nodes[i].paused && !e.nodes[i].handingOver, 0.5);
                if (target < 0) {
                    return null;
                }
                f.node = target;
                if (target == e.currentLeader()) {
                    e.accounting.leaderHit(kind);
                }
                e.driver.pause(e.nodes[target]);
            }
            case PAUSE_ALL -> {
                int leader = e.currentLeader();
                for (int i = 0; i < n; i++) {
                    if (e.nodes[i].live() && !e.nodes[i].paused && !e.nodes[i].handingOver) {
                        f.nodes.add(i);
                    }
                }
                if (f.nodes.size() < 2) {
                    return null;
                }
                record("pause-all", f.nodes.size() + " nodes");
                if (f.nodes.contains(leader)) {
                    e.accounting.leaderHit(kind);
                }
                for (int i : f.nodes) {
                    e.driver.pause(e.nodes[i]);
                }
            }
            case STARVE -> {
                boolean everyone = rng.nextBoolean();
                int one = everyone ? -1 : pick(i -> e.nodes[i].live() && e.nodes[i].starveCostNanos == 0, 0.5);
                StringBuilder who = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    SimNode node = e.nodes[i];
                    if (node.live() && node.starveCostNanos == 0 && (everyone || i == one)) {
                        node.starveCostNanos = (1 + rng.nextInt(STARVE_MAX_COST_MS)) * MS;
                        f.nodes.add(i);
                        who.append(who.length() == 0 ? "" : ",")
                                .append(e.ids[i])
                                .append(" ≤")
                                .append(node.starveCostNanos / MS)
                                .append("ms");
                        e.invariants.onStarve(node);
                    }
                }
                if (f.nodes.isEmpty()) {
                    return null;
                }
                record("starve", who.toString());
                if (f.nodes.contains(e.currentLeader())) {
                    e.accounting.leaderHit(kind);
                }
            }
            case PARTITION, ONE_WAY -> {
                if (n < 2) {
                    return null;
                }
                int[] order = shuffled(n);
                int sideA = 1 + rng.nextInt(n - 1);
                List<String> a = new ArrayList<>();
                List<String> b = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    (i < sideA ? a : b).add(e.ids[order[i]].value());
                }
                for (int i = 0; i < sideA; i++) {
                    for (int j = sideA; j < n; j++) {
                        f.cuts.add(new int[] {order[i], order[j]});
                        if (kind == FaultKind.PARTITION) {
                            f.cuts.add(new int[] {order[j], order[i]});
                        }
                    }
                }
                String arrow = kind == FaultKind.PARTITION ? " | " : " -/-> ";
                applyCuts(f, kind.cliName(), String.join(",", a) + arrow + String.join(",", b));
            }
            case ISOLATE -> {
                if (n < 2) {
                    return null;
                }
                int target = pick(i -> true, 0.3);
                f.node = target;
                for (int j = 0; j < n; j++) {
                    if (j != target) {
                        f.cuts.add(new int[] {target, j});
                        f.cuts.add(new int[] {j, target});
                    }
                }
                applyCuts(f, "isolate", e.ids[target].value());
            }
            case LOSS -> {
                f.rate = 0.05 + rng.nextDouble() * 0.45;
                record("loss", String.format("%.0f%% of messages lost", f.rate * 100));
            }
            case DUPLICATE -> {
                f.rate = 0.05 + rng.nextDouble() * 0.45;
                record("duplicate", String.format("%.0f%% of messages duplicated", f.rate * 100));
            }
            case REORDER -> {
                f.delay = MS + rng.nextLong(Network.MAX_REORDER_DELAY - MS);
                record("reorder", "extra delay up to " + e.timeText(f.delay));
            }
            case RESET -> {
                if (n < 2) {
                    return null;
                }
                int a = pick(i -> true, 0.5);
                int b = rng.nextInt(n - 1);
                if (b >= a) {
                    b++;
                }
                e.net.reset(a, b);
                f.active = false;
            }
            case STORE_OUTAGE -> {
                e.store.outages++;
                record("store-outage", "the store answers nothing");
                if (e.currentLeader() >= 0) {
                    e.accounting.leaderHit(kind);
                }
            }
            case STORE_SLOW -> {
                f.delay = 100 * MS + rng.nextLong(1900 * MS);
                record("store-slow", "store replies up to " + e.timeText(f.delay) + " late");
                recomputeNetwork();
            }
            case LOST_REPLY -> {
                f.rate = 0.05 + rng.nextDouble() * 0.45;
                record("lost-reply", String.format("%.0f%% of store replies lost after the write", f.rate * 100));
            }
            case BYZANTINE_LITE -> {
                if (n < 2) {
                    return null;
                }
                f.node = rng.nextInt(n);
                record("byzantine-lite", e.ids[f.node] + " also sends frames with extreme terms, epochs or counters");
                forgeLater(f);
            }
            case DRIFT -> {
                return null;
            }
        }
        return f;
    }

    /** While {@code f} lasts, its member sends a forged frame to another member every 5–200 ms. */
    private void forgeLater(Fault f) {
        e.at(e.now + 5 * MS + rng.nextLong(195 * MS), () -> {
            if (!f.active || quiet || e.violation != null) {
                return;
            }
            int to = rng.nextInt(e.n - 1);
            if (to >= f.node) {
                to++;
            }
            if (e.nodes[f.node].live() && !e.nodes[f.node].paused) {
                byzantine.send(f.node, to, rng);
            }
            forgeLater(f);
        });
    }

    private void applyCuts(Fault f, String event, String detail) {
        record(event, detail);
        for (int[] c : f.cuts) {
            e.net.blocked[c[0]][c[1]]++;
        }
        int leader = e.currentLeader();
        e.topologyChanged();
        if (leader >= 0 && e.net.isCutOff(leader)) {
            e.accounting.leaderHit(f.kind);
        }
    }

    private void record(String event, String detail) {
        e.recorder.add(e.now, Recorder.NETWORK, event, 0, -1, detail);
    }

    private void heal(Fault f) {
        if (!f.active) {
            return;
        }
        f.active = false;
        active.remove(f);
        e.accounting.faultEvent();
        boolean othersQuiet =
                active.isEmpty() && lastFaultEnd <= e.now - e.timing().electionTimeoutNanos() && !anyDownOrPaused();
        lastFaultEnd = e.now;
        switch (f.kind) {
            case CRASH, SILENT_CRASH, STOP -> {
                down--;
                SimNode node = e.nodes[f.node];
                if (node.handingOver) {
                    e.driver.finishStop(node); // the fault is over before the handover: stop it now, then restart
                }
                if (!node.live()) {
                    e.driver.restart(node);
                }
            }
            case PAUSE -> {
                SimNode node = e.nodes[f.node];
                if (node.paused) {
                    e.driver.resume(node);
                }
                e.accounting.pauseEnded();
            }
            case PAUSE_ALL -> {
                record("resume-all", f.nodes.size() + " nodes");
                int[] order = shuffled(f.nodes.size());
                for (int k : order) {
                    SimNode node = e.nodes[f.nodes.get(k)];
                    if (node.paused) {
                        e.driver.resume(node);
                    }
                }
                e.accounting.pauseEnded();
            }
            case STARVE -> {
                long drained = e.now;
                for (int i : f.nodes) {
                    SimNode node = e.nodes[i];
                    node.starveCostNanos = 0;
                    drained = Math.max(drained, node.busyUntil);
                }
                record("fed", f.nodes.size() + " nodes, backlog until " + e.timeText(drained));
                // Checks that wait for a node to act (a cut-off leader's step-down) start again once it has caught up.
                caughtUp(f.nodes, drained + 1);
                e.accounting.pauseEnded();
            }
            case PARTITION, ONE_WAY, ISOLATE -> {
                for (int[] c : f.cuts) {
                    e.net.blocked[c[0]][c[1]]--;
                }
                record("heal", f.kind.cliName() + (f.node >= 0 ? " " + e.ids[f.node] : ""));
                e.topologyChanged();
                if (f.kind == FaultKind.ISOLATE) {
                    e.invariants.onIsolateEnded(f.node, othersQuiet);
                }
            }
            case LOSS, DUPLICATE, REORDER, STORE_SLOW, LOST_REPLY -> {
                record("heal", f.kind.cliName());
                recomputeNetwork();
            }
            case BYZANTINE_LITE -> record("heal", f.kind.cliName() + " " + e.ids[f.node]);
            case STORE_OUTAGE -> {
                e.store.outages--;
                record("heal", f.kind.cliName());
            }
            default -> {}
        }
    }

    /**
     * Tells the checks of the topology once every node of {@code fed} has worked through its backlog, looking again
     * at {@code at} (events that arrive while a backlog drains queue behind it, so its end moves on a little).
     */
    private void caughtUp(List<Integer> fed, long at) {
        e.at(at, () -> {
            long later = -1;
            for (int i : fed) {
                // One starved again by a later fault is that fault's to look after.
                SimNode node = e.nodes[i];
                if (node.starveCostNanos == 0 && node.busyUntil > e.now) {
                    later = Math.max(later, node.busyUntil);
                }
            }
            if (later >= 0) {
                caughtUp(fed, Math.max(later, e.now) + 1);
            } else {
                e.topologyChanged();
            }
        });
    }

    private boolean anyDownOrPaused() {
        for (SimNode node : e.nodes) {
            if (!node.live() || node.paused || node.slow(e.now)) {
                return true;
            }
        }
        return false;
    }

    private void recomputeNetwork() {
        double loss = 0;
        double dup = 0;
        long delay = 0;
        long slow = 0;
        double lostReplies = 0;
        for (Fault f : active) {
            switch (f.kind) {
                case LOSS -> loss = Math.max(loss, f.rate);
                case DUPLICATE -> dup = Math.max(dup, f.rate);
                case REORDER -> delay = Math.max(delay, f.delay);
                case STORE_SLOW -> slow = Math.max(slow, f.delay);
                case LOST_REPLY -> lostReplies = Math.max(lostReplies, f.rate);
                default -> {}
            }
        }
        e.net.lossRate = loss;
        e.net.dupRate = dup;
        e.net.reorderNanos = delay;
        if (e.store != null) {
            e.store.slowNanos = slow;
            e.store.lostReplyRate = lostReplies;
        }
    }

    private void beginQuiet(long quietPhaseNanos) {
        quiet = true;
        e.accounting.faultEvent();
        e.recorder.add(e.now, Recorder.NETWORK, "quiet", 0, -1, "all faults healed, all nodes running");
        for (Fault f : new ArrayList<>(active)) {
            heal(f);
            if (e.violation != null) {
                return;
            }
        }
        for (SimNode node : e.nodes) {
            if (node.paused) {
                e.driver.resume(node);
            }
            if (!node.live()) {
                e.driver.restart(node);
            }
        }
        e.net.lossRate = 0;
        e.net.dupRate = 0;
        e.net.reorderNanos = 0;
        if (e.store != null) {
            e.store.outages = 0;
            e.store.slowNanos = 0;
            e.store.lostReplyRate = 0;
        }
        e.invariants.onQuietStart(quietPhaseNanos);
    }

    /** The current leader with probability {@code leaderBias} if eligible, else a uniform eligible node. */
    private int pick(IntPredicate eligible, double leaderBias) {
        int leader = e.currentLeader();
        if (leader >= 0 && eligible.test(leader) && rng.nextDouble() < leaderBias) {
            return leader;
        }
        int count = 0;
        for (int i = 0; i < e.n; i++) {
            if (eligible.test(i)) {
                count++;
            }
        }
        if (count == 0) {
            return -1;
        }
        int k = rng.nextInt(count);
        for (int i = 0; i < e.n; i++) {
            if (eligible.test(i) && k-- == 0) {
                return i;
            }
        }
        return -1;
    }

    private int[] shuffled(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }
}
