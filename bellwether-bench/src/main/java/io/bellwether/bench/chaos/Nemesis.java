package io.bellwether.bench.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fault schedule of a chaos run, drawn from a seed: the same seed, algorithm, cluster size and timings give the
 * same list of {@link Step steps}. What a step hits is chosen when it runs: a step aimed at the leader hits whichever
 * node leads then, and the others pick a node (or a side of a partition) by a drawn index, so the schedule is the
 * same while the nodes that lead may differ from run to run (elections race on the machine's timing).
 *
 * <p>For the peer algorithms (quorum, bully, ring, invitation): kill -9 and restart, SIGSTOP and SIGCONT shorter
 * than the election timeout and several times longer, symmetric partitions of a minority (bytes dropped, or stalled
 * as TCP retransmissions would hold them), one-way loss to or from the leader, isolation of the leader, a flapping
 * link, delayed and throttled links. For lease: kill, pauses shorter than the lease and longer
 * than the lease, an outage of the store for every node, a node (most often the leader) cut off from the store, a flapping and a delayed
 * store link.
 */
public final class Nemesis {
    /** What a step does. */
    public enum Kind {
        /** kill -9 a node, restart it after the hold. */
        KILL("kill"),
        /** SIGSTOP a node, SIGCONT after the hold. */
        PAUSE("pause"),
        /** Cut a minority of the members off from the rest, both ways. */
        PARTITION("partition"),
        /** Lose one direction of every link between the leader and the others. */
        ONE_WAY("one-way"),
        /** Cut a node (the leader in most steps) off from every other member (and, for lease, from the store). */
        ISOLATE("isolate"),
        /** Cut and heal one link in turn, every few hundred milliseconds. */
        FLAP("flap"),
        /** Delay every link of one node. */
        DELAY("delay"),
        /** Throttle every link of one node to a trickle. */
        THROTTLE("throttle"),
        /** Cut every node off from the store. */
        STORE_OUTAGE("store-outage");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** @return the name reports use */
        public String label() {
            return label;
        }
    }

    /**
     * One fault to inject.
     *
     * @param kind what to do
     * @param atLeader whether it hits the leader of the moment (else the node {@code pick} chooses)
     * @param pick a draw in [0, 1) that chooses the node, the side of a partition or the link
     * @param hold how long the fault lasts before it is healed
     * @param stall for network faults, whether bytes are held back (delivered at the heal, as TCP retransmits them)
     *     rather than dropped
     * @param amount the fault's size: the delay in ms for {@link Kind#DELAY}, bytes per second for {@link
     *     Kind#THROTTLE}, the flap period in ms for {@link Kind#FLAP}, whether the leader's outgoing (1) or incoming
     *     (0) direction is lost for {@link Kind#ONE_WAY}; 0 otherwise
     * @param calm how long the cluster runs undisturbed after it has settled, before the next step
     */
    public record Step(
            Kind kind, boolean atLeader, double pick, Duration hold, boolean stall, long amount, Duration calm) {
        /** @return a one-line description of the step as planned */
        public String plan() {
            String target = atLeader ? "the leader" : "node #" + (int) (pick * 1000);
            String size =
                    switch (kind) {
                        case DELAY -> ", " + amount + " ms";
                        case THROTTLE -> ", " + amount + " B/s";
                        case FLAP -> ", every " + amount + " ms";
                        case ONE_WAY -> amount == 1 ? ", its outgoing side" : ", its incoming side";
                        default -> "";
                    };
            return kind.label() + " " + target + size + (stall ? ", stalled" : "") + " for " + hold.toMillis()
                    + " ms, then " + calm.toMillis() + " ms calm";
        }
    }

    private Nemesis() {}

    /**
     * The steps for a run of at least {@code duration}: enough of them that the run ends on time whatever each
     * recovery takes (the harness stops at {@code duration}).
     *
     * @param seed the seed
     * @param lease whether the nodes elect through a store (lease) rather than over their peer links
     * @param electionTimeout the time after which a silent leader is replaced: the quorum election timeout, or for
     *     lease the lease duration; pauses are drawn around it
     * @param duration how long the run lasts
     */
    public static List<Step> schedule(long seed, boolean lease, Duration electionTimeout, Duration duration) {
        Random random = new Random(seed);
        List<Kind> kinds = lease
                ? List.of(Kind.KILL, Kind.PAUSE, Kind.STORE_OUTAGE, Kind.ISOLATE, Kind.FLAP, Kind.DELAY)
                : List.of(
                        Kind.KILL,
                        Kind.PAUSE,
                        Kind.PARTITION,
                        Kind.ONE_WAY,
                        Kind.ISOLATE,
                        Kind.FLAP,
                        Kind.DELAY,
                        Kind.THROTTLE);
        long timeout = electionTimeout.toMillis();
        List<Step> steps = new ArrayList<>();
        long planned = 0;
        // A step takes at least its hold and calm, so steps whose holds and calms add up to the duration outlast it.
        while (planned < duration.toMillis() || steps.size() < 2) {
            Kind kind = kinds.get(random.nextInt(kinds.size()));
            boolean atLeader = random.nextDouble() < 0.7;
            double pick = random.nextDouble();
            boolean stall = random.nextBoolean();
            long calm = 300 + random.nextInt(1200);
            long hold;
            long amount = 0;
            switch (kind) {
                case KILL -> hold = 200 + random.nextInt(2000);
                case PAUSE -> {
                    // Half the pauses end before a successor can be chosen, half last well past it.
                    boolean longPause = random.nextBoolean();
                    hold = longPause
                            ? timeout * 2 + random.nextInt((int) Math.max(1, timeout * 3))
                            : Math.max(10, timeout / 4 + random.nextInt((int) Math.max(1, timeout / 3)));
                    atLeader = atLeader || longPause;
                }
                case PARTITION, ISOLATE, STORE_OUTAGE -> hold = timeout + random.nextInt((int) (timeout * 4));
                case ONE_WAY -> {
                    hold = timeout + random.nextInt((int) (timeout * 4));
                    amount = random.nextInt(2);
                    atLeader = true;
                }
                case FLAP -> {
                    hold = 2000 + random.nextInt(3000);
                    amount = timeout / 2 + random.nextInt((int) Math.max(1, timeout));
                }
                case DELAY -> {
                    hold = 2000 + random.nextInt(3000);
                    amount = 5 + random.nextInt((int) Math.max(1, timeout / 4));
                }
                case THROTTLE -> {
                    hold = 2000 + random.nextInt(3000);
                    amount = 512 + random.nextInt(4096);
                }
                default -> throw new IllegalStateException(kind.toString());
            }
            steps.add(new Step(kind, atLeader, pick, Duration.ofMillis(hold), stall, amount, Duration.ofMillis(calm)));
            planned += hold + calm;
        }
        return steps;
    }
}
