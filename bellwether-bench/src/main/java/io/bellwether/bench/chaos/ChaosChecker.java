package io.bellwether.bench.chaos;

import io.bellwether.bench.chaos.ChaosRecord.Attempt;
import io.bellwether.bench.chaos.ChaosRecord.Fault;
import io.bellwether.bench.chaos.ChaosRecord.Observation;
import io.bellwether.bench.chaos.ChaosRecord.Recovery;
import io.bellwether.bench.chaos.ChaosRecord.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the whole history of a chaos run afterwards and finds every broken rule:
 *
 * <ol>
 *   <li><b>The fence held:</b> in commit order, no write of an epoch lower than one already accepted was accepted.
 *   <li><b>Nothing acknowledged was lost:</b> every attempt its writer recorded as accepted has its row in the data.
 *   <li><b>No two leaders acted at once:</b> each epoch acted from the start of its first attempt to the start of its
 *       last (every attempt starts right after its leadership was checked valid, or in a command, while the command
 *       was alive); two epochs whose spans overlap in real time broke the rule, unless the older one acted after the
 *       newer began only right after waking from a pause (SIGSTOP) the harness had begun before the newer began: a
 *       process stopped for longer than the margin wakes believing it still leads, and only the fence stands between
 *       it and the data. Those overlaps are counted, not failed; so are all
 *       overlaps of the algorithms that do not promise one leader under partitions (bully, ring, invitation).
 *   <li><b>Every fault ended in one known leader:</b> after each fault was healed, within the bound, every member
 *       that answered agreed on one leader at one epoch, that leader said it led, and at least a majority answered.
 * </ol>
 */
public final class ChaosChecker {
    /** Roles the harness records for a node that gave no answer. */
    static final Set<String> SILENT = Set.of("DOWN", "PAUSED", "UNREACHABLE");

    /**
     * One accepted write, as the data holds it.
     *
     * @param seq its commit order
     * @param epoch its fencing token
     * @param node the writer's node
     * @param counter the writer's counter
     */
    public record Write(long seq, long epoch, String node, long counter) {}

    private ChaosChecker() {}

    /**
     * Checks a run.
     *
     * @param nodes the member ids
     * @param faults the faults, in the order they began
     * @param observations every poll, in time order
     * @param attempts every attempt
     * @param writes every accepted write, in commit order
     * @param endNs when the run ended
     * @param boundNs how long after a heal the members must agree on a leader
     * @param oneLeader whether the algorithm promises one leader at a time under every fault (quorum, lease); the
     *     classic algorithms (bully, ring, invitation) elect a leader on each side of a partition, so for them every
     *     overlap is counted as caught by the fence and rule 1 alone must hold
     * @return the verdict
     */
    public static Verdict check(
            List<String> nodes,
            List<Fault> faults,
            List<Observation> observations,
            List<Attempt> attempts,
            List<Write> writes,
            long endNs,
            long boundNs,
            boolean oneLeader) {
        List<String> violations = new ArrayList<>();
        fence(writes, violations);
        acknowledged(attempts, writes, violations);
        int caught = overlaps(faults, attempts, oneLeader, violations);
        List<Recovery> recoveries = recoveries(nodes, faults, observations, endNs, boundNs, violations);
        long stale = attempts.stream().filter(a -> a.outcome().equals("stale")).count();
        return new Verdict(List.copyOf(violations), recoveries, caught, writes.size(), stale);
    }

    private static void fence(List<Write> writes, List<String> out) {
        List<Write> ordered = new ArrayList<>(writes);
        ordered.sort(Comparator.comparingLong(Write::seq));
        long highest = Long.MIN_VALUE;
        for (Write w : ordered) {
            if (w.epoch() < highest) {
                out.add("stale write accepted: epoch " + w.epoch() + " (" + w.node() + ", counter " + w.counter()
                        + ") committed after a write of epoch " + highest);
            }
            highest = Math.max(highest, w.epoch());
        }
    }

    private static void acknowledged(List<Attempt> attempts, List<Write> writes, List<String> out) {
        Set<String> present = new HashSet<>();
        writes.forEach(w -> present.add(w.epoch() + "/" + w.node() + "/" + w.counter()));
        for (Attempt a : attempts) {
            if (a.outcome().equals("accepted") && !present.contains(a.epoch() + "/" + a.node() + "/" + a.counter())) {
                out.add("acknowledged write lost: epoch " + a.epoch() + " (" + a.node() + ", counter " + a.counter()
                        + ") was recorded as accepted but is not in the data");
            }
        }
    }

    /** An epoch's span of acting: from its first attempt's start to its last attempt's start. */
    private record Span(long epoch, String node, long fromNs, long toNs) {}

    /**
     * How long after a pause ends a resumed leader's last attempt may start and still count as the pause's: a thread
     * stopped between its validity check and its attempt records the attempt as soon as it runs again.
     */
    static final long RESUME_GRACE_NS = 1_000_000_000L;

    private static int overlaps(List<Fault> faults, List<Attempt> attempts, boolean oneLeader, List<String> out) {
        Map<Long, Span> spans = new TreeMap<>();
        for (Attempt a : attempts) {
            spans.merge(
                    a.epoch(),
                    new Span(a.epoch(), a.node(), a.startedNs(), a.startedNs()),
                    (x, y) -> new Span(
                            x.epoch(), x.node(), Math.min(x.fromNs(), y.fromNs()), Math.max(x.toNs(), y.toNs())));
        }
        List<Span> list = new ArrayList<>(spans.values());
        list.sort(Comparator.comparingLong(Span::fromNs));
        long origin = list.isEmpty() ? 0 : list.get(0).fromNs();
        int caught = 0;
        for (int i = 0; i < list.size(); i++) {
            for (int j = i + 1; j < list.size(); j++) {
                Span a = list.get(i);
                Span b = list.get(j);
                if (b.fromNs() > a.toNs()) {
                    continue;
                }
                Span older = a.epoch() < b.epoch() ? a : b;
                Span newer = older == a ? b : a;
                if (!oneLeader || woke(faults, attempts, older, newer)) {
                    caught++;
                } else {
                    out.add(String.format(
                            "two leaders acted at once: epoch %d on %s from %.3f s to %.3f s and epoch %d on %s from"
                                    + " %.3f s to %.3f s",
                            a.epoch(),
                            a.node(),
                            (a.fromNs() - origin) / 1e9,
                            (a.toNs() - origin) / 1e9,
                            b.epoch(),
                            b.node(),
                            (b.fromNs() - origin) / 1e9,
                            (b.toNs() - origin) / 1e9));
                }
            }
        }
        return caught;
    }

    /**
     * Whether the older epoch acted after the newer one began only as a process woken from a pause: its node was
     * paused by the harness when the newer epoch began, and every attempt it started from then on started right after
     * such a pause ended ({@link #RESUME_GRACE_NS}). A pause elsewhere in the older epoch's span excuses nothing.
     */
    private static boolean woke(List<Fault> faults, List<Attempt> attempts, Span older, Span newer) {
        boolean any = false;
        for (Attempt t : attempts) {
            if (t.epoch() != older.epoch() || t.startedNs() < newer.fromNs()) {
                continue;
            }
            any = true;
            boolean afterPause = false;
            for (Fault f : faults) {
                if (f.kind().equals(Nemesis.Kind.PAUSE.label())
                        && f.targets().contains(older.node())
                        && f.fromNs() <= newer.fromNs()
                        && f.toNs() <= t.startedNs()
                        && t.startedNs() <= f.toNs() + RESUME_GRACE_NS) {
                    afterPause = true;
                    break;
                }
            }
            if (!afterPause) {
                return false;
            }
        }
        return any;
    }

    private static List<Recovery> recoveries(
            List<String> nodes,
            List<Fault> faults,
            List<Observation> observations,
            long endNs,
            long boundNs,
            List<String> out) {
        List<Observation> ordered = new ArrayList<>(observations);
        ordered.sort(Comparator.comparingLong(Observation::atNs));
        List<Recovery> recoveries = new ArrayList<>();
        for (int i = 0; i < faults.size(); i++) {
            Fault f = faults.get(i);
            long until = i + 1 < faults.size() ? faults.get(i + 1).fromNs() : endNs;
            long converged = convergence(nodes, ordered, f.toNs(), until);
            recoveries.add(new Recovery(i, converged, boundNs));
            if (converged == 0) {
                out.add(String.format(
                        "fault %d (%s) healed at +%.3f s: the members never agreed on a leader in the %.3f s before"
                                + " the next fault or the end",
                        i, f.description(), (f.toNs() - firstNs(ordered)) / 1e9, (until - f.toNs()) / 1e9));
            } else if (converged - f.toNs() > boundNs) {
                out.add(String.format(
                        "fault %d (%s): the members agreed on a leader %.0f ms after the heal, over the bound of %.0f"
                                + " ms",
                        i, f.description(), (converged - f.toNs()) / 1e6, boundNs / 1e6));
            }
        }
        return recoveries;
    }

    private static long firstNs(List<Observation> ordered) {
        return ordered.isEmpty() ? 0 : ordered.get(0).atNs();
    }

    /**
     * The first time in [from, until] at which the latest answer of every answering node names one leader at one
     * epoch, that leader answers LEADER at that epoch and a majority of the members answers; 0 if none. Every node's
     * latest observation must be from {@code from} on, so that nothing seen before the heal counts.
     */
    static long convergence(List<String> nodes, List<Observation> ordered, long from, long until) {
        Map<String, Observation> latest = new HashMap<>();
        for (Observation o : ordered) {
            if (o.atNs() > until) {
                break;
            }
            latest.put(o.node(), o);
            if (o.atNs() >= from && agreed(nodes, latest, from)) {
                return o.atNs();
            }
        }
        return 0;
    }

    /**
     * For every fault that hit the leader of the moment: how long after the fault began a majority of the members
     * named one new leader at a higher epoch that said it led (the failover as the members saw it, whether or not the
     * old leader was still cut off). Faults that did not hit the leader, or after which no new leader was seen before
     * the next fault, are left out.
     *
     * @return the failover times in nanoseconds by the index of their fault, in the order of the faults
     */
    public static Map<Integer, Long> failovers(List<String> nodes, List<Fault> faults, List<Observation> observations) {
        List<Observation> ordered = new ArrayList<>(observations);
        ordered.sort(Comparator.comparingLong(Observation::atNs));
        Map<Integer, Long> out = new TreeMap<>();
        for (int i = 0; i < faults.size(); i++) {
            Fault f = faults.get(i);
            long until = i + 1 < faults.size() ? faults.get(i + 1).fromNs() : Long.MAX_VALUE;
            Map<String, Observation> latest = new HashMap<>();
            int k = 0;
            for (; k < ordered.size() && ordered.get(k).atNs() < f.fromNs(); k++) {
                latest.put(ordered.get(k).node(), ordered.get(k));
            }
            Observation leader = latest.values().stream()
                    .filter(o -> o.role().equals("LEADER"))
                    .max(Comparator.comparingLong(Observation::epoch))
                    .orElse(null);
            if (leader == null || !f.targets().contains(leader.node())) {
                continue;
            }
            latest.clear();
            for (; k < ordered.size() && ordered.get(k).atNs() <= until; k++) {
                Observation o = ordered.get(k);
                latest.put(o.node(), o);
                if (newLeader(nodes, latest, leader.epoch())) {
                    out.put(i, o.atNs() - f.fromNs());
                    break;
                }
            }
        }
        return out;
    }

    /** Whether a majority names one leader above {@code epoch} that says it leads. */
    private static boolean newLeader(List<String> nodes, Map<String, Observation> latest, long epoch) {
        Map<String, Integer> votes = new HashMap<>();
        for (Observation o : latest.values()) {
            if (o.leader() != null && o.epoch() > epoch && !SILENT.contains(o.role())) {
                votes.merge(o.leader() + "/" + o.epoch(), 1, Integer::sum);
            }
        }
        for (Map.Entry<String, Integer> v : votes.entrySet()) {
            String[] key = v.getKey().split("/");
            Observation own = latest.get(key[0]);
            if (v.getValue() >= nodes.size() / 2 + 1
                    && own != null
                    && own.role().equals("LEADER")
                    && own.epoch() == Long.parseLong(key[1])) {
                return true;
            }
        }
        return false;
    }

    /** Whether the nodes agree, on observations all made at or after {@code from}. */
    static boolean agreed(List<String> nodes, Map<String, Observation> latest, long from) {
        String leader = null;
        long epoch = -1;
        int answering = 0;
        for (String n : nodes) {
            Observation o = latest.get(n);
            if (o == null || o.atNs() < from) {
                return false;
            }
            if (SILENT.contains(o.role())) {
                continue;
            }
            answering++;
            if (o.leader() == null) {
                return false;
            }
            if (leader == null) {
                leader = o.leader();
                epoch = o.epoch();
            } else if (!leader.equals(o.leader()) || epoch != o.epoch()) {
                return false;
            }
        }
        if (leader == null || answering < nodes.size() / 2 + 1) {
            return false;
        }
        Observation own = latest.get(leader);
        return own != null && own.role().equals("LEADER") && own.epoch() == epoch;
    }
}
