package io.bellwether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A bad bellwether.* value stops the application, with a message naming the property and what is allowed. */
class PropertiesTest {
    @TempDir
    Path stateDir;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DataSourceAutoConfiguration.class, BellwetherAutoConfiguration.class));

    /** The refusal the context failed to start with. */
    private BellwetherConfigurationException failure(Map<String, Object> properties) {
        Throwable[] thrown = new Throwable[1];
        runner.withPropertyValues(properties.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toArray(String[]::new))
                .run(context -> {
                    assertThat(context).hasFailed();
                    thrown[0] = context.getStartupFailure();
                });
        for (Throwable t = thrown[0]; t != null; t = t.getCause()) {
            if (t instanceof BellwetherConfigurationException e) {
                return e;
            }
        }
        throw new AssertionError("not a bellwether configuration error", thrown[0]);
    }

    @Test
    void goodPropertiesStartTheContext() {
        runner.withPropertyValues("bellwether.lease.duration=2s", "bellwether.lease.renew-interval=500ms")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(io.bellwether.Election.class));
    }

    private Map<String, Object> peers(String... more) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("bellwether.peers.n1", "127.0.0.1:17001");
        properties.put("bellwether.peers.n2", "127.0.0.1:17002");
        properties.put("bellwether.node", "n1");
        properties.put("bellwether.secret", "a-test-secret-of-32-bytes-length");
        properties.put("bellwether.state-dir", stateDir.toString());
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        return properties;
    }

    @Test
    void aNegativeLeaseDurationNamesThePropertyAndItsRange() {
        BellwetherConfigurationException e = failure(Map.of("bellwether.lease.duration", "-1s"));
        assertThat(e.property()).isEqualTo("bellwether.lease.duration");
        assertThat(e.getMessage())
                .isEqualTo("bellwether.lease.duration = -1000ms is out of range: allowed 10ms to 3600000ms");
    }

    @Test
    void leaseTimingsThatContradictEachOtherNameTheProperty() {
        BellwetherConfigurationException e =
                failure(Map.of("bellwether.lease.duration", "PT3S", "bellwether.lease.renew-interval", "2s"));
        assertThat(e.getMessage())
                .startsWith("bellwether.lease.renew-interval = 2000ms is invalid: it must be below renew-deadline");
    }

    @Test
    void aPeerWithABadAddressNamesThePeer() {
        BellwetherConfigurationException e = failure(peers("bellwether.peers.n2", "127.0.0.1:99999"));
        assertThat(e.getMessage())
                .isEqualTo("bellwether.peers.n2 = '127.0.0.1:99999' is invalid: allowed host:port (IPv6 as"
                        + " [::1]:7101), port 1-65535");
    }

    @Test
    void aNodeThatIsNotAPeerIsRefused() {
        BellwetherConfigurationException e = failure(peers("bellwether.node", "n9"));
        assertThat(e.getMessage()).startsWith("bellwether.node = 'n9' is not one of bellwether.peers [n1, n2]");
    }

    @Test
    void peersWithoutAStateDirAreRefused() {
        Map<String, Object> properties = peers();
        properties.remove("bellwether.state-dir");
        assertThat(failure(properties).property()).isEqualTo("bellwether.state-dir");
    }

    @Test
    void aShortSecretIsRefusedWithoutShowingIt() {
        BellwetherConfigurationException e = failure(peers("bellwether.secret", "short"));
        assertThat(e.getMessage())
                .isEqualTo("bellwether.secret = (5 bytes, not shown) is too short: allowed at least 16 bytes")
                .doesNotContain("short\"");
    }

    @Test
    void quorumTimingsAreCheckedByTheQuorumBuilder() {
        BellwetherConfigurationException e = failure(peers("bellwether.quorum.missed-heartbeats", "1"));
        assertThat(e.getMessage())
                .isEqualTo("bellwether.quorum.missed-heartbeats = 1 is out of range: allowed 2 to 100");
    }

    @Test
    void theLeasePriorityIsBoundAndCheckedByTheLeaseBuilder() {
        BellwetherConfigurationException e = failure(Map.of("bellwether.lease.priority", "-1001"));
        assertThat(e.getMessage())
                .isEqualTo("bellwether.lease.priority = -1001 is out of range: allowed -1000 to 1000");
    }

    @Test
    void theQuorumPriorityIsBoundAndCheckedByTheQuorumBuilder() {
        BellwetherConfigurationException e = failure(peers("bellwether.quorum.priority", "1001"));
        assertThat(e.getMessage())
                .isEqualTo("bellwether.quorum.priority = 1001 is out of range: allowed -1000 to 1000");
    }

    @Test
    void anUnknownAlgorithmListsTheKnownOnes() {
        BellwetherConfigurationException e = failure(Map.of("bellwether.algorithm", "paxos"));
        assertThat(e.getMessage())
                .isEqualTo("bellwether.algorithm = 'paxos' is unknown: allowed quorum, lease, bully, ring, invitation");
    }

    @Test
    void anUnknownKeyOfAMapSectionListsTheAlgorithmsKeys() {
        BellwetherConfigurationException e =
                failure(peers("bellwether.algorithm", "bully", "bellwether.bully.hop-attempts", "2"));
        assertThat(e.getMessage()).startsWith("bellwether.bully.hop-attempts is unknown: allowed message-time,");
    }

    @Test
    void aMapSectionsValueIsCheckedByItsAlgorithm() {
        BellwetherConfigurationException e =
                failure(peers("bellwether.algorithm", "ring", "bellwether.ring.hop-attempts", "0"));
        assertThat(e.getMessage()).isEqualTo("bellwether.ring.hop-attempts = 0 is out of range: allowed 1 to 10");
    }

    @Test
    void timingsOfAnotherAlgorithmAreRefused() {
        BellwetherConfigurationException e = failure(Map.of("bellwether.quorum.heartbeat-interval", "50ms"));
        assertThat(e.getMessage())
                .isEqualTo("bellwether.quorum.heartbeat-interval is set but bellwether.algorithm is lease: allowed"
                        + " only the bellwether.lease.* timings");
    }

    @Test
    void anApplicationNameThatIsNoGroupNameAsksForTheGroup() {
        BellwetherConfigurationException e = failure(Map.of("spring.application.name", "my app"));
        assertThat(e.property()).isEqualTo("bellwether.group");
        assertThat(e.getMessage()).contains("spring.application.name = 'my app'");
    }

    @Test
    void leaseModeWithoutADataSourceOrRedisClientSaysWhatItNeeds() {
        Throwable[] thrown = new Throwable[1];
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BellwetherAutoConfiguration.class))
                .run(context -> thrown[0] = context.getStartupFailure());
        assertThat(thrown[0])
                .rootCause()
                .isInstanceOf(BellwetherConfigurationException.class)
                .hasMessageStartingWith("bellwether.lease.store = auto found no store: lease mode needs the"
                        + " application's DataSource (jdbc), or a Lettuce RedisClient");
    }

    static class BadGroupJob {
        @LeaderOnly(group = "no spaces allowed")
        public void run() {}
    }

    @Test
    void aLeaderOnlyMethodWithABadGroupFailsItsBeanNamingTheMethod() {
        runner.withBean(BadGroupJob.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageStartingWith("@LeaderOnly(group = \"no spaces allowed\") on public void ")
                    .hasMessageContaining("BadGroupJob.run() is invalid: allowed 1-64 characters");
        });
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void springBootReportsABadPropertyWithTheStartersFailureAnalysis(CapturedOutput output) {
        assertThatThrownBy(() -> TestApps.start(new TestApps.Recorder(), Map.of("bellwether.lease.duration", "-1s")))
                .hasRootCauseMessage("duration = -1000ms is out of range: allowed 10ms to 3600000ms");
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("bellwether.lease.duration = -1000ms is out of range: allowed 10ms to 3600000ms")
                .contains("Correct bellwether.lease.duration");
    }

    @Test
    void theFailureAnalysisSaysWhatToCorrect() {
        BellwetherConfigurationException e = failure(Map.of("bellwether.lease.duration", "-1s"));
        FailureAnalysis analysis = new BellwetherFailureAnalyzer().analyze(new IllegalStateException(e));
        assertThat(analysis.getDescription()).isEqualTo(e.getMessage());
        assertThat(analysis.getAction()).startsWith("Correct bellwether.lease.duration");
    }
}
