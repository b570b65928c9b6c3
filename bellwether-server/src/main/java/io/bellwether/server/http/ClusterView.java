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
    private final Supplier<ObjectNode> ownStatus;
    private final Supplier<ObjectNode> ownHistory;
    private final Duration timeout;
    private final HttpClient client;

    /**
     * @param httpAddresses every member's HTTP address as known now, read for each fetch: empty for a member
     *     whose address is not known (yet), as with discovered peers
     */
    ClusterView(
            NodeId self,
            Supplier<Map<NodeId, Optional<NodeAddress>>> httpAddresses,
            Supplier<ObjectNode> ownStatus,
            Supplier<ObjectNode> ownHistory,
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

    /** {@code {"node": self, "members": {id: status or {"node": id, "error": "..."}}}}, members sorted by id. */
    ObjectNode fetch() {
        return gather("/status", ownStatus, "not a status document");
    }

    /**
     * {@code {"node": self, "members": {id: history or {"node": id, "error": "..."}}}}, members sorted by id: each
     * member's {@code /history}.
     */
    ObjectNode fetchHistories() {
        return gather("/history", ownHistory, "not a history document");
    }

    private ObjectNode gather(String path, Supplier<ObjectNode> own, String malformed) {
        Map<NodeId, CompletableFuture<JsonNode>> pending = new LinkedHashMap<>();
        Map<NodeId, Optional<NodeAddress>> addresses = httpAddresses.get();
        addresses.keySet().stream().sorted().forEach(id -> {
            if (id.equals(self)) {
                pending.put(id, CompletableFuture.completedFuture(own.get()));
            } else if (addresses.get(id).isEmpty()) {
                pending.put(id, CompletableFuture.completedFuture(unresolved(id)));
            } else {
                pending.put(id, fetch(id, addresses.get(id).get(), path, malformed));
            }
        });
        ObjectNode result = JSON.createObjectNode();
        result.put("node", self.value());
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
