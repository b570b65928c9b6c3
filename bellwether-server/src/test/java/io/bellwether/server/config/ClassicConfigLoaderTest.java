package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bellwether.bully.BullyConfig;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.ring.RingConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code bully:}, {@code ring:} and {@code invitation:} sections and the algorithms they belong to. */
class ClassicConfigLoaderTest {
    @TempDir
    Path dir;

    @BeforeEach
    void writeSecret() throws IOException {
        Files.writeString(dir.resolve("secret"), "0123456789abcdef0123\n", StandardCharsets.UTF_8);
    }

    private static String withAlgorithm(String algorithm) {
        return ConfigLoaderTest.VALID.replace("algorithm: quorum", "algorithm: " + algorithm);
    }

    private NodeConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, dir, "test.yaml");
    }

    private List<String> errorsOf(String yaml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(yaml));
        assertThat(e).as("expected a configuration error").isNotNull();
        return e.errors();
    }

    @Test
    void bullyWithoutASectionRunsTheBullyDefaultsOverTcp() throws Exception {
        NodeConfig c = parse(withAlgorithm("bully"));

        assertThat(c.algorithm()).isEqualTo("bully");
        assertThat(c.elector()).isInstanceOf(BullyConfig.class);
        assertThat(c.elector().toString()).isEqualTo(BullyConfig.defaults().toString());
        assertThat(c.lease()).isEmpty();
    }

    @Test
    void ringWithoutASectionRunsTheRingDefaults() throws Exception {
        NodeConfig c = parse(withAlgorithm("ring"));

        assertThat(c.elector()).isInstanceOf(RingConfig.class);
        assertThat(c.elector().toString()).isEqualTo(RingConfig.defaults().toString());
    }

    @Test
    void invitationWithoutASectionRunsTheInvitationDefaults() throws Exception {
        NodeConfig c = parse(withAlgorithm("invitation"));

        assertThat(c.elector()).isInstanceOf(InvitationConfig.class);
        assertThat(c.elector().toString()).isEqualTo(InvitationConfig.defaults().toString());
    }

    @Test
    void quorumRunsTheQuorumSection() throws Exception {
        NodeConfig c = parse(ConfigLoaderTest.VALID);

        assertThat(c.elector()).isSameAs(c.quorum());
    }

    @Test
    void bullySectionMapsEveryKey() throws Exception {
        NodeConfig c = parse(
                withAlgorithm("bully")
                        + """
                bully:
                  message-time: 20ms
                  processing-time: 10ms
                  coordinator-timeout: 200ms
                  heartbeat-interval: 100ms
                  missed-heartbeats: 4
                  preemption: false
                  preemption-hold-down: 3s
                  strict: true
                """);

        BullyConfig b = (BullyConfig) c.elector();
        assertThat(b.messageTime()).isEqualTo(Duration.ofMillis(20));
        assertThat(b.processingTime()).isEqualTo(Duration.ofMillis(10));
        assertThat(b.coordinatorTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(b.heartbeatInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(b.missedHeartbeats()).isEqualTo(4);
        assertThat(b.preemption()).isFalse();
        assertThat(b.preemptionHoldDown()).isEqualTo(Duration.ofSeconds(3));
        assertThat(b.strict()).isTrue();
    }

    @Test
    void bullyIsSimpleUnlessStrictIsTrue() throws Exception {
        assertThat(((BullyConfig) parse(withAlgorithm("bully")).elector()).strict())
                .isFalse();
        assertThat(((BullyConfig) parse(withAlgorithm("bully") + "bully: {strict: false}\n")
                                .elector())
                        .strict())
                .isFalse();
        assertThat(errorsOf(withAlgorithm("bully") + "bully: {strict: yes-please}\n"))
                .anySatisfy(
                        e -> assertThat(e).contains("bully.strict = 'yes-please' is invalid: allowed true or false"));
    }

    @Test
    void ringSectionMapsEveryKey() throws Exception {
        NodeConfig c = parse(
                withAlgorithm("ring")
                        + """
                ring:
                  message-time: 20ms
                  processing-time: 10ms
                  hop-attempts: 3
                  heartbeat-interval: 100ms
                  missed-heartbeats: 5
                  preemption-hold-down: 2s
                """);

        RingConfig r = (RingConfig) c.elector();
        assertThat(r.messageTime()).isEqualTo(Duration.ofMillis(20));
        assertThat(r.processingTime()).isEqualTo(Duration.ofMillis(10));
        assertThat(r.hopAttempts()).isEqualTo(3);
        assertThat(r.heartbeatInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(r.missedHeartbeats()).isEqualTo(5);
        assertThat(r.preemptionHoldDown()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void invitationSectionMapsEveryKey() throws Exception {
        NodeConfig c = parse(
                withAlgorithm("invitation")
                        + """
                invitation:
                  check-interval: 300ms
                  answer-timeout: 60ms
                  merge-delay: 400ms
                  are-you-there-interval: 150ms
                  are-you-there-timeout: 120ms
                  invitation-timeout: 110ms
                  ready-timeout: 250ms
                  lease: 1s
                  max-clock-drift: 0.02
                  validity-margin: 30ms
                  majority-gate: true
                """);

        InvitationConfig i = (InvitationConfig) c.elector();
        assertThat(i.checkInterval()).isEqualTo(Duration.ofMillis(300));
        assertThat(i.answerTimeout()).isEqualTo(Duration.ofMillis(60));
        assertThat(i.mergeDelay()).isEqualTo(Duration.ofMillis(400));
        assertThat(i.areYouThereInterval()).isEqualTo(Duration.ofMillis(150));
        assertThat(i.areYouThereTimeout()).isEqualTo(Duration.ofMillis(120));
        assertThat(i.invitationTimeout()).isEqualTo(Duration.ofMillis(110));
        assertThat(i.readyTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(i.lease()).isEqualTo(Duration.ofSeconds(1));
        assertThat(i.maxClockDrift()).isEqualTo(0.02);
        assertThat(i.validityMargin()).isEqualTo(Duration.ofMillis(30));
        assertThat(i.majorityGate()).isTrue();
    }

    @Test
    void badBullyValueNamesKeyValueAndAllowedRange() {
        assertThat(errorsOf(withAlgorithm("bully") + "bully: {message-time: 2m}\n"))
                .anySatisfy(e -> assertThat(e)
                        .contains("bully.message-time = 120000ms is out of range")
                        .contains("allowed 1ms to 60000ms"));
    }

    @Test
    void bullyRelationBetweenValuesIsCheckedByTheBuilder() {
        assertThat(errorsOf(withAlgorithm("bully") + "bully: {coordinator-timeout: 10ms}\n"))
                .anySatisfy(e -> assertThat(e).contains("bully.coordinator-timeout = 10ms is too small"));
    }

    @Test
    void badRingValueNamesKeyValueAndAllowedRange() {
        assertThat(errorsOf(withAlgorithm("ring") + "ring: {hop-attempts: 0}\n"))
                .anySatisfy(e -> assertThat(e).contains("ring.hop-attempts = 0 is out of range: allowed 1 to 10"));
        assertThat(errorsOf(withAlgorithm("ring") + "ring: {hop-attempts: two}\n"))
                .anySatisfy(e -> assertThat(e)
                        .contains("ring.hop-attempts = 'two' is invalid: allowed a whole number from 1 to 10"));
    }

    @Test
    void badInvitationValueNamesKeyValueAndAllowed() {
        assertThat(errorsOf(withAlgorithm("invitation") + "invitation: {majority-gate: maybe, merge-delay: soon}\n"))
                .anySatisfy(e ->
                        assertThat(e).contains("invitation.majority-gate = 'maybe' is invalid: allowed true or false"))
                .anySatisfy(e -> assertThat(e).contains("invitation.merge-delay = 'soon' is not a duration"));
    }

    @Test
    void unknownKeyInASectionIsNamedWithASuggestion() {
        assertThat(errorsOf(withAlgorithm("ring") + "ring: {hop-atempts: 3}\n")).anySatisfy(e -> assertThat(e)
                .contains("unknown key 'ring.hop-atempts'")
                .contains("did you mean 'ring.hop-attempts'?"));
    }

    @Test
    void sectionOfAnotherAlgorithmIsRefused() {
        assertThat(errorsOf(withAlgorithm("bully") + "ring: {hop-attempts: 3}\n"))
                .anySatisfy(e -> assertThat(e)
                        .contains("ring is given but algorithm = 'bully'")
                        .contains("allowed only with algorithm: ring"));
        assertThat(errorsOf(ConfigLoaderTest.VALID + "invitation: {majority-gate: true}\n"))
                .anySatisfy(e -> assertThat(e).contains("invitation is given but algorithm = 'quorum'"));
        assertThat(errorsOf(withAlgorithm("invitation") + "quorum: {missed-heartbeats: 4}\n"))
                .anySatisfy(e -> assertThat(e).contains("quorum is given but algorithm = 'invitation'"));
    }

    @Test
    void sectionThatIsNotAMappingIsRefused() {
        assertThat(errorsOf(withAlgorithm("bully") + "bully: fast\n")).anySatisfy(e -> assertThat(e)
                .contains("bully = 'fast' is invalid: allowed a mapping of the keys message-time"));
    }

    @Test
    void prioritiesAreTakenByQuorumAndBullyAndRefusedWithTheReasonByTheOthers() throws Exception {
        NodeConfig quorum = parse(withAlgorithm("quorum") + "quorum: {priority: 5, priority-hold-down: 2s}\n");
        assertThat(((io.bellwether.quorum.QuorumConfig) quorum.elector()).priority())
                .isEqualTo(5);
        assertThat(errorsOf(withAlgorithm("quorum") + "quorum: {priority: 1001}\n"))
                .anySatisfy(
                        e -> assertThat(e).contains("quorum.priority = 1001 is out of range: allowed -1000 to 1000"));

        NodeConfig bully = parse(withAlgorithm("bully") + "bully: {priorities: \"n1=5, n3=2\"}\n");
        assertThat(((BullyConfig) bully.elector()).priorities())
                .containsExactly(
                        java.util.Map.entry(io.bellwether.NodeId.of("n1"), 5),
                        java.util.Map.entry(io.bellwether.NodeId.of("n3"), 2));
        assertThat(errorsOf(withAlgorithm("bully") + "bully: {priority: 5}\n"))
                .anySatisfy(e -> assertThat(e).contains("priority = 5 is not supported by the bully algorithm"));

        for (String algorithm : List.of("ring", "invitation")) {
            assertThat(errorsOf(withAlgorithm(algorithm) + algorithm + ": {priority: 1}\n"))
                    .anySatisfy(e -> assertThat(e)
                            .contains(algorithm + ".priority")
                            .contains("is not supported by the " + algorithm + " algorithm"));
        }
    }
}
