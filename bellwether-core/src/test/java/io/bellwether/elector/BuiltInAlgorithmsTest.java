package io.bellwether.elector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.bully.BullyAlgorithm;
import io.bellwether.bully.BullyConfig;
import io.bellwether.bully.BullyMessage;
import io.bellwether.invitation.GroupNumber;
import io.bellwether.invitation.InvitationAlgorithm;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.invitation.InvitationMessage;
import io.bellwether.lease.LeaseAlgorithm;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.quorum.QuorumAlgorithm;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.quorum.QuorumMessage;
import io.bellwether.ring.RingAlgorithm;
import io.bellwether.ring.RingConfig;
import io.bellwether.ring.RingMessage;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreSupport;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The five built-in descriptors: their keys are the node's configuration keys, every key reaches the built
 * configuration, bad values are refused naming the key, and each message type is classified.
 */
class BuiltInAlgorithmsTest {
    /** A store that is never called: configuration only keeps it. */
    static final LeaseStore STORE = LeaseStoreSupport.placeholder("test");

    static final Environment ENV = new Environment("g1", STORE, null);

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    /** One non-default value per key and where it shows on the built configuration. */
    record Row(Algorithm algorithm, String key, Object value, Function<ElectorSpec, Object> read) {
        @Override
        public String toString() {
            return algorithm.name() + "." + key + " = " + value;
        }
    }

    private static <C> Row row(Algorithm a, String key, Object value, Class<C> type, Function<C, Object> read) {
        return new Row(a, key, value, spec -> read.apply(type.cast(spec)));
    }

    static List<Row> rows() {
        Algorithm q = QuorumAlgorithm.INSTANCE;
        Algorithm l = LeaseAlgorithm.INSTANCE;
        Algorithm b = BullyAlgorithm.INSTANCE;
        Algorithm r = RingAlgorithm.INSTANCE;
        Algorithm i = InvitationAlgorithm.INSTANCE;
        Class<QuorumConfig> qc = QuorumConfig.class;
        Class<LeaseConfig> lc = LeaseConfig.class;
        Class<BullyConfig> bc = BullyConfig.class;
        Class<RingConfig> rc = RingConfig.class;
        Class<InvitationConfig> ic = InvitationConfig.class;
        return List.of(
                row(q, "heartbeat-interval", ms(120), qc, QuorumConfig::heartbeatInterval),
                row(q, "missed-heartbeats", 5, qc, QuorumConfig::missedHeartbeats),
                row(q, "backoff-min", ms(20), qc, QuorumConfig::backoffMin),
                row(q, "backoff-max", ms(150), qc, QuorumConfig::backoffMax),
                row(q, "scouting-timeout", ms(110), qc, QuorumConfig::scoutingTimeout),
                row(q, "proposal-timeout", ms(210), qc, QuorumConfig::proposalTimeout),
                row(q, "max-clock-drift", 0.02, qc, QuorumConfig::maxClockDrift),
                row(q, "validity-margin", ms(30), qc, QuorumConfig::validityMargin),
                row(q, "step-down-hold-down", ms(500), qc, QuorumConfig::stepDownHoldDown),
                row(q, "standby", false, qc, QuorumConfig::standby),
                row(q, "priority", 7, qc, QuorumConfig::priority),
                row(q, "priority-hold-down", ms(1500), qc, QuorumConfig::priorityHoldDown),
                row(l, "duration", ms(6000), lc, LeaseConfig::duration),
                row(l, "renew-interval", ms(900), lc, LeaseConfig::renewInterval),
                row(l, "renew-deadline", ms(1800), lc, LeaseConfig::renewDeadline),
                row(l, "retry", ms(400), lc, LeaseConfig::retry),
                row(l, "request-timeout", ms(700), lc, LeaseConfig::requestTimeout),
                row(l, "max-clock-drift", 0.02, lc, LeaseConfig::maxClockDrift),
                row(l, "validity-margin", ms(150), lc, LeaseConfig::validityMargin),
                row(l, "priority", -3, lc, LeaseConfig::priority),
                row(b, "message-time", ms(11), bc, BullyConfig::messageTime),
                row(b, "processing-time", ms(6), bc, BullyConfig::processingTime),
                row(b, "coordinator-timeout", ms(80), bc, BullyConfig::coordinatorTimeout),
                row(b, "heartbeat-interval", ms(55), bc, BullyConfig::heartbeatInterval),
                row(b, "missed-heartbeats", 4, bc, BullyConfig::missedHeartbeats),
                row(b, "preemption", false, bc, BullyConfig::preemption),
                row(b, "preemption-hold-down", ms(2000), bc, BullyConfig::preemptionHoldDown),
                row(b, "strict", true, bc, BullyConfig::strict),
                row(b, "priorities", "n1=5,n3=-2", bc, c -> c.priorities().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(","))),
                row(r, "message-time", ms(11), rc, RingConfig::messageTime),
                row(r, "processing-time", ms(6), rc, RingConfig::processingTime),
                row(r, "hop-attempts", 3, rc, RingConfig::hopAttempts),
                row(r, "heartbeat-interval", ms(55), rc, RingConfig::heartbeatInterval),
                row(r, "missed-heartbeats", 4, rc, RingConfig::missedHeartbeats),
                row(r, "preemption-hold-down", ms(2000), rc, RingConfig::preemptionHoldDown),
                row(i, "check-interval", ms(210), ic, InvitationConfig::checkInterval),
                row(i, "answer-timeout", ms(60), ic, InvitationConfig::answerTimeout),
                row(i, "merge-delay", ms(310), ic, InvitationConfig::mergeDelay),
                row(i, "are-you-there-interval", ms(110), ic, InvitationConfig::areYouThereInterval),
                row(i, "are-you-there-timeout", ms(120), ic, InvitationConfig::areYouThereTimeout),
                row(i, "invitation-timeout", ms(130), ic, InvitationConfig::invitationTimeout),
                row(i, "ready-timeout", ms(220), ic, InvitationConfig::readyTimeout),
                row(i, "lease", ms(700), ic, InvitationConfig::lease),
                row(i, "max-clock-drift", 0.02, ic, InvitationConfig::maxClockDrift),
                row(i, "validity-margin", ms(25), ic, InvitationConfig::validityMargin),
                row(i, "majority-gate", true, ic, InvitationConfig::majorityGate));
    }

    @Test
    void theKeysAreTheNodesConfigurationKeysInOrder() {
        // As ConfigLoader's sections name them; the lease section's store and credential keys are the loader's.
        assertThat(keys(QuorumAlgorithm.INSTANCE))
                .containsExactly(
                        "heartbeat-interval",
                        "missed-heartbeats",
                        "backoff-min",
                        "backoff-max",
                        "scouting-timeout",
                        "proposal-timeout",
                        "max-clock-drift",
                        "validity-margin",
                        "step-down-hold-down",
                        "standby",
                        "priority",
                        "priority-hold-down");
        assertThat(keys(LeaseAlgorithm.INSTANCE))
                .containsExactly(
                        "duration",
                        "renew-interval",
                        "renew-deadline",
                        "retry",
                        "request-timeout",
                        "max-clock-drift",
                        "validity-margin",
                        "priority");
        assertThat(keys(BullyAlgorithm.INSTANCE))
                .containsExactly(
                        "message-time",
                        "processing-time",
                        "coordinator-timeout",
                        "heartbeat-interval",
                        "missed-heartbeats",
                        "preemption",
                        "preemption-hold-down",
                        "strict",
                        "priorities",
                        "priority");
        assertThat(keys(RingAlgorithm.INSTANCE))
                .containsExactly(
                        "message-time",
                        "processing-time",
                        "hop-attempts",
                        "heartbeat-interval",
                        "missed-heartbeats",
                        "preemption-hold-down",
                        "priority");
        assertThat(keys(InvitationAlgorithm.INSTANCE))
                .containsExactly(
                        "check-interval",
                        "answer-timeout",
                        "merge-delay",
                        "are-you-there-interval",
                        "are-you-there-timeout",
                        "invitation-timeout",
                        "ready-timeout",
                        "lease",
                        "max-clock-drift",
                        "validity-margin",
                        "majority-gate",
                        "priority");
        // Every key is covered by a row below, but the priority that all algorithms except quorum and lease refuse
        // (whatever the value: PrioritiesTest).
        for (Algorithm a : builtIns()) {
            assertThat(rows().stream().filter(r -> r.algorithm() == a).map(Row::key))
                    .as(a.name())
                    .containsExactlyElementsOf(keys(a).stream()
                            .filter(k -> a == QuorumAlgorithm.INSTANCE
                                    || a == LeaseAlgorithm.INSTANCE
                                    || !k.equals("priority"))
                            .toList());
        }
    }

    private static List<String> keys(Algorithm a) {
        return a.settings().stream().map(Setting::key).toList();
    }

    private static List<Algorithm> builtIns() {
        return List.of(
                QuorumAlgorithm.INSTANCE,
                LeaseAlgorithm.INSTANCE,
                BullyAlgorithm.INSTANCE,
                RingAlgorithm.INSTANCE,
                InvitationAlgorithm.INSTANCE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everySettingReachesTheBuiltConfiguration(Row row) {
        Object before = row.read().apply(row.algorithm().defaults(ENV));
        assertThat(before).as("the test value must differ from the default").isNotEqualTo(row.value());
        ElectorSpec spec = row.algorithm().configure(Map.of(row.key(), row.value()), ENV);
        assertThat(row.read().apply(spec)).isEqualTo(row.value());
        assertThat(spec.algorithm()).isEqualTo(row.algorithm().name());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void aValueOfTheWrongKindIsRefusedNamingTheKey(Row row) {
        Object wrong = row.value() instanceof Duration ? "100ms" : Duration.ofMillis(100);
        Setting<?> setting = row.algorithm().settings().stream()
                .filter(s -> s.key().equals(row.key()))
                .findFirst()
                .orElseThrow();
        assertThatThrownBy(() -> row.algorithm().configure(Map.of(row.key(), wrong), ENV))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(row.key() + " = '" + wrong + "' is invalid: allowed " + setting.allowed());
        assertThat(setting.description()).contains("Default");
    }

    static Stream<Arguments> outOfRange() {
        return Stream.of(
                Arguments.of(QuorumAlgorithm.INSTANCE, "heartbeat-interval", ms(0)),
                Arguments.of(QuorumAlgorithm.INSTANCE, "missed-heartbeats", 1),
                Arguments.of(QuorumAlgorithm.INSTANCE, "backoff-min", Duration.ofSeconds(61)),
                Arguments.of(QuorumAlgorithm.INSTANCE, "backoff-max", Duration.ofSeconds(61)),
                Arguments.of(QuorumAlgorithm.INSTANCE, "max-clock-drift", 0.2),
                Arguments.of(QuorumAlgorithm.INSTANCE, "step-down-hold-down", Duration.ofMinutes(11)),
                Arguments.of(QuorumAlgorithm.INSTANCE, "priority", 1001),
                Arguments.of(QuorumAlgorithm.INSTANCE, "priority-hold-down", Duration.ofMinutes(11)),
                Arguments.of(BullyAlgorithm.INSTANCE, "priorities", "n1=-1001"),
                Arguments.of(LeaseAlgorithm.INSTANCE, "duration", ms(9)),
                Arguments.of(LeaseAlgorithm.INSTANCE, "priority", -1001),
                Arguments.of(LeaseAlgorithm.INSTANCE, "retry", ms(0)),
                Arguments.of(LeaseAlgorithm.INSTANCE, "max-clock-drift", -0.1),
                Arguments.of(BullyAlgorithm.INSTANCE, "message-time", ms(0)),
                Arguments.of(BullyAlgorithm.INSTANCE, "missed-heartbeats", 101),
                Arguments.of(BullyAlgorithm.INSTANCE, "coordinator-timeout", ms(10)),
                Arguments.of(RingAlgorithm.INSTANCE, "hop-attempts", 11),
                Arguments.of(RingAlgorithm.INSTANCE, "preemption-hold-down", Duration.ofMinutes(11)),
                Arguments.of(InvitationAlgorithm.INSTANCE, "lease", Duration.ofMinutes(11)),
                Arguments.of(InvitationAlgorithm.INSTANCE, "answer-timeout", ms(300)));
    }

    @ParameterizedTest(name = "{0} {1} = {2}")
    @MethodSource("outOfRange")
    void aValueOutOfRangeIsRefusedNamingTheKey(Algorithm algorithm, String key, Object value) {
        assertThatThrownBy(() -> algorithm.configure(Map.of(key, value), ENV))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(key + " = ");
    }

    @Test
    void anUnknownKeyIsRefusedListingTheAllowedOnes() {
        assertThatThrownBy(() -> RingAlgorithm.INSTANCE.configure(Map.of("strict", true), ENV))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("strict is unknown: allowed message-time, processing-time, hop-attempts,"
                        + " heartbeat-interval, missed-heartbeats, preemption-hold-down, priority");
    }

    @Test
    void backoffBoundsAreCheckedTogetherWhicheverIsGiven() {
        QuorumConfig both =
                QuorumAlgorithm.INSTANCE.configure(Map.of("backoff-min", ms(200), "backoff-max", ms(300)), ENV);
        assertThat(both.backoffMin()).isEqualTo(ms(200));
        assertThat(both.backoffMax()).isEqualTo(ms(300));
        assertThatThrownBy(() -> QuorumAlgorithm.INSTANCE.configure(Map.of("backoff-min", ms(200)), ENV))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("backoff-max = 100ms is invalid: it must be at least backoff-min");
    }

    @Test
    void theDefaultsAreTheConfigurationsDefaults() {
        assertThat(QuorumAlgorithm.INSTANCE.defaults(ENV).toString())
                .isEqualTo(QuorumConfig.defaults().toString());
        assertThat(BullyAlgorithm.INSTANCE.defaults(ENV).toString())
                .isEqualTo(BullyConfig.defaults().toString());
        assertThat(RingAlgorithm.INSTANCE.defaults(ENV).toString())
                .isEqualTo(RingConfig.defaults().toString());
        assertThat(InvitationAlgorithm.INSTANCE.defaults(ENV).toString())
                .isEqualTo(InvitationConfig.defaults().toString());
    }

    @Test
    void leaseTakesItsStoreAndHolderSuffixFromTheEnvironment() {
        LeaseConfig c = LeaseAlgorithm.INSTANCE.configure(Map.of(), new Environment("orders", STORE, "sim"));
        assertThat(c.store()).isSameAs(STORE);
        assertThat(c.holderSuffix()).isEqualTo("sim");
        assertThat(LeaseAlgorithm.INSTANCE.configure(Map.of(), ENV).holderSuffix())
                .matches("[0-9a-f]{8}");
        assertThatThrownBy(() -> LeaseAlgorithm.INSTANCE.defaults(Environment.of("orders")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease needs a store");
    }

    @Test
    void variantsCarryTheirSettingsTraitsAndChecks() {
        assertThat(QuorumAlgorithm.INSTANCE.variants())
                .containsExactly(new Variant(
                        "quorum", Map.of(), Set.of(Trait.EXCLUSIVE, Trait.PEER_MESSAGES), List.of("quorum")));
        assertThat(LeaseAlgorithm.INSTANCE.variants())
                .containsExactly(Variant.defaults("lease", Set.of(Trait.EXCLUSIVE, Trait.USES_STORE)));
        Set<Trait> classic = Set.of(Trait.SPLITS_UNDER_PARTITION, Trait.HIGHEST_ID_WINS, Trait.PEER_MESSAGES);
        assertThat(BullyAlgorithm.INSTANCE.variants())
                .containsExactly(
                        Variant.defaults("bully", classic),
                        new Variant("bully-strict", Map.of("strict", true), classic, List.of("strict-bully")));
        assertThat(RingAlgorithm.INSTANCE.variants())
                .containsExactly(new Variant("ring", Map.of(), classic, List.of("ring")));
        assertThat(InvitationAlgorithm.INSTANCE.variants())
                .containsExactly(
                        new Variant(
                                "invitation",
                                Map.of(),
                                Set.of(Trait.SPLITS_UNDER_PARTITION, Trait.PEER_MESSAGES),
                                List.of("invitation")),
                        new Variant(
                                "invitation-gated",
                                Map.of("majority-gate", true),
                                Set.of(Trait.EXCLUSIVE, Trait.PEER_MESSAGES),
                                List.of("invitation")));
        // A variant's settings configure its run.
        assertThat(BullyAlgorithm.INSTANCE
                        .configure(
                                BullyAlgorithm.INSTANCE
                                        .variant("bully-strict")
                                        .orElseThrow()
                                        .settings(),
                                ENV)
                        .strict())
                .isTrue();
        for (Algorithm a : builtIns()) {
            assertThat(a.variants().get(0).name()).isEqualTo(a.name());
            assertThat(a.variants().get(0).settings()).isEmpty();
            assertThat(a.traits()).isEqualTo(a.variants().get(0).traits());
        }
    }

    @Test
    void epochRankBitsAndTheCounterFieldOfEachAlgorithm() {
        assertThat(QuorumAlgorithm.INSTANCE.epochRankBits()).isZero();
        assertThat(LeaseAlgorithm.INSTANCE.epochRankBits()).isZero();
        assertThat(BullyAlgorithm.INSTANCE.epochRankBits()).isEqualTo(Counters.EPOCH_RANK_BITS);
        assertThat(RingAlgorithm.INSTANCE.epochRankBits()).isEqualTo(Counters.EPOCH_RANK_BITS);
        assertThat(InvitationAlgorithm.INSTANCE.epochRankBits()).isEqualTo(16);
        assertThat(BullyAlgorithm.INSTANCE.counterField(new byte[16]))
                .isEqualTo(new Algorithm.CounterField(0, Counters.EPOCH_RANK_BITS));
        assertThat(QuorumAlgorithm.INSTANCE.counterField(new byte[16])).isEqualTo(new Algorithm.CounterField(0, 0));
        // Invitation bodies start with the sender's id: a length byte, then its bytes.
        assertThat(InvitationAlgorithm.INSTANCE.counterField(new byte[] {3, 'a', 'b', 'c', 0}))
                .isEqualTo(new Algorithm.CounterField(4, 0));
    }

    static Stream<Arguments> keepAlives() {
        return Stream.of(
                Arguments.of(
                        QuorumAlgorithm.INSTANCE,
                        QuorumMessage.class,
                        Set.of(
                                "Heartbeat",
                                "HeartbeatResponse",
                                "StandbyRequest",
                                "StandbyRound",
                                "StandbyConfirm",
                                "StandbyReady")),
                Arguments.of(BullyAlgorithm.INSTANCE, BullyMessage.class, Set.of("Heartbeat", "HeartbeatAck")),
                Arguments.of(RingAlgorithm.INSTANCE, RingMessage.class, Set.of("Heartbeat", "HeartbeatAck")),
                Arguments.of(
                        InvitationAlgorithm.INSTANCE,
                        InvitationMessage.class,
                        Set.of("AreYouThere", "AreYouThereAnswer", "AreYouCoordinator", "AreYouCoordinatorAnswer")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keepAlives")
    void everyMessageTypeIsClassified(Algorithm algorithm, Class<? extends ElectorMessage> family, Set<String> keep) {
        List<String> types = ElectorMessage.typesOf(family);
        assertThat(types).containsAll(keep);
        Map<String, Boolean> classified = new HashMap<>();
        for (Class<?> type : family.getPermittedSubclasses()) {
            classified.put(type.getSimpleName(), algorithm.isKeepAlive(sample(type)));
        }
        assertThat(classified).hasSize(types.size());
        classified.forEach((type, keepAlive) -> assertThat(keepAlive).as(type).isEqualTo(keep.contains(type)));
    }

    @Test
    void leaseHasNoKeepAlivesAndNoOtherFamilysMessageIsOne() {
        ElectorMessage bullyHeartbeat = new BullyMessage.Heartbeat(1, 1);
        assertThat(LeaseAlgorithm.INSTANCE.isKeepAlive(bullyHeartbeat)).isFalse();
        assertThat(QuorumAlgorithm.INSTANCE.isKeepAlive(bullyHeartbeat)).isFalse();
        assertThat(RingAlgorithm.INSTANCE.isKeepAlive(bullyHeartbeat)).isFalse();
    }

    /** An instance of a message record, with plain values for its components. */
    private static ElectorMessage sample(Class<?> type) {
        NodeId a = NodeId.of("a");
        Map<Class<?>, Object> values = Map.of(
                long.class,
                1L,
                int.class,
                0,
                boolean.class,
                false,
                NodeId.class,
                a,
                GroupNumber.class,
                new GroupNumber(1, a),
                Optional.class,
                Optional.empty(),
                List.class,
                new ArrayList<>(List.of(a)),
                RingMessage.ElectionId.class,
                new RingMessage.ElectionId(a, 1));
        RecordComponent[] components = type.getRecordComponents();
        Class<?>[] types = Stream.of(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
        Object[] args = Stream.of(types).map(t -> values.get(t)).toArray();
        try {
            return (ElectorMessage) type.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot build a " + type.getName(), e);
        }
    }
}
