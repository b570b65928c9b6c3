package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Environment;
import io.bellwether.elector.Variant;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.lease.LeaseConfig;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What to simulate: which run of which algorithm (its {@link Variant}: the traits and checks select the invariant
 * checkers), the elector spec to run (normally the variant's defaults; tests pass deliberately broken doubles),
 * how many nodes, which faults, and how long the fault phase and the quiet phase that follows it last.
 *
 * @param algorithm the run's name, a variant of {@code descriptor}, e.g. {@code bully-strict}
 * @param descriptor the algorithm that offers it; the constructor without it looks it up in {@link Algorithms}
 * @param priorities whether each node gets a priority of its own (0 to {@value #PRIORITY_LEVELS} − 1, drawn from
 *     the seed, {@link ElectorSpec#withPriority}); off, every node has the spec's priority and the run is the one
 *     it was before priorities existed
 */
public record SimulationConfig(
        String algorithm,
        ElectorSpec spec,
        int nodes,
        Set<FaultKind> faults,
        Duration faultPhase,
        Duration quietPhase,
        Algorithm descriptor,
        boolean priorities) {
    /**
     * How many priorities a run with {@link #priorities} draws from (0, 1, 2): few, so that several nodes often
     * share the highest and ties are exercised too.
     */
    public static final int PRIORITY_LEVELS = 3;

    /** Default length of the fault phase (virtual time). */
    public static final Duration DEFAULT_FAULT_PHASE = Duration.ofSeconds(30);
    /** Default length of the quiet phase (virtual time). */
    public static final Duration DEFAULT_QUIET_PHASE = Duration.ofSeconds(10);
    /**
     * The runs {@link #forAlgorithm} knows (the CLI offers exactly these): every {@link Variant} of every
     * registered algorithm, in {@link Algorithms#variants()} order. {@code invitation} is the classic invitation
     * algorithm (one coordinator per partition side); {@code invitation-gated} is the same elector with its
     * majority gate on, checked like quorum for never two acting coordinators. {@code bully-strict} is the bully
     * elector in strict mode (Halt, NewCoordinator, Ready), checked like bully plus the strict-mode checks.
     */
    public static final List<String> ALGORITHMS =
            Algorithms.variants().stream().map(Variant::name).toList();

    /**
     * What the simulator's algorithms get from outside their section: the simulated store (each run puts its own
     * store behind the elector's requests), the simulator's group and a fixed holder suffix, so that a seed
     * replays exactly.
     */
    static final Environment ENVIRONMENT = new Environment(StoreLink.STORE_GROUP, SimLeaseStore.PLACEHOLDER, "sim");

    /**
     * The largest group the simulator runs: 1024, the most members the bully and ring epochs can encode ({@code
     * RankedEpoch.MAX_MEMBERS}). The engine itself has no bit-width limit (its
     * reachability sets are arrays of words); its memory grows with n² (per-pair connection state, about 12 MB
     * at 1024 nodes) and its running time faster still, so large groups are for short runs and few seeds.
     */
    public static final int MAX_NODES = 1024;

    public SimulationConfig {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(descriptor, "descriptor");
        if (descriptor.variant(algorithm).isEmpty()) {
            throw new IllegalArgumentException("algorithm '" + algorithm + "' is not a run of " + descriptor.name()
                    + ": allowed "
                    + String.join(
                            ",",
                            descriptor.variants().stream().map(Variant::name).toList()));
        }
        faults = Set.copyOf(faults);
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("nodes = " + nodes + " is out of range: allowed 1 to " + MAX_NODES);
        }
        Objects.requireNonNull(faultPhase, "faultPhase");
        Objects.requireNonNull(quietPhase, "quietPhase");
        if (faultPhase.isNegative() || quietPhase.isNegative()) {
            throw new IllegalArgumentException("faultPhase = " + faultPhase + ", quietPhase = " + quietPhase
                    + " are invalid: phases must not be negative");
        }
    }

    /** A simulation without per-node priorities. */
    public SimulationConfig(
            String algorithm,
            ElectorSpec spec,
            int nodes,
            Set<FaultKind> faults,
            Duration faultPhase,
            Duration quietPhase,
            Algorithm descriptor) {
        this(algorithm, spec, nodes, faults, faultPhase, quietPhase, descriptor, false);
    }

    /**
     * A simulation of the registered run named {@code algorithm}.
     *
     * @throws IllegalArgumentException naming the algorithm and listing the allowed ones
     */
    public SimulationConfig(
            String algorithm,
            ElectorSpec spec,
            int nodes,
            Set<FaultKind> faults,
            Duration faultPhase,
            Duration quietPhase) {
        this(algorithm, spec, nodes, faults, faultPhase, quietPhase, descriptorOf(algorithm));
    }

    /**
     * The default simulation of a named run: its variant's configuration, a 30 s fault phase and a 10 s quiet
     * phase. Every fault kind that applies to the run may be asked for: the message-passing algorithms take the
     * process, clock and network kinds; lease, which uses a store, takes the process, clock and store kinds (see
     * {@link FaultKind#appliesTo}).
     *
     * @throws IllegalArgumentException naming the algorithm and listing the allowed ones
     */
    public static SimulationConfig forAlgorithm(String algorithm, int nodes, Set<FaultKind> faults) {
        return new SimulationConfig(
                algorithm,
                defaultsOf(algorithm),
                nodes,
                faults,
                DEFAULT_FAULT_PHASE,
                DEFAULT_QUIET_PHASE,
                descriptorOf(algorithm));
    }

    /**
     * The algorithm that offers the run named {@code algorithm}.
     *
     * @throws IllegalArgumentException naming the algorithm and listing the allowed ones
     */
    static Algorithm descriptorOf(String algorithm) {
        Objects.requireNonNull(algorithm, "algorithm");
        return Algorithms.byVariant(algorithm)
                .orElseThrow(() -> new IllegalArgumentException("algorithm '" + algorithm
                        + "' is unknown to the simulator: allowed " + String.join(",", ALGORITHMS)));
    }

    /**
     * The registered run named {@code algorithm}.
     *
     * @throws IllegalArgumentException naming the algorithm and listing the allowed ones
     */
    public static Variant variantOf(String algorithm) {
        return descriptorOf(algorithm).variant(algorithm).orElseThrow();
    }

    /** The spec of the registered run named {@code variant}: its algorithm's defaults with the run's settings. */
    static ElectorSpec defaultsOf(String variant) {
        return descriptorOf(variant).configure(variantOf(variant).settings(), ENVIRONMENT);
    }

    /** The run this simulates: what it guarantees and needs, and its extra checks. */
    public Variant variant() {
        return descriptor.variant(algorithm).orElseThrow();
    }

    /** The bully elector's default timings in strict mode: the {@code bully-strict} run. */
    public static BullyConfig bullyStrictDefaults() {
        return (BullyConfig) defaultsOf("bully-strict");
    }

    /** The invitation elector's default timings with its majority gate on: the {@code invitation-gated} run. */
    public static InvitationConfig invitationGatedDefaults() {
        return (InvitationConfig) defaultsOf("invitation-gated");
    }

    /**
     * The lease elector's default timings over the simulator's store; each run puts its own simulated store
     * (latency, outages, lost replies, its clock as true time) behind the elector's store requests.
     */
    public static LeaseConfig leaseDefaults() {
        return (LeaseConfig) defaultsOf("lease");
    }

    /** A copy with other phase lengths. */
    public SimulationConfig withPhases(Duration faultPhase, Duration quietPhase) {
        return new SimulationConfig(algorithm, spec, nodes, faults, faultPhase, quietPhase, descriptor, priorities);
    }

    /**
     * A copy whose nodes get priorities of their own ({@code true}) or not.
     *
     * @throws IllegalArgumentException if the algorithm cannot honour priorities
     */
    public SimulationConfig withPriorities(boolean on) {
        if (on) {
            // Refuses, naming the key and saying why, for an algorithm without priorities.
            spec.withPriorities(Map.of(NodeId.of("n1"), 1), NodeId.of("n1"));
        }
        return new SimulationConfig(algorithm, spec, nodes, faults, faultPhase, quietPhase, descriptor, on);
    }

    /**
     * One command line that replays {@code seed} of this simulation. Phases are spelled out only when they
     * differ from the defaults. A spec other than the algorithm's defaults (a test double) cannot be named on
     * a command line; the command then replays the default spec.
     */
    public String replayCommand(long seed) {
        StringBuilder sb = new StringBuilder("./bellwether simulate --algorithm ")
                .append(algorithm)
                .append(" --nodes ")
                .append(nodes)
                .append(" --seeds 1 --seed-start ")
                .append(seed)
                .append(" --faults ")
                .append(FaultKind.toList(ordered(faults)));
        if (!faultPhase.equals(DEFAULT_FAULT_PHASE)) {
            sb.append(" --fault-phase ").append(faultPhase.toMillis()).append("ms");
        }
        if (!quietPhase.equals(DEFAULT_QUIET_PHASE)) {
            sb.append(" --quiet-phase ").append(quietPhase.toMillis()).append("ms");
        }
        if (priorities) {
            sb.append(" --priorities");
        }
        return sb.toString();
    }

    /** The kinds in declaration order: a {@code Set.copyOf} iterates in an order that varies between JVM runs. */
    static Set<FaultKind> ordered(Set<FaultKind> kinds) {
        return kinds.isEmpty() ? EnumSet.noneOf(FaultKind.class) : EnumSet.copyOf(kinds);
    }
}
