package io.bellwether.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.bellwether.server.cli.MainTest.Outcome;
import io.bellwether.testkit.Ports;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusCommandTest {
    private final List<HttpServer> servers = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopServers() {
        servers.forEach(s -> s.stop(0));
    }

    /** A fake node answering {@code /status} with the given role, epoch and leader. */
    private String node(String id, String role, long epoch, String leader) throws IOException {
        String body = "{\"node\":\"" + id + "\",\"cluster\":\"demo\",\"group\":\"default\",\"algorithm\":\"quorum\","
                + "\"role\":\"" + role + "\",\"epoch\":" + epoch + ",\"leader\":"
                + (leader == null ? "null" : "\"" + leader + "\"")
                + ",\"members\":[\"n1\",\"n2\",\"n3\"],\"peers\":{\"a\":{\"state\":\"CONNECTED\"},"
                + "\"b\":{\"state\":\"DISCONNECTED\"}},\"uptimeMs\":5}";
        return serve(Map.of("/status", body));
    }

    /** A fake node answering each path of {@code routes} with its JSON body; its address. */
    private String serve(Map<String, String> routes) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        routes.forEach((path, body) -> server.createContext(path, exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }));
        server.start();
        servers.add(server);
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    /**
     * A fake node of several groups: its {@code /status} is a summary, its {@code /groups} gives {@code leaders}
     * (group → leader, null for none), every group at epoch 3.
     */
    private String groupsNode(String id, Map<String, String> leaders) throws IOException {
        long leading = leaders.values().stream().filter(id::equals).count();
        long leaderless =
                leaders.values().stream().filter(java.util.Objects::isNull).count();
        String status = "{\"node\":\"" + id + "\",\"cluster\":\"demo\",\"algorithm\":\"quorum\","
                + "\"members\":[\"n1\",\"n2\"],\"peers\":{\"a\":{\"state\":\"CONNECTED\"}},"
                + "\"groups\":{\"count\":" + leaders.size() + ",\"leading\":" + leading + ",\"following\":"
                + (leaders.size() - leading - leaderless) + ",\"leaderless\":" + leaderless + "},\"uptimeMs\":5}";
        StringBuilder groups =
                new StringBuilder("{\"node\":\"" + id + "\",\"count\":" + leaders.size() + ",\"groups\":[");
        leaders.forEach((g, leader) -> groups.append(groups.charAt(groups.length() - 1) == '[' ? "" : ",")
                .append("{\"group\":\"")
                .append(g)
                .append("\",\"role\":\"FOLLOWER\",\"epoch\":3,\"leader\":")
                .append(leader == null ? "null" : "\"" + leader + "\"")
                .append('}'));
        groups.append("]}");
        return serve(Map.of("/status", status, "/groups", groups.toString()));
    }

    @Test
    void nodesOfManyGroupsAgreeingOnEveryGroupExitZeroWithTheSpread() throws Exception {
        Map<String, String> leaders = new java.util.TreeMap<>(Map.of("g0", "n1", "g1", "n2", "g2", "n2"));
        String peers = String.join(",", groupsNode("n1", leaders), groupsNode("n2", leaders));

        Outcome o = MainTest.run("status", "--peers", peers);

        assertThat(o.exitCode()).isZero();
        assertThat(o.out())
                .contains("GROUPS", "LEADING", "LEADERLESS")
                .containsPattern("n2 +127\\.0\\.0\\.1:\\d+ +3 +2 +0  1/1")
                .contains("all 2 nodes agree on the leaders of all 3 groups (groups led: n1 1, n2 2)");
    }

    @Test
    void nodesOfManyGroupsThatDisagreeNameTheGroupsAndExitOne() throws Exception {
        Map<String, String> one = new java.util.TreeMap<>(Map.of("g0", "n1", "g1", "n2", "g2", "n2"));
        Map<String, String> other = new java.util.TreeMap<>(Map.of("g0", "n1", "g1", "n1"));
        other.put("g2", null);
        String peers = String.join(",", groupsNode("n1", one), groupsNode("n2", other));

        Outcome o = MainTest.run("status", "--peers", peers);

        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.out())
                .contains("nodes DISAGREE on 2 of 3 groups")
                .contains("g1 (n1 sees n2@3, n2 sees n1@3)")
                .contains("g2 (n1 sees n2@3, n2 sees none)")
                .doesNotContain("g0 (");
    }

    @Test
    void aGroupNameThatCannotBeOneIsRefused() {
        Outcome o = MainTest.run("status", "--peers", "127.0.0.1:1", "--group", "a b");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--group: 'a b' is not a group name");
    }

    private static String deadAddress() {
        return "127.0.0.1:" + Ports.free();
    }

    @Test
    void agreeingNodesExitZeroAndSaySo() throws Exception {
        String peers = String.join(
                ",", node("n1", "FOLLOWER", 7, "n2"), node("n2", "LEADER", 7, "n2"), node("n3", "FOLLOWER", 7, "n2"));

        Outcome o = MainTest.run("status", "--peers", peers);

        assertThat(o.exitCode()).isZero();
        assertThat(o.out())
                .contains("NODE", "ROLE", "EPOCH", "LEADER", "PEERS CONNECTED")
                .containsPattern("n2 +127\\.0\\.0\\.1:\\d+ +LEADER +7 +n2 +1/2")
                .contains("all 3 nodes agree: leader n2 at epoch 7");
    }

    @Test
    void disagreeingNodesExitOneAndSayWhoSeesWhat() throws Exception {
        String peers = String.join(
                ",", node("n1", "LEADER", 8, "n1"), node("n2", "LEADER", 7, "n2"), node("n3", "CANDIDATE", 9, null));

        Outcome o = MainTest.run("status", "--peers", peers);

        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.out())
                .contains("nodes DISAGREE")
                .contains("n1 sees leader n1 at epoch 8")
                .contains("n2 sees leader n2 at epoch 7")
                .contains("n3 knows no leader (CANDIDATE at epoch 9)");
    }

    @Test
    void unreachableNodesAreListedAndExitOne() throws Exception {
        String dead = deadAddress();
        String peers = String.join(",", node("n1", "LEADER", 3, "n1"), node("n2", "FOLLOWER", 3, "n1"), dead);

        Outcome o = MainTest.run("status", "--peers", peers, "--timeout", "1000");

        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.out())
                .contains("UNREACHABLE")
                .contains("2 of 3 nodes agree: leader n1 at epoch 3")
                .contains("unreachable: " + dead);
    }

    @Test
    void configFileSuppliesEveryMembersHttpAddress() throws Exception {
        String n1 = node("n1", "LEADER", 4, "n1");
        String n2 = node("n2", "FOLLOWER", 4, "n1");
        Path config = dir.resolve("n1.yaml");
        Files.writeString(
                config,
                """
                cluster: demo
                node: n1
                listen: 127.0.0.1:7101
                peers:
                  n1: {address: 127.0.0.1:7101, http: %s}
                  n2: {address: 127.0.0.1:7102, http: %s}
                insecure: true
                state-dir: ./data
                """
                        .formatted(n1, n2));

        Outcome o = MainTest.run("status", "--config", config.toString());

        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("all 2 nodes agree: leader n1 at epoch 4");
    }

    @Test
    void badArgumentsExitTwo() {
        assertThat(MainTest.run("status").exitCode()).isEqualTo(2);
        Outcome bad = MainTest.run("status", "--peers", "localhost");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--peers: 'localhost' is not an address");
        assertThat(MainTest.run("status", "--peers", "a:1", "--config", "x.yaml")
                        .exitCode())
                .isEqualTo(2);
    }
}
