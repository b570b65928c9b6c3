package io.bellwether.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.NodeAddress;
import io.bellwether.server.config.ConfigException;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bellwether status}: asks every node for its {@code /status} and says plainly whether they agree on
 * one leader and epoch.
 */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Prints the cluster as each node sees it and says plainly whether the nodes agree: on the leader, or"
                    + " for nodes of many groups on every group's leader (--group NAME: on that group's).",
            "Exit status: 0 all nodes answer and agree, 1 nodes disagree or do not answer, 2 bad arguments."
        })
final class StatusCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @ArgGroup(multiplicity = "1")
    Target target;

    static final class Target {
        @Option(
                names = "--peers",
                split = ",",
                paramLabel = "HOST:PORT",
                description = "HTTP addresses of the nodes, comma-separated.")
        List<String> peers;

        @Option(
                names = "--config",
                paramLabel = "FILE",
                description = "A node's configuration file; every member's HTTP address is taken from it (with"
                        + " peers-dns: every address the name resolves to, at the file's HTTP port).")
        Path config;
    }

    @Option(
            names = "--timeout",
            paramLabel = "MILLIS",
            defaultValue = "2000",
            description = "How long to wait for each node, in milliseconds (1-60000). Default ${DEFAULT-VALUE}.")
    long timeoutMillis;

    @Option(
            names = "--group",
            paramLabel = "NAME",
            description = "With nodes of many groups (groups: in their configuration): ask about this group only.")
    String group;

    /** How many disagreeing groups the verdict names. */
    static final int NAMED_GROUPS = 5;

    /** One node's answer, or why there is none. */
    record Answer(String address, JsonNode status, String error) {
        String name() {
            return status != null ? status.path("node").asText(address) : address;
        }

        String leader() {
            JsonNode leader = status.path("leader");
            return leader.isTextual() ? leader.asText() : null;
        }

        long epoch() {
            return status.path("epoch").asLong();
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (timeoutMillis < 1 || timeoutMillis > 60_000) {
            throw new ParameterException(
                    spec.commandLine(), "--timeout must be 1 to 60000 milliseconds, was " + timeoutMillis);
        }
        if (group != null && !io.bellwether.NodeId.isValid(group)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--group: '" + group + "' is not a group name: allowed " + io.bellwether.state.GroupNames.ALLOWED);
        }
        List<NodeAddress> addresses = new ArrayList<>();
        if (target.config != null) {
            NodeConfig config;
            try {
                config = ConfigLoader.load(target.config);
            } catch (ConfigException e) {
                err.println("bellwether status: " + e.getMessage());
                return Main.EXIT_USAGE;
            }
            if (config.peersDns().isPresent()) {
                // The members run from one template: each serves HTTP on this file's HTTP port, at an address of
                // the peers-dns name.
                NodeAddress name = config.peersDns().get().name();
                try {
                    for (InetAddress a : InetAddress.getAllByName(name.host())) {
                        addresses.add(new NodeAddress(
                                a.getHostAddress(), config.http().port()));
                    }
                } catch (UnknownHostException e) {
                    err.println("bellwether status: cannot resolve peers-dns = '" + name + "' of " + target.config
                            + ": " + e.getMessage());
                    return Main.EXIT_VIOLATION;
                }
            } else {
                addresses.addAll(config.httpAddresses().values());
            }
        } else {
            for (String text : target.peers) {
                try {
                    addresses.add(NodeAddress.parse(text.trim()));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(
                            spec.commandLine(),
                            "--peers: '" + text + "' is not an address: allowed host:port[,host:port...] (the nodes'"
                                    + " HTTP addresses)");
                }
            }
        }
        Duration timeout = Duration.ofMillis(timeoutMillis);
        List<Answer> answers = fetchAll(addresses, group == null ? "/status" : "/status?group=" + group, timeout);
        if (group == null
                && answers.stream()
                        .anyMatch(a ->
                                a.status() != null && a.status().path("groups").isObject())) {
            // Nodes of many groups: each node's leader of every group.
            List<Answer> lists = fetchAll(addresses, "/groups", timeout);
            printGroupsTable(out, answers);
            return groupsVerdict(out, lists);
        }
        printTable(out, answers);
        return verdict(out, answers);
    }

    /** One line per node of many groups: how many it leads, follows a leader in, and knows no leader in. */
    private static void printGroupsTable(PrintWriter out, List<Answer> answers) {
        String format = "%-12s %-22s %8s %8s %10s  %s%n";
        out.printf(format, "NODE", "ADDRESS", "GROUPS", "LEADING", "LEADERLESS", "PEERS CONNECTED");
        for (Answer a : answers) {
            if (a.status() == null) {
                out.printf(format, "?", a.address(), "-", "-", "-", "UNREACHABLE: " + a.error());
                continue;
            }
            JsonNode groups = a.status().path("groups");
            out.printf(
                    format,
                    a.name(),
                    a.address(),
                    groups.path("count").asText("?"),
                    groups.path("leading").asText("?"),
                    groups.path("leaderless").asText("?"),
                    connected(a.status().path("peers")));
        }
    }

    /**
     * Whether every node that answered knows the same leader at the same epoch for every group (each node's {@code
     * /groups}); names the first few groups they do not agree on.
     */
    private static int groupsVerdict(PrintWriter out, List<Answer> lists) {
        List<Answer> reachable = lists.stream().filter(a -> a.status() != null).toList();
        List<Answer> unreachable =
                lists.stream().filter(a -> a.status() == null).toList();
        // group -> node -> "leader@epoch" (or "none")
        Map<String, Map<String, String>> views = new java.util.TreeMap<>();
        for (Answer a : reachable) {
            for (JsonNode g : a.status().path("groups")) {
                JsonNode leader = g.path("leader");
                views.computeIfAbsent(g.path("group").asText(), k -> new LinkedHashMap<>())
                        .put(
                                a.name(),
                                leader.isTextual()
                                        ? leader.asText() + "@"
                                                + g.path("epoch").asLong()
                                        : "none");
            }
        }
        List<String> disagreeing = new ArrayList<>();
        Map<String, Integer> ledBy = new java.util.TreeMap<>();
        for (Map.Entry<String, Map<String, String>> e : views.entrySet()) {
            Set<String> distinct = new LinkedHashSet<>(e.getValue().values());
            if (distinct.size() != 1
                    || distinct.contains("none")
                    || e.getValue().size() != reachable.size()) {
                disagreeing.add(e.getKey());
            } else {
                String view = distinct.iterator().next();
                ledBy.merge(view.substring(0, view.lastIndexOf('@')), 1, Integer::sum);
            }
        }
        List<String> spread = new ArrayList<>();
        ledBy.forEach((leader, n) -> spread.add(leader + " " + n));
        if (reachable.isEmpty()) {
            out.println("no node answered");
        } else if (disagreeing.isEmpty()) {
            out.printf(
                    "%s agree on the leaders of all %d groups (groups led: %s)%n",
                    unreachable.isEmpty()
                            ? "all " + reachable.size() + " nodes"
                            : reachable.size() + " of " + lists.size() + " nodes",
                    views.size(),
                    String.join(", ", spread));
        } else {
            List<String> parts = new ArrayList<>();
            for (String g : disagreeing.subList(0, Math.min(NAMED_GROUPS, disagreeing.size()))) {
                List<String> seen = new ArrayList<>();
                views.get(g).forEach((node, view) -> seen.add(node + " sees " + view));
                parts.add(g + " (" + String.join(", ", seen) + ")");
            }
            out.printf(
                    "nodes DISAGREE on %d of %d groups (or know no leader): %s%s%n",
                    disagreeing.size(),
                    views.size(),
                    String.join("; ", parts),
                    disagreeing.size() > NAMED_GROUPS ? "; ..." : "");
        }
        if (!unreachable.isEmpty()) {
            List<String> parts = new ArrayList<>();
            unreachable.forEach(a -> parts.add(a.address() + " (" + a.error() + ")"));
            out.println("unreachable: " + String.join(", ", parts));
        }
        return disagreeing.isEmpty() && unreachable.isEmpty() && !reachable.isEmpty()
                ? Main.EXIT_OK
                : Main.EXIT_VIOLATION;
    }

    private static String connected(JsonNode peers) {
        int connected = 0;
        int total = 0;
        for (Iterator<JsonNode> it = peers.elements(); it.hasNext(); ) {
            total++;
            if ("CONNECTED".equals(it.next().path("state").asText())) {
                connected++;
            }
        }
        return connected + "/" + total;
    }

    private static List<Answer> fetchAll(List<NodeAddress> addresses, String path, Duration timeout) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        Map<String, CompletableFuture<Answer>> pending = new LinkedHashMap<>();
        for (NodeAddress address : addresses) {
            String key = address.toString();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + key + path))
                    .timeout(timeout)
                    .GET()
                    .build();
            pending.putIfAbsent(
                    key,
                    client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                            .thenApply(response -> {
                                if (response.statusCode() != 200) {
                                    String body = response.body().strip();
                                    return new Answer(
                                            key,
                                            null,
                                            "HTTP " + response.statusCode()
                                                    + (response.statusCode() == 404 && body.length() <= 200
                                                            ? ": " + body
                                                            : ""));
                                }
                                try {
                                    return new Answer(key, JSON.readTree(response.body()), null);
                                } catch (Exception e) {
                                    return new Answer(key, null, "answer is not a status document");
                                }
                            })
                            .exceptionally(e -> new Answer(key, null, describe(e))));
        }
        List<Answer> answers = new ArrayList<>();
        pending.values().forEach(f -> answers.add(f.join()));
        return answers;
    }

    private static void printTable(PrintWriter out, List<Answer> answers) {
        String format = "%-12s %-22s %-12s %8s  %-10s %s%n";
        out.printf(format, "NODE", "ADDRESS", "ROLE", "EPOCH", "LEADER", "PEERS CONNECTED");
        for (Answer a : answers) {
            if (a.status() == null) {
                out.printf(format, "?", a.address(), "UNREACHABLE", "-", "-", a.error());
                continue;
            }
            out.printf(
                    format,
                    a.name(),
                    a.address(),
                    a.status().path("role").asText("?"),
                    a.epoch(),
                    a.leader() == null ? "none" : a.leader(),
                    connected(a.status().path("peers")));
        }
    }

    private static int verdict(PrintWriter out, List<Answer> answers) {
        List<Answer> reachable =
                answers.stream().filter(a -> a.status() != null).toList();
        List<Answer> unreachable =
                answers.stream().filter(a -> a.status() == null).toList();
        Set<String> views = new LinkedHashSet<>();
        reachable.forEach(a -> views.add(a.leader() + "@" + a.epoch()));
        boolean agree =
                !reachable.isEmpty() && views.size() == 1 && reachable.get(0).leader() != null;
        if (agree && unreachable.isEmpty()) {
            out.printf(
                    "all %d nodes agree: leader %s at epoch %d%n",
                    reachable.size(),
                    reachable.get(0).leader(),
                    reachable.get(0).epoch());
            return Main.EXIT_OK;
        }
        if (agree) {
            out.printf(
                    "%d of %d nodes agree: leader %s at epoch %d%n",
                    reachable.size(),
                    answers.size(),
                    reachable.get(0).leader(),
                    reachable.get(0).epoch());
        } else if (reachable.isEmpty()) {
            out.println("no node answered");
        } else {
            List<String> parts = new ArrayList<>();
            for (Answer a : reachable) {
                parts.add(
                        a.leader() == null
                                ? a.name() + " knows no leader ("
                                        + a.status().path("role").asText() + " at epoch " + a.epoch() + ")"
                                : a.name() + " sees leader " + a.leader() + " at epoch " + a.epoch());
            }
            out.println("nodes DISAGREE: " + String.join("; ", parts));
        }
        if (!unreachable.isEmpty()) {
            List<String> parts = new ArrayList<>();
            unreachable.forEach(a -> parts.add(a.address() + " (" + a.error() + ")"));
            out.println("unreachable: " + String.join(", ", parts));
        }
        return Main.EXIT_VIOLATION;
    }

    private static String describe(Throwable e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
