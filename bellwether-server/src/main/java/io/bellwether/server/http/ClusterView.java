package io.bellwether.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The cluster as seen from every member: this node's status (or history) and each other member's, fetched in
 * parallel from its {@code /status} (or {@code /history}). A member that does not answer within the timeout
 * appears with an {@code error}.
 *
 * <p>Thread-safe.
 */
final class ClusterView {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final NodeId self;
    private final Supplier<Map<NodeId, Optional<NodeAddress>>> httpAddresses;
    private final Function<Optional<String>, ObjectNode> ownStatus;
    private final Function<Optional<String>, ObjectNode> ownHistory;
    private final Duration timeout;
    private final HttpClient client;

    /**
     * @param httpAddresses every member's HTTP address as known now, read for each fetch: empty for a member
     *     whose address is not known (yet), as with discovered peers
     */
    ClusterView(
            NodeId self,
            Supplier<Map<NodeId, Optional<NodeAddress>>> httpAddresses,
            Function<Optional<String>, ObjectNode> ownStatus,
            Function<Optional<String>, ObjectNode> ownHistory,
            Duration timeout,
            Executor executor) {
        this.self = self;
        this.httpAddresses = httpAddresses;
        this.ownStatus = ownStatus;
        this.ownHistory = ownHistory;
        this.timeout = timeout;
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .executor(executor)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /**
     * {@code {"node": self, "members": {id: status or {"node": id, "error": "..."}}}}, members sorted by id: each
     * member's {@code /status}, or with {@code group} its {@code /status?group=GROUP}.
     */
    ObjectNode fetch(Optional<String> group) {
        return gather("/status", group, ownStatus, "not a status document");
    }

    /**
     * {@code {"node": self, "members": {id: history or {"node": id, "error": "..."}}}}, members sorted by id: each
     * member's {@code /history}, or with {@code group} its {@code /history?group=GROUP}.
     */
    ObjectNode fetchHistories(Optional<String> group) {
        return gather("/history", group, ownHistory, "not a history document");
    }

    private ObjectNode gather(
            String resource, Optional<String> group, Function<Optional<String>, ObjectNode> own, String malformed) {
        // The name is one of this node's groups (checked by the caller), so letters, digits, '.', '_' and '-'.
        String path = resource + group.map(g -> "?group=" + g).orElse("");
        Map<NodeId, CompletableFuture<JsonNode>> pending = new LinkedHashMap<>();
        Map<NodeId, Optional<NodeAddress>> addresses = httpAddresses.get();
        addresses.keySet().stream().sorted().forEach(id -> {
            if (id.equals(self)) {
                pending.put(id, CompletableFuture.completedFuture(own.apply(group)));
            } else if (addresses.get(id).isEmpty()) {
                pending.put(id, CompletableFuture.completedFuture(unresolved(id)));
            } else {
                pending.put(id, fetch(id, addresses.get(id).get(), path, malformed));
            }
        });
        ObjectNode result = JSON.createObjectNode();
        result.put("node", self.value());
        group.ifPresent(g -> result.put("group", g));
        ObjectNode members = result.putObject("members");
        pending.forEach((id, future) -> members.set(id.value(), future.join()));
        return result;
    }

    private CompletableFuture<JsonNode> fetch(NodeId id, NodeAddress address, String path, String malformed) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + address + path))
                .timeout(timeout)
                .GET()
                .build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> {
                    if (response.statusCode() != 200) {
                        return error(id, address, "HTTP " + response.statusCode());
                    }
                    try {
                        return JSON.readTree(response.body());
                    } catch (Exception e) {
                        return error(id, address, malformed);
                    }
                })
                .exceptionally(e -> error(id, address, describe(e)));
    }

    private static JsonNode unresolved(NodeId id) {
        ObjectNode json = JSON.createObjectNode();
        json.put("node", id.value());
        json.putNull("http");
        json.put("error", "unresolved: its address is not discovered yet");
        return json;
    }

    private static JsonNode error(NodeId id, NodeAddress address, String message) {
        ObjectNode json = JSON.createObjectNode();
        json.put("node", id.value());
        json.put("http", address.toString());
        json.put("error", message);
        return json;
    }

    private static String describe(Throwable e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
