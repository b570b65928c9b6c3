package io.bellwether;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Environment;
import io.bellwether.runtime.ElectionSettings;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.Transport;
import io.bellwether.state.FileStateStore;
import io.bellwether.state.GroupNames;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Builds an {@link Election}. Required: {@link #group}, {@link #self}, the {@linkplain #member members} (self
 * among them), a {@link #stateStore} and a {@link #transport}. Everything else has a documented default.
 *
 * <pre>{@code
 * Election election = Election.builder()
 *         .group("billing-jobs")
 *         .self(NodeId.of("node-a"))
 *         .member(NodeId.of("node-a"), NodeAddress.parse("10.0.0.1:7101"))
 *         .member(NodeId.of("node-b"), NodeAddress.parse("10.0.0.2:7101"))
 *         .member(NodeId.of("node-c"), NodeAddress.parse("10.0.0.3:7101"))
 *         .stateStore(new FileStateStore(Path.of("/var/lib/billing/bellwether")))
 *         .transport(transport)
 *         .build();
 * election.start();
 * }</pre>
 *
 * <p>Every setter validates its argument at once and throws {@link IllegalArgumentException} naming the key,
 * the value and what is allowed; {@link #build()} checks what is missing. Not thread-safe; the built election
 * is.
 */
public final class ElectionBuilder {
    /** The default {@link #revocationLead(Duration)}: 20 ms. */
    public static final Duration DEFAULT_REVOCATION_LEAD = Duration.ofMillis(20);

    private static final Duration MAX_REVOCATION_LEAD = Duration.ofSeconds(1);

    private String group;
    private NodeId self;
    private final Map<NodeId, NodeAddress> members = new TreeMap<>();
    private ElectorSpec algorithm;
    private StateStore stateStore;
    private Transport transport;
    private Duration revocationLead = DEFAULT_REVOCATION_LEAD;
    private OptionalLong seed = OptionalLong.empty();

    ElectionBuilder() {}

    /**
     * {@code group}: the election group's name, shared by all its members. Required. 1–64 characters of
     * letters, digits, {@code .}, {@code _} and {@code -}, starting with a letter or digit (it names the state
     * file of a {@link FileStateStore}).
     */
    public ElectionBuilder group(String group) {
        this.group = GroupNames.check("group", group);
        return this;
    }

    /** {@code self}: this member's id. Required; must be one of the {@linkplain #member members}. */
    public ElectionBuilder self(NodeId self) {
        this.self = Objects.requireNonNull(self, "self");
        return this;
    }

    /**
     * Adds one member of the group and the address its peers reach it at. Every member must be configured
     * with the same member list.
     *
     * @throws IllegalArgumentException if {@code id} was already added with a different address
     */
    public ElectionBuilder member(NodeId id, NodeAddress address) {
        Objects.requireNonNull(id, "member id");
        Objects.requireNonNull(address, "member address");
        NodeAddress known = members.putIfAbsent(id, address);
        if (known != null && !known.equals(address)) {
            throw new IllegalArgumentException("members: member " + id + " is given two addresses, " + known + " and "
                    + address + ": allowed one address per member");
        }
        return this;
    }

    /** Adds every entry of {@code members}, as {@link #member} does. */
    public ElectionBuilder members(Map<NodeId, NodeAddress> members) {
        Objects.requireNonNull(members, "members").forEach(this::member);
        return this;
    }

    /**
     * {@code algorithm}: the elector and its configuration, as an algorithm's {@link Algorithm#configure} makes it.
     * Default: the default algorithm (the first of {@link Algorithms#all()}, quorum) with its documented timings.
     */
    public ElectionBuilder algorithm(ElectorSpec algorithm) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        return this;
    }

    /**
     * {@code state-store}: where this member keeps what it must remember across restarts (the quorum
     * elector's term). Required, with no default on purpose: pass {@code new FileStateStore(dir)} in
     * production; pass {@code new InMemoryStateStore()} only knowingly, since a member that forgets its term
     * after a restart can vote twice in one term. The election does not close the store (several elections may
     * share one); a {@link FileStateStore} keeps one file open per group until its {@code close()}.
     */
    public ElectionBuilder stateStore(StateStore stateStore) {
        this.stateStore = Objects.requireNonNull(stateStore, "stateStore");
        return this;
    }

    /**
     * {@code transport}: carries messages between members. Required. One transport can serve every election
     * of a process.
     */
    public ElectionBuilder transport(Transport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /**
     * {@code revocation-lead}: how long before a leadership's validity ends the runtime revokes it for users
     * (completes {@link Leadership#revoked()} and interrupts tasks), whether or not the elector's event loop
     * is running. Default 20 ms; allowed 0 ≤ lead &lt; 1 s. Raise it if your leader tasks need longer to stop
     * their side effects.
     */
    public ElectionBuilder revocationLead(Duration lead) {
        Objects.requireNonNull(lead, "revocation-lead");
        if (lead.isNegative() || lead.compareTo(MAX_REVOCATION_LEAD) >= 0) {
            throw new IllegalArgumentException("revocation-lead = " + lead.toMillis()
                    + "ms is out of range: allowed 0ms or more and less than 1000ms");
        }
        this.revocationLead = lead;
        return this;
    }

    /**
     * {@code seed}: the seed of the elector's random source (backoffs), to reproduce a run. Default: a seed
     * drawn from {@link java.security.SecureRandom}.
     */
    public ElectionBuilder seed(long seed) {
        this.seed = OptionalLong.of(seed);
        return this;
    }

    /**
     * Checks that everything required is present and builds a dormant election; call {@link Election#start()}.
     *
     * @throws IllegalArgumentException naming what is missing or inconsistent
     */
    public Election build() {
        if (group == null) {
            throw new IllegalArgumentException("group is required: allowed " + GroupNames.ALLOWED);
        }
        if (self == null) {
            throw new IllegalArgumentException("self is required: the id of this member, one of the members");
        }
        if (members.isEmpty()) {
            throw new IllegalArgumentException(
                    "members is required: add every member, this one included, with" + " member(id, address)");
        }
        if (!members.containsKey(self)) {
            throw new IllegalArgumentException("self = " + self + " is not one of the members " + members.keySet()
                    + ": allowed one of the members (add it with member(id, address))");
        }
        if (stateStore == null) {
            throw new IllegalArgumentException("state-store is required: pass stateStore(new "
                    + FileStateStore.class.getSimpleName() + "(directory)) so that this member remembers its term"
                    + " across restarts, or, knowingly, stateStore(new " + InMemoryStateStore.class.getSimpleName()
                    + "()) — a quorum member that forgets its term after a restart can vote twice in one term");
        }
        if (transport == null) {
            throw new IllegalArgumentException("transport is required: pass the process's transport (for tests:"
                    + " new InProcessNetwork().transport(self))");
        }
        ElectorSpec spec =
                algorithm != null ? algorithm : Algorithms.all().get(0).defaults(Environment.of(group));
        return new ElectionSettings(group, self, Map.copyOf(members), spec, stateStore, transport, revocationLead, seed)
                .newElection();
    }
}
