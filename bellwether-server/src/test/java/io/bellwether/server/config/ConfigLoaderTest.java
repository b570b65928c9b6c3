package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.Algorithms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    static final String VALID =
            """
            cluster: demo
            node: n1
            algorithm: quorum
            listen: 127.0.0.1:7101
            http: 127.0.0.1:8101
            peers:
              n1: 127.0.0.1:7101
              n2: 127.0.0.1:7102
              n3: {address: 127.0.0.1:7103, http: 127.0.0.1:9103}
            secret-file: ./secret
            state-dir: ./data/n1
            """;

    @BeforeEach
    void writeSecret() throws IOException {
        Files.writeString(dir.resolve("secret"), "0123456789abcdef0123\n", StandardCharsets.UTF_8);
    }

    NodeConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, dir, "test.yaml");
    }

    List<String> errorsOf(String yaml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(yaml));
        assertThat(e).as("expected a configuration error").isNotNull();
        return e.errors();
    }

    @Test
    void theIssueExampleParsesWithDefaultsFilledIn() throws Exception {
        NodeConfig c = parse(VALID);

        assertThat(c.cluster()).isEqualTo("demo");
        assertThat(c.node()).isEqualTo(NodeId.of("n1"));
        assertThat(c.algorithm()).isEqualTo("quorum");
        assertThat(c.group()).isEqualTo("default");
        assertThat(c.listen()).isEqualTo(NodeAddress.parse("127.0.0.1:7101"));
        assertThat(c.http()).isEqualTo(NodeAddress.parse("127.0.0.1:8101"));
        assertThat(c.peers()).containsOnlyKeys(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        assertThat(c.stateDir()).isEqualTo(dir.resolve("data/n1"));
        assertThat(c.insecure()).isFalse();
        assertThat(new String(c.secret().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("0123456789abcdef0123");
        assertThat(c.maxFrameBytes()).isEqualTo(64 * 1024);
        assertThat(c.quorum().heartbeatInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.tls()).isEmpty();
    }

    @Test
    void peerHttpAddressDefaultsToThePeerPortPlusOneThousandUnlessGiven() throws Exception {
        NodeConfig c = parse(VALID);

        assertThat(c.httpAddresses())
                .containsEntry(NodeId.of("n2"), NodeAddress.parse("127.0.0.1:8102"))
                .containsEntry(NodeId.of("n3"), NodeAddress.parse("127.0.0.1:9103"));
    }

    @Test
    void ownHttpDefaultsToTheListenPortPlusOneThousand() throws Exception {
        NodeConfig c = parse(VALID.replace("http: 127.0.0.1:8101\n", ""));

        assertThat(c.http()).isEqualTo(NodeAddress.parse("127.0.0.1:8101"));
    }

    @Test
    void quorumSectionAcceptsEveryKeyWithDurations() throws Exception {
        NodeConfig c = parse(
                VALID
                        + """
                group: billing
                max-frame-bytes: 131072
                quorum:
                  heartbeat-interval: 50ms
                  missed-heartbeats: 6
                  backoff-min: 5ms
                  backoff-max: 1s
                  scouting-timeout: 150ms
                  proposal-timeout: 300ms
                  max-clock-drift: 0.02
                  validity-margin: 30ms
                  step-down-hold-down: 2s
                  standby: false
                """);

        assertThat(c.group()).isEqualTo("billing");
        assertThat(c.maxFrameBytes()).isEqualTo(131072);
        assertThat(c.quorum().heartbeatInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(c.quorum().missedHeartbeats()).isEqualTo(6);
        assertThat(c.quorum().backoffMin()).isEqualTo(Duration.ofMillis(5));
        assertThat(c.quorum().backoffMax()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.quorum().scoutingTimeout()).isEqualTo(Duration.ofMillis(150));
        assertThat(c.quorum().proposalTimeout()).isEqualTo(Duration.ofMillis(300));
        assertThat(c.quorum().maxClockDrift()).isEqualTo(0.02);
        assertThat(c.quorum().validityMargin()).isEqualTo(Duration.ofMillis(30));
        assertThat(c.quorum().stepDownHoldDown()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.quorum().standby()).isFalse();
        assertThat(parse(VALID).quorum().standby()).as("the default").isTrue();
    }

    @Test
    void inlineSecretAndInsecureAreAccepted() throws Exception {
        NodeConfig withSecret = parse(VALID.replace("secret-file: ./secret", "secret: a-long-enough-secret"));
        NodeConfig insecure = parse(VALID.replace("secret-file: ./secret", "insecure: true"));

        assertThat(withSecret.secret()).isPresent();
        assertThat(insecure.insecure()).isTrue();
        assertThat(insecure.secret()).isEmpty();
    }

    @Test
    void tlsFilesAreResolvedAgainstTheConfigDirectory() throws Exception {
        for (String f : List.of("node.pem", "node.key", "ca.pem")) {
            Files.writeString(dir.resolve(f), "x");
        }
        NodeConfig c = parse(VALID + "tls: {certificate: node.pem, private-key: node.key, trusted: ca.pem}\n");

        assertThat(c.tls().orElseThrow().certificate()).isEqualTo(dir.resolve("node.pem"));
        assertThat(c.tls().orElseThrow().trusted()).contains(dir.resolve("ca.pem"));
        assertThat(c.tls().orElseThrow().verifyHostname()).isTrue();
        assertThat(c.tls().orElseThrow().serverName()).isEmpty();
    }

    @Test
    void hostnameVerificationCanBeTurnedOffAndItsNameGiven() throws Exception {
        for (String f : List.of("node.pem", "node.key")) {
            Files.writeString(dir.resolve(f), "x");
        }
        NodeConfig c = parse(VALID + "tls: {certificate: node.pem, private-key: node.key, verify-hostname: false,"
                + " server-name: peers.bellwether.internal}\n");

        assertThat(c.tls().orElseThrow().verifyHostname()).isFalse();
        assertThat(c.tls().orElseThrow().serverName()).contains("peers.bellwether.internal");
    }

    @Test
    void badHostnameVerificationSettingsAreNamed() throws Exception {
        for (String f : List.of("node.pem", "node.key")) {
            Files.writeString(dir.resolve(f), "x");
        }
        String tls = "tls: {certificate: node.pem, private-key: node.key, ";

        assertThat(errorsOf(VALID + tls + "verify-hostname: maybe}\n"))
                .anySatisfy(e ->
                        assertThat(e).contains("tls.verify-hostname = 'maybe'").contains("true or false"));
        assertThat(errorsOf(VALID + tls + "server-name: 'not a host'}\n"))
                .anySatisfy(e ->
                        assertThat(e).contains("tls.server-name = 'not a host'").contains("host name"));
        assertThat(errorsOf(VALID + tls + "server-name: '*.nodes.example'}\n"))
                .anySatisfy(e -> assertThat(e).contains("tls.server-name = '*.nodes.example'"));
        assertThat(errorsOf(VALID + tls + "verify-hostnames: true}\n"))
                .anySatisfy(e -> assertThat(e).contains("tls.verify-hostnames").contains("verify-hostname"));
    }

    @Test
    void unknownKeyIsNamedWithASuggestion() {
        assertThat(errorsOf(VALID + "hearbeat: 1s\n"))
                .anySatisfy(
                        e -> assertThat(e).contains("unknown key 'hearbeat'").contains("allowed cluster, node"));
        assertThat(errorsOf(VALID + "clustr: x\n"))
                .anySatisfy(e -> assertThat(e).contains("did you mean 'cluster'"));
        assertThat(errorsOf(VALID + "quorum: {heartbeat-intreval: 1s}\n"))
                .anySatisfy(e -> assertThat(e).contains("did you mean 'quorum.heartbeat-interval'"));
    }

    @Test
    void electionTimeoutKeyPointsAtHowItIsDerived() {
        assertThat(errorsOf(VALID + "quorum: {election-timeout: 1s}\n"))
                .anySatisfy(e -> assertThat(e).contains("heartbeat-interval × missed-heartbeats"));
    }

    @Test
    void missingKeysAreEachNamed() {
        List<String> errors = errorsOf("peers: {n1: 127.0.0.1:7101}\n");

        assertThat(errors)
                .anySatisfy(e -> assertThat(e).startsWith("cluster is missing"))
                .anySatisfy(e -> assertThat(e).startsWith("node is missing"))
                .anySatisfy(e -> assertThat(e).startsWith("listen is missing"))
                .anySatisfy(e -> assertThat(e).startsWith("secret-file is missing"))
                .anySatisfy(e -> assertThat(e).startsWith("state-dir is missing"));
    }

    @Test
    void badAddressNamesKeyValueAndForm() {
        assertThat(errorsOf(VALID.replace("n2: 127.0.0.1:7102", "n2: 127.0.0.1:99999")))
                .anySatisfy(e ->
                        assertThat(e).contains("peers.n2 = '127.0.0.1:99999'").contains("host:port"));
        assertThat(errorsOf(VALID.replace("listen: 127.0.0.1:7101", "listen: localhost")))
                .anySatisfy(e -> assertThat(e).contains("listen = 'localhost' is not an address"));
    }

    @Test
    void duplicateIdsAreRefused() {
        assertThat(errorsOf(VALID.replace("  n2: 127.0.0.1:7102", "  n2: 127.0.0.1:7102\n  n2: 127.0.0.1:7104")))
                .anySatisfy(e -> assertThat(e).contains("duplicate key 'n2'").contains("each peer id once"));
    }

    @Test
    void duplicateAddressesAreRefused() {
        assertThat(errorsOf(VALID.replace("n2: 127.0.0.1:7102", "n2: 127.0.0.1:7101")))
                .anySatisfy(e -> assertThat(e)
                        .contains("peers.n2 = '127.0.0.1:7101' duplicates the address of peers.n1")
                        .contains("allowed a distinct host:port"));
    }

    @Test
    void nodeMustBeAmongThePeers() {
        assertThat(errorsOf(VALID.replace("node: n1", "node: n9")))
                .anySatisfy(e -> assertThat(e).contains("node = 'n9' is not one of the peers [n1, n2, n3]"));
    }

    @Test
    void listenMustMatchThisNodesPeerAddress() {
        assertThat(errorsOf(VALID.replace("listen: 127.0.0.1:7101", "listen: 127.0.0.1:7201")))
                .anySatisfy(e -> assertThat(e)
                        .contains("listen = '127.0.0.1:7201' differs")
                        .contains("peers.n1 = '127.0.0.1:7101'"));
    }

    @Test
    void wildcardListenWithTheSamePortIsAccepted() throws Exception {
        assertThat(parse(VALID.replace("listen: 127.0.0.1:7101", "listen: 0.0.0.0:7101"))
                        .listen()
                        .host())
                .isEqualTo("0.0.0.0");
    }

    @Test
    void shortSecretIsRefusedWithoutShowingIt() {
        assertThat(errorsOf(VALID.replace("secret-file: ./secret", "secret: tooshort")))
                .anySatisfy(e -> assertThat(e)
                        .contains("secret = (8 bytes, not shown) is too short")
                        .contains("at least 16 bytes")
                        .doesNotContain("tooshort"));
    }

    @Test
    void shortOrUnreadableSecretFileIsRefused() throws IOException {
        Files.writeString(dir.resolve("short"), "abc\n");

        assertThat(errorsOf(VALID.replace("./secret", "./short")))
                .anySatisfy(e -> assertThat(e).contains("secret-file = './short' holds 3 bytes"));
        assertThat(errorsOf(VALID.replace("./secret", "./absent"))).anySatisfy(e -> assertThat(e)
                .contains("secret-file = './absent' cannot be read")
                .contains("readable file"));
    }

    @Test
    void secretAndInsecureTogetherAreRefused() {
        assertThat(errorsOf(VALID + "insecure: true\n"))
                .anySatisfy(e -> assertThat(e).contains("insecure = true contradicts secret-file"));
    }

    @Test
    void heartbeatNotBelowElectionTimeoutIsRefused() {
        assertThat(errorsOf(VALID + "quorum: {missed-heartbeats: 1}\n")).anySatisfy(e -> assertThat(e)
                .contains("quorum.missed-heartbeats = 1 is out of range: allowed 2 to 100")
                .contains("must exceed the heartbeat interval"));
    }

    @Test
    void badDurationsNameKeyValueAndForm() {
        List<String> errors = errorsOf(VALID + "quorum: {heartbeat-interval: 100, backoff-max: 2 weeks}\n");

        assertThat(errors)
                .anySatisfy(e -> assertThat(e)
                        .contains("quorum.heartbeat-interval = '100' is not a duration")
                        .contains("ms, s, m or h"))
                .anySatisfy(e -> assertThat(e).contains("quorum.backoff-max = '2 weeks' is not a duration"));
    }

    @Test
    void aStandbyThatIsNotABooleanIsRefused() {
        assertThat(errorsOf(VALID + "quorum: {standby: sometimes}\n")).anySatisfy(e -> assertThat(e)
                .contains("quorum.standby = 'sometimes' is invalid: allowed true or false"));
    }

    @Test
    void outOfRangeQuorumValuesAreNamed() {
        assertThat(errorsOf(VALID + "quorum: {heartbeat-interval: 2m, max-clock-drift: 0.5}\n"))
                .anySatisfy(e -> assertThat(e).contains("quorum.heartbeat-interval = 120000ms is out of range"))
                .anySatisfy(e -> assertThat(e).contains("quorum.max-clock-drift = 0.5 is out of range"));
    }

    @Test
    void unknownAlgorithmIsNamedWithEveryAvailableOne() {
        assertThat(errorsOf(VALID.replace("algorithm: quorum", "algorithm: paxos")))
                .anySatisfy(e -> assertThat(e)
                        .contains("algorithm = 'paxos' is unknown")
                        .contains("allowed quorum, bully, ring, invitation, lease"));
        assertThat(errorsOf(VALID.replace("algorithm: quorum", "algorithm: bulyl")))
                .anySatisfy(e -> assertThat(e).contains("did you mean 'bully'?"));
    }

    static final String DNS =
            """
            cluster: demo
            node: n2
            listen: 0.0.0.0:7101
            http: 0.0.0.0:8101
            peers-dns: bellwether.demo.svc.cluster.local:7101
            members: [n1, n2, n3]
            secret-file: ./secret
            state-dir: ./data
            """;

    @Test
    void peersDnsTakesTheMemberIdsAndResolvesEveryFiveSecondsByDefault() throws Exception {
        NodeConfig c = parse(DNS);

        NodeConfig.PeersDns dns = c.peersDns().orElseThrow();
        assertThat(dns.name()).isEqualTo(NodeAddress.parse("bellwether.demo.svc.cluster.local:7101"));
        assertThat(dns.members()).containsExactly(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        assertThat(dns.interval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.members()).containsExactly(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        assertThat(c.peers()).isEmpty();
        assertThat(c.httpAddresses()).containsOnlyKeys(NodeId.of("n2"));
        assertThat(c.memberAddresses()).containsOnlyKeys(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
    }

    @Test
    void peersDnsIntervalIsReadAndKeptWithinOneSecondToTenMinutes() throws Exception {
        assertThat(parse(DNS + "peers-dns-interval: 30s\n")
                        .peersDns()
                        .orElseThrow()
                        .interval())
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(parse(DNS + "peers-dns-interval: 1s\n")
                        .peersDns()
                        .orElseThrow()
                        .interval())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(errorsOf(DNS + "peers-dns-interval: 500ms\n"))
                .containsExactly("peers-dns-interval = '500ms' is out of range: allowed 1s to 10m");
        assertThat(errorsOf(DNS + "peers-dns-interval: 11m\n"))
                .containsExactly("peers-dns-interval = '11m' is out of range: allowed 1s to 10m");
        assertThat(errorsOf(DNS + "peers-dns-interval: 5\n"))
                .singleElement()
                .asString()
                .contains("peers-dns-interval = '5' is not a duration");
    }

    @Test
    void handoverLingerDefaultsTo200msAndIsKeptWithinZeroToTenSeconds() throws Exception {
        assertThat(parse(VALID).handoverLinger()).isEqualTo(Duration.ofMillis(200));
        assertThat(parse(VALID + "handover-linger: 0ms\n").handoverLinger()).isEqualTo(Duration.ZERO);
        assertThat(parse(VALID + "handover-linger: 10s\n").handoverLinger()).isEqualTo(Duration.ofSeconds(10));
        assertThat(errorsOf(VALID + "handover-linger: 11s\n"))
                .containsExactly("handover-linger = '11s' is out of range: allowed 0ms to 10s");
        assertThat(errorsOf(VALID + "handover-linger: soon\n"))
                .singleElement()
                .asString()
                .contains("handover-linger = 'soon' is not a duration");
        assertThat(errorsOf(VALID + "handover-linger: [1s]\n"))
                .singleElement()
                .asString()
                .contains("handover-linger")
                .contains("a duration from 0ms to 10s");
    }

    @Test
    void peersDnsNeedsMembersThatIncludeThisNodeOnceEach() {
        assertThat(errorsOf(DNS.replace("members: [n1, n2, n3]\n", "")))
                .singleElement()
                .asString()
                .startsWith("members is missing: with peers-dns, allowed the list of every member's id");
        assertThat(errorsOf(DNS.replace("members: [n1, n2, n3]", "members: [n1, n3]")))
                .containsExactly("node = 'n2' is not one of the members [n1, n3]: allowed one of them (this node"
                        + " must be listed too)");
        assertThat(errorsOf(DNS.replace("members: [n1, n2, n3]", "members: [n1, n2, n1]")))
                .containsExactly("members[2] = 'n1' repeats members[0]: allowed each id once");
        assertThat(errorsOf(DNS.replace("members: [n1, n2, n3]", "members: [n1, 'n 2', n3]")))
                .singleElement()
                .asString()
                .startsWith("members[1] = 'n 2' is invalid: allowed a member id");
        assertThat(errorsOf(DNS.replace("members: [n1, n2, n3]", "members: n1")))
                .containsExactly("members = 'n1' is invalid: allowed a non-empty list of member ids, e.g. members:"
                        + " [n1, n2, n3]");
        assertThat(errorsOf(DNS.replace("members: [n1, n2, n3]", "members: []")))
                .singleElement()
                .asString()
                .startsWith("members = '[]' is invalid");
    }

    @Test
    void peersAndPeersDnsExcludeEachOther() {
        assertThat(errorsOf(DNS + "peers: {n1: 127.0.0.1:7101}\n"))
                .anySatisfy(e -> assertThat(e).startsWith("peers and peers-dns are both given: allowed one of them"));
        assertThat(errorsOf(VALID + "members: [n1, n2, n3]\npeers-dns-interval: 5s\n"))
                .containsExactly(
                        "members is given without peers-dns: allowed only with peers-dns (with peers, the member ids"
                                + " are the keys under peers and their addresses are fixed)",
                        "peers-dns-interval is given without peers-dns: allowed only with peers-dns (with peers, the"
                                + " member ids are the keys under peers and their addresses are fixed)");
    }

    @Test
    void peersDnsMustBeANameAndThePortThisNodeListensOn() {
        assertThat(errorsOf(DNS.replace("bellwether.demo.svc.cluster.local:7101", "bellwether.demo")))
                .containsExactly("peers-dns = 'bellwether.demo' is not a name:port: allowed a DNS name (or an"
                        + " address) and a port from 1 to 65535, e.g. bellwether.default.svc.cluster.local:7101");
        assertThat(errorsOf(DNS.replace("listen: 0.0.0.0:7101", "listen: 0.0.0.0:7102")))
                .containsExactly("listen = '0.0.0.0:7102' has another port than peers-dns ="
                        + " 'bellwether.demo.svc.cluster.local:7101': allowed port 7101 (the members dial every"
                        + " address peers-dns resolves to at its port, so every member listens on it)");
    }

    @Test
    void peersDnsIsRefusedWithTheLeaseAlgorithm() {
        List<String> errors = errorsOf(DNS + "algorithm: lease\nlease: {store: 'jdbc:h2:mem:x'}\n");

        assertThat(errors).anySatisfy(e -> assertThat(e)
                .startsWith("peers-dns = 'bellwether.demo.svc.cluster.local:7101' is given with algorithm" + " lease"));
    }

    @Test
    void aMissingPeersListSaysBothWaysOfGivingIt() {
        assertThat(errorsOf(VALID.replaceAll("(?s)peers:.*n3: \\{[^}]*}\n", "")))
                .anySatisfy(e -> assertThat(e).startsWith("peers is missing").contains("or peers-dns: name:port"));
    }

    @Test
    void everyErrorIsReportedAtOnce() {
        List<String> errors = errorsOf(VALID.replace("cluster: demo", "cluster: 'bad name!'")
                .replace("node: n1", "node: n9")
                .replace("secret-file: ./secret", "secret: short"));

        assertThat(errors).hasSizeGreaterThanOrEqualTo(3);
    }

    @Test
    void malformedYamlNamesTheLine() {
        assertThat(errorsOf("cluster: demo\nnode: [n1\n"))
                .singleElement()
                .asString()
                .contains("line");
    }

    @Test
    void readsAFileAndResolvesPathsAgainstItsDirectory() throws Exception {
        Path file = dir.resolve("n1.yaml");
        Files.writeString(file, VALID);

        NodeConfig c = ConfigLoader.load(file);

        assertThat(c.stateDir()).isEqualTo(dir.resolve("data/n1"));
    }

    @Test
    void durationsRoundTrip() {
        assertThat(Durations.parse("k", "100ms")).isEqualTo(Duration.ofMillis(100));
        assertThat(Durations.parse("k", "2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("k", "1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.format(Duration.ofMillis(2000))).isEqualTo("2s");
    }

    // ------------------------------------------------------------------ algorithm sections, read through the registry

    private static String withAlgorithmSection(String algorithm, String section) {
        return ConfigLoaderTest.VALID.replace("algorithm: quorum", "algorithm: " + algorithm) + section + "\n";
    }

    @Test
    void everyValueRefusedOnItsOwnIsReportedInKeyOrder() {
        assertThat(errorsOf(withAlgorithmSection(
                        "quorum", "quorum: {scouting-timeout: 0ms, missed-heartbeats: many, heartbeat-interval: 0ms}")))
                .containsExactly(
                        "quorum.heartbeat-interval = 0ms is out of range: allowed 1ms to 60000ms",
                        "quorum.missed-heartbeats = 'many' is invalid: allowed a whole number from 2 to 100",
                        "quorum.scouting-timeout = 0ms is out of range: allowed 1ms to 60000ms");
    }

    @Test
    void aRelationBetweenValuesIsReportedWhenItIsTheSectionsOnlyProblem() {
        assertThat(errorsOf(withAlgorithmSection(
                        "invitation", "invitation: {check-interval: 100ms, answer-timeout: 200ms}")))
                .containsExactly(
                        "invitation.answer-timeout = 200ms is invalid: it must be below check-interval" + " (100ms)");
    }

    @Test
    void aRelationIsNotReportedBesideAnotherProblemOfItsSection() {
        // With check-interval refused, answer-timeout would be checked against its default, not the file's value.
        assertThat(errorsOf(withAlgorithmSection(
                        "invitation", "invitation: {check-interval: soon, answer-timeout: 200ms}")))
                .singleElement()
                .asString()
                .startsWith("invitation.check-interval = 'soon' is not a duration");
        assertThat(errorsOf(
                        withAlgorithmSection("invitation", "invitation: {check-interval: 0ms, answer-timeout: 200ms}")))
                .containsExactly("invitation.check-interval = 0ms is out of range: allowed 1ms to 60000ms");
    }

    @Test
    void theAlgorithmsAreTheRegistrysWithThoseElectingThroughAStoreLast() {
        assertThat(ConfigLoader.AVAILABLE_ALGORITHMS).containsExactlyInAnyOrderElementsOf(Algorithms.names());
        assertThat(ConfigLoader.AVAILABLE_ALGORITHMS).last().isEqualTo("lease");
        assertThat(errorsOf(withAlgorithmSection("paxos", ""))).anySatisfy(e -> assertThat(e)
                .contains("allowed " + String.join(", ", ConfigLoader.AVAILABLE_ALGORITHMS)));
    }
}
