package io.bellwether.sim;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Trait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Explores every interleaving of a small group up to a bounded number of choices. At each step the explorer
 * may deliver any pending message (messages wait in the network until chosen, so every order is tried),
 * drop any pending message, fire the next timer (advancing virtual time to it), crash one node or reset one
 * connection (one such fault per path) and restart a crashed node. Each end of a closed connection is told of
 * the closing when the explorer chooses (a pending notice, like a message: sooner, later, or never, as with
 * a half-open connection), and a departure ({@code onPeerGone}) only while the peer is down. The same online
 * invariant checkers as in random runs watch every step, except the timing checks that need a real network
 * schedule.
 *
 * <p>Stateless replay search: each explored path is re-run from the start (runs are deterministic), and a
 * hash of the visible state prunes paths that reach a state seen before. The visible state is every node's
 * elector state, durable state, armed timers relative to now, validity, random draws, and the multiset of
 * pending messages. It cannot see inside an elector, so two paths that differ only in an elector's private
 * fields are taken as one; that is the usual price of stateless search and keeps depth 11 fast.
 */
public final class ExhaustiveExplorer {
    private static final int DELIVER = 0;
    private static final int DROP = 1;
    private static final int TIMER = 2;
    private static final int CRASH = 3;
    private static final int RESTART = 4;
    private static final int NOTICE = 5;
    private static final int RESET = 6;
    private static final int MAX_VIOLATIONS = 10;

    private ExhaustiveExplorer() {}

    /** What an exhaustive exploration covered and found. */
    public record Result(int nodes, int depth, long paths, long distinctStates, List<Violation> violations) {}

    /** Explores a registered run with crashes allowed. */
    public static Result explore(String algorithm, ElectorSpec spec, int nodes, int depth) {
        return explore(algorithm, spec, nodes, depth, true);
    }

    /** Explores a registered run; see {@link #explore(Algorithm, String, ElectorSpec, int, int, boolean)}. */
    public static Result explore(String algorithm, ElectorSpec spec, int nodes, int depth, boolean allowCrash) {
        return explore(SimulationConfig.descriptorOf(algorithm), algorithm, spec, nodes, depth, allowCrash);
    }

    /**
     * Explores every path of at most {@code depth} choices of the run {@code algorithm} of {@code descriptor}.
     *
     * @param allowCrash whether one node may crash (and restart) on a path
     * @throws IllegalArgumentException if {@code nodes} is not 1 to 7 or {@code depth} not 0 to 64, or for a run
     *     without {@link Trait#PEER_MESSAGES} (lease): its choices are store timings, not message orders, and the
     *     random runs cover them
     */
    public static Result explore(
            Algorithm descriptor, String algorithm, ElectorSpec spec, int nodes, int depth, boolean allowCrash) {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(spec, "spec");
        if (!descriptor.variant(algorithm).map(v -> v.has(Trait.PEER_MESSAGES)).orElse(true)) {
            throw new IllegalArgumentException("exhaustive exploration covers the message-passing algorithms; the "
                    + algorithm + " elector exchanges no messages, so simulate it with random seeds only");
        }
        if (nodes < 1 || nodes > 7) {
            throw new IllegalArgumentException("nodes = " + nodes + " is out of range: allowed 1 to 7");
        }
        if (depth < 0 || depth > 64) {
            throw new IllegalArgumentException("depth = " + depth + " is out of range: allowed 0 to 64");
        }
        SimulationConfig config =
                new SimulationConfig(algorithm, spec, nodes, Set.of(), Duration.ZERO, Duration.ZERO, descriptor);
        Search search = new Search(config, depth, allowCrash);
        search.run();
        return new Result(nodes, depth, search.paths, search.visited.size(), List.copyOf(search.violations));
    }

    private static final class Search {
        final SimulationConfig config;
        final int depth;
        final boolean allowCrash;
        final LongSet visited = new LongSet();
        final List<Violation> violations = new ArrayList<>();
        final int[] path;
        long paths;

        Search(SimulationConfig config, int depth, boolean allowCrash) {
            this.config = config;
            this.depth = depth;
            this.allowCrash = allowCrash;
            this.path = new int[depth];
        }

        void run() {
            World root = replay(0);
            if (root.e.violation != null) {
                found(root, 0);
                paths++;
                return;
            }
            visited.add(root.hash());
            dfs(0, root);
        }

        /** Explores the children of the state reached by {@code path[0..len)}, held (and consumed) by {@code w}. */
        private void dfs(int len, World w) {
            if (len == depth) {
                paths++;
                return;
            }
            int[] choices = w.choices(allowCrash);
            if (choices.length == 0) {
                paths++;
                return;
            }
            for (int c = 0; c < choices.length && violations.size() < MAX_VIOLATIONS; c++) {
                World child = c == choices.length - 1 ? w : replay(len);
                path[len] = choices[c];
                child.apply(choices[c]);
                if (child.e.violation != null) {
                    found(child, len + 1);
                    paths++;
                    continue;
                }
                if (!visited.add(child.hash())) {
                    continue;
                }
                dfs(len + 1, child);
            }
        }

        private World replay(int len) {
            World w = new World(new Engine(config, 0, false, true, 256));
            w.e.driver.startAll();
            for (int i = 0; i < len && w.e.violation == null; i++) {
                w.apply(path[i]);
            }
            return w;
        }

        private void found(World w, int len) {
            Violation v = w.e.violation;
            StringBuilder p = new StringBuilder();
            for (int i = 0; i < len; i++) {
                p.append(i == 0 ? "" : " ").append(describe(path[i]));
            }
            violations.add(new Violation(
                    v.invariant(),
                    v.seed(),
                    v.message() + "; choices: [" + p + "]",
                    v.excerpt(),
                    v.replayCommand() + " --exhaustive-depth " + depth));
        }
    }

    private static String describe(int code) {
        int arg = code & 0xFFFF;
        return switch (code >>> 16) {
            case DELIVER -> "deliver#" + arg;
            case DROP -> "drop#" + arg;
            case TIMER -> "timer";
            case CRASH -> "crash:n" + (arg + 1);
            case NOTICE -> "notice#" + arg;
            case RESET -> "reset:n" + ((arg >> 8) + 1) + "-n" + ((arg & 0xFF) + 1);
            default -> "restart:n" + (arg + 1);
        };
    }

    private static int code(int kind, int arg) {
        return (kind << 16) | arg;
    }

    /** One replayed execution and the choices available in it. */
    private static final class World {
        final Engine e;
        boolean crashed;

        World(Engine e) {
            this.e = e;
        }

        int[] choices(boolean allowCrash) {
            purgeDeadMessages();
            List<Network.Pending> pending = e.net.pending;
            int[] out = new int[pending.size() * 2 + 1 + 2 * e.n + e.net.pendingNotices.size() + e.n * e.n];
            int k = 0;
            for (int i = 0; i < pending.size(); i++) {
                if (!seenBefore(pending, i)) {
                    out[k++] = code(DELIVER, i);
                    out[k++] = code(DROP, i);
                }
            }
            for (int i = 0; i < e.net.pendingNotices.size(); i++) {
                out[k++] = code(NOTICE, i);
            }
            if (nextTimer() != null) {
                out[k++] = code(TIMER, 0);
            }
            if (allowCrash && !crashed) {
                for (int a = 0; a < e.n; a++) {
                    for (int b = a + 1; b < e.n; b++) {
                        if (e.nodes[a].live() && e.nodes[b].live()) {
                            out[k++] = code(RESET, (a << 8) | b);
                        }
                    }
                }
            }
            for (SimNode node : e.nodes) {
                if (node.live() && allowCrash && !crashed) {
                    out[k++] = code(CRASH, node.index);
                } else if (!node.live()) {
                    out[k++] = code(RESTART, node.index);
                }
            }
            return Arrays.copyOf(out, k);
        }

        private static boolean seenBefore(List<Network.Pending> pending, int i) {
            Network.Pending p = pending.get(i);
            for (int j = 0; j < i; j++) {
                if (pending.get(j).equals(p)) {
                    return true;
                }
            }
            return false;
        }

        /** Messages that can never arrive (dead receiver, reset connection) are dropped at once. */
        private void purgeDeadMessages() {
            e.net.pending.removeIf(p -> !e.nodes[p.to()].live() || p.gen() != e.net.connGen[p.from()][p.to()]);
            e.net.pendingNotices.removeIf(n -> !e.nodes[n.node].live() || e.nodes[n.node].incarnation != n.incarnation);
        }

        private Event nextTimer() {
            while (true) {
                Event t = e.queue.peek();
                if (t == null || (t.type == Event.TIMER && e.driver.timerIsLive(t))) {
                    return t;
                }
                e.queue.poll();
                if (t.type == Event.ACTION) {
                    e.now = Math.max(e.now, t.time);
                    t.action.run();
                }
            }
        }

        void apply(int choice) {
            purgeDeadMessages();
            int arg = choice & 0xFFFF;
            e.events++;
            e.recorder.add(e.now, Recorder.NETWORK, "choice", 0, -1, describe(choice));
            switch (choice >>> 16) {
                case DELIVER -> {
                    Network.Pending p = e.net.pending.remove(arg);
                    e.dispatch(e.net.delivery(e.now, p.from(), p.to(), p.message(), p.gen()));
                }
                case DROP -> {
                    Network.Pending p = e.net.pending.remove(arg);
                    e.recorder.add(e.now, p.to(), "drop-chosen", 0, p.from(), p.message());
                }
                case TIMER -> {
                    Event t = nextTimer();
                    e.queue.poll();
                    e.now = t.time;
                    e.dispatch(t);
                }
                case CRASH -> {
                    crashed = true;
                    e.driver.crash(e.nodes[arg], false);
                }
                case RESTART -> e.driver.restart(e.nodes[arg]);
                case NOTICE -> e.net.tellNotice(arg);
                case RESET -> {
                    crashed = true;
                    e.net.reset(arg >> 8, arg & 0xFF);
                }
                default -> throw new IllegalStateException("choice " + choice);
            }
        }

        long hash() {
            purgeDeadMessages();
            long h = crashed ? 0x9E3779B97F4A7C15L : 17;
            long now = e.now;
            for (SimNode node : e.nodes) {
                h = mix(h, node.live() ? 1 : 2);
                if (!node.live()) {
                    h = mix(h, node.store.state.hashCode());
                    continue;
                }
                h = mix(h, node.state.role().ordinal());
                h = mix(h, node.state.epoch());
                h = mix(h, node.state.leader().map(id -> id.value().hashCode()).orElse(0));
                h = mix(h, node.announced.role().ordinal() * 31L + node.announced.epoch());
                h = mix(h, node.store.state.hashCode());
                h = mix(h, node.random.draws);
                h = mix(h, node.validUntilTrue > now ? node.validUntilTrue - now : -1);
                long[] timers = new long[node.timers.size()];
                int k = 0;
                for (Event t : node.timers.values()) {
                    timers[k++] = mix(
                            ((io.bellwether.elector.TimerKey) t.payload).name().hashCode(), t.time - now);
                }
                Arrays.sort(timers);
                for (long t : timers) {
                    h = mix(h, t);
                }
            }
            long[] msgs = new long[e.net.pending.size()];
            for (int i = 0; i < msgs.length; i++) {
                Network.Pending p = e.net.pending.get(i);
                msgs[i] = mix(mix(p.from() * 31L + p.to(), p.message().hashCode()), p.gen());
            }
            Arrays.sort(msgs);
            h = mix(h, msgs.length);
            for (long m : msgs) {
                h = mix(h, m);
            }
            long[] notices = new long[e.net.pendingNotices.size()];
            for (int i = 0; i < notices.length; i++) {
                Event n = e.net.pendingNotices.get(i);
                notices[i] = mix(n.type * 31L + n.node, n.from);
            }
            Arrays.sort(notices);
            h = mix(h, notices.length);
            for (long m : notices) {
                h = mix(h, m);
            }
            return h;
        }

        private static long mix(long h, long v) {
            long x = h * 0x9E3779B97F4A7C15L + v;
            x ^= x >>> 31;
            x *= 0xBF58476D1CE4E5B9L;
            x ^= x >>> 29;
            return x;
        }
    }

    /** An open-addressing set of longs: the visited states, without boxing. */
    private static final class LongSet {
        private long[] table = new long[1 << 16];
        private boolean hasZero;
        private int size;

        int size() {
            return size + (hasZero ? 1 : 0);
        }

        boolean add(long v) {
            if (v == 0) {
                boolean added = !hasZero;
                hasZero = true;
                return added;
            }
            if (size * 2 >= table.length) {
                grow();
            }
            int mask = table.length - 1;
            int i = (int) (v ^ (v >>> 32)) & mask;
            while (table[i] != 0) {
                if (table[i] == v) {
                    return false;
                }
                i = (i + 1) & mask;
            }
            table[i] = v;
            size++;
            return true;
        }

        private void grow() {
            long[] old = table;
            table = new long[old.length * 2];
            int mask = table.length - 1;
            for (long v : old) {
                if (v != 0) {
                    int i = (int) (v ^ (v >>> 32)) & mask;
                    while (table[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    table[i] = v;
                }
            }
        }
    }
}
