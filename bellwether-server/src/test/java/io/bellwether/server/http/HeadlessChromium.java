package io.bellwether.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Chromium, headless, driven over the Chrome DevTools Protocol with the JDK's own WebSocket client (no
 * browser-automation library). One page stays open so a test can watch it change live, which a one-shot
 * {@code --dump-dom} cannot show: the page polls and listens to server-sent events for as long as it is open.
 *
 * <p>The browser runs with a fresh profile in a temporary directory, picks its own debugging port (it writes
 * it to {@code DevToolsActivePort} in the profile) and is stopped, with every process it started, on
 * {@link #close()}.
 */
final class HeadlessChromium implements AutoCloseable {
    static final Path EXECUTABLE = Path.of("/usr/bin/chromium");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration START_CEILING = Duration.ofSeconds(60);
    private static final Duration COMMAND_CEILING = Duration.ofSeconds(30);

    private final Path dir;
    private final Process process;
    private final WebSocket socket;
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    private HeadlessChromium(Path dir, Process process, WebSocket socket) {
        this.dir = dir;
        this.process = process;
        this.socket = socket;
    }

    /**
     * Skips the calling test with a loud line when Chromium is not installed, but fails it on CI
     * ({@code CI=true}), where {@code .ci/run} installs it first.
     */
    static void requireInstalled() {
        if (Files.isExecutable(EXECUTABLE)) {
            return;
        }
        String message = EXECUTABLE + " is not installed; install Debian's chromium package as .ci/run does";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true and " + message);
        }
        System.err.println("!!! SKIPPING the dashboard browser tests: " + message);
        Assumptions.abort(message);
    }

    /** Starts a headless browser and connects to it; fails with the browser's own output if it cannot. */
    static HeadlessChromium launch() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("bellwether-chromium-");
        Path profile = dir.resolve("profile");
        Path log = dir.resolve("chromium.log");
        Process process = new ProcessBuilder(List.of(
                        EXECUTABLE.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-dev-shm-usage",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        // A page in a hidden (headless) window must keep its timers at full rate to update live.
                        "--disable-background-timer-throttling",
                        "--disable-renderer-backgrounding",
                        "--user-data-dir=" + profile,
                        "--remote-debugging-address=127.0.0.1",
                        "--remote-debugging-port=0",
                        "about:blank"))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            URI browser = awaitDebuggingEndpoint(process, profile.resolve("DevToolsActivePort"), log);
            Listener listener = new Listener();
            WebSocket socket = HttpClient.newHttpClient()
                    .newWebSocketBuilder()
                    .connectTimeout(COMMAND_CEILING)
                    .buildAsync(browser, listener)
                    .get(COMMAND_CEILING.toSeconds(), TimeUnit.SECONDS);
            HeadlessChromium chromium = new HeadlessChromium(dir, process, socket);
            listener.owner = chromium;
            return chromium;
        } catch (ExecutionException | TimeoutException | RuntimeException | Error e) {
            stop(process, process.descendants().toList(), Duration.ZERO);
            String output = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            deleteRecursively(dir);
            throw new IllegalStateException("headless Chromium did not start; its output:\n" + output, e);
        }
    }

    /** Chromium writes its port and browser path once it listens; the file is complete when both lines are. */
    private static URI awaitDebuggingEndpoint(Process process, Path portFile, Path log) {
        String[] endpoint = new String[1];
        await().atMost(START_CEILING).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("Chromium exited with status " + process.exitValue() + ": "
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            if (!Files.exists(portFile)) {
                return false;
            }
            List<String> lines = Files.readAllLines(portFile, StandardCharsets.UTF_8);
            if (lines.size() < 2 || lines.get(1).isBlank()) {
                return false;
            }
            endpoint[0] = "ws://127.0.0.1:" + lines.get(0).trim() + lines.get(1).trim();
            return true;
        });
        return URI.create(endpoint[0]);
    }

    /** Opens a new tab on {@code url}. */
    Page open(URI url) throws IOException {
        String target = send(null, "Target.createTarget", Map.of("url", url.toString()))
                .path("targetId")
                .asText();
        String session = send(null, "Target.attachToTarget", Map.of("targetId", target, "flatten", true))
                .path("sessionId")
                .asText();
        return new Page(session);
    }

    /** One open tab. */
    final class Page {
        private final String session;

        private Page(String session) {
            this.session = session;
        }

        /**
         * Evaluates a JavaScript expression in the page and returns its value as JSON; a thrown exception fails
         * with the page's own message.
         */
        JsonNode evaluate(String expression) throws IOException {
            JsonNode result =
                    send(session, "Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
            if (result.has("exceptionDetails")) {
                throw new IOException("the page threw: " + result.path("exceptionDetails"));
            }
            return result.path("result").path("value");
        }
    }

    private JsonNode send(String session, String method, Map<String, Object> params) throws IOException {
        long id = ids.incrementAndGet();
        ObjectNode message = JSON.createObjectNode();
        message.put("id", id);
        message.put("method", method);
        message.set("params", JSON.valueToTree(params));
        if (session != null) {
            message.put("sessionId", session);
        }
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        pending.put(id, reply);
        try {
            // The WebSocket allows one outstanding send at a time; callers are one test thread, so waiting here
            // for the send to complete keeps that rule without a queue.
            socket.sendText(JSON.writeValueAsString(message), true).get(COMMAND_CEILING.toSeconds(), TimeUnit.SECONDS);
            JsonNode answer = reply.get(COMMAND_CEILING.toSeconds(), TimeUnit.SECONDS);
            if (answer.has("error")) {
                throw new IOException(method + " failed: " + answer.path("error"));
            }
            return answer.path("result");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(method + " interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException(method + " got no answer from Chromium within " + COMMAND_CEILING, e);
        } finally {
            pending.remove(id);
        }
    }

    private void receive(String text) {
        try {
            JsonNode message = JSON.readTree(text);
            // Messages without an id are protocol events; nothing here subscribes to any.
            if (message.has("id")) {
                CompletableFuture<JsonNode> reply =
                        pending.get(message.path("id").asLong());
                if (reply != null) {
                    reply.complete(message);
                }
            }
        } catch (IOException e) {
            pending.values().forEach(f -> f.completeExceptionally(e));
        }
    }

    private void failAll(Throwable cause) {
        pending.values().forEach(f -> f.completeExceptionally(cause));
    }

    /** Assembles fragmented text frames into whole protocol messages. */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();
        private volatile HeadlessChromium owner;

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                HeadlessChromium o = owner;
                if (o != null) {
                    o.receive(text);
                }
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            HeadlessChromium o = owner;
            if (o != null) {
                o.failAll(new IOException("Chromium closed the DevTools connection: " + statusCode + " " + reason));
            }
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            HeadlessChromium o = owner;
            if (o != null) {
                o.failAll(error);
            }
        }
    }

    /** The browser's own output so far, for failure messages. */
    String output() {
        try {
            return Files.readString(dir.resolve("chromium.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        // Taken first: once the browser has exited, helpers it left behind are no longer its descendants.
        List<ProcessHandle> children = process.descendants().toList();
        try {
            send(null, "Browser.close", Map.of());
        } catch (IOException | RuntimeException e) {
            // It is stopped by signal below.
        }
        socket.abort();
        // Browser.close lets Chromium end its renderers itself; a signal is the fallback.
        stop(process, children, Duration.ofSeconds(10));
        deleteRecursively(dir);
    }

    private static void stop(Process process, List<ProcessHandle> children, Duration grace) {
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        // Renderer and helper processes normally exit with the browser; any left behind must not outlive the test.
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // Left under the system's temporary directory.
        }
    }
}
