package io.bellwether.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.demo.LocalCluster;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Listens to the {@code /events} streams of some nodes and notes the moment the first of them reports itself
 * LEADER above a given epoch. Server-sent events are pushed as the change happens, so the measurement adds no
 * polling load to the nodes it measures and no polling interval to the result.
 */
final class LeaderWatch implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    private final CompletableFuture<Long> elected = new CompletableFuture<>();
    private final List<Stream<String>> streams = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();

    /**
     * Subscribes to every given member's events and returns once each stream has delivered its first
     * (snapshot) event, so that nothing that happens afterwards can be missed.
     */
    static LeaderWatch above(LocalCluster cluster, List<String> members, long epoch)
            throws IOException, InterruptedException {
        LeaderWatch watch = new LeaderWatch();
        CountDownLatch subscribed = new CountDownLatch(members.size());
        for (String id : members) {
            HttpResponse<Stream<String>> response = watch.http.send(
                    HttpRequest.newBuilder(cluster.member(id).httpUri("/events"))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofLines());
            Stream<String> lines = response.body();
            watch.streams.add(lines);
            Thread reader = new Thread(
                    () -> {
                        boolean first = true;
                        try {
                            for (String line : (Iterable<String>) lines::iterator) {
                                if (!line.startsWith("data:")) {
                                    continue;
                                }
                                if (first) {
                                    first = false;
                                    subscribed.countDown();
                                }
                                watch.check(line.substring(5).trim(), epoch);
                            }
                        } catch (java.io.UncheckedIOException e) {
                            // the stream was closed: by close(), or by the node going away
                        }
                    },
                    "leader-watch-" + id);
            reader.setDaemon(true);
            watch.readers.add(reader);
            reader.start();
        }
        if (!subscribed.await(30, TimeUnit.SECONDS)) {
            watch.close();
            throw new IllegalStateException("event streams did not start within 30 s");
        }
        return watch;
    }

    private void check(String data, long epoch) {
        long now = System.nanoTime();
        try {
            JsonNode event = JSON.readTree(data);
            if ("LEADER".equals(event.path("role").asText())
                    && event.path("epoch").asLong() > epoch) {
                elected.complete(now);
            }
        } catch (IOException e) {
            // not an event this watch understands
        }
    }

    /** The {@link System#nanoTime()} at which a new leader was first reported. */
    long awaitElected(Duration ceiling) throws Exception {
        return elected.get(ceiling.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        streams.forEach(Stream::close);
        readers.forEach(Thread::interrupt);
    }
}
