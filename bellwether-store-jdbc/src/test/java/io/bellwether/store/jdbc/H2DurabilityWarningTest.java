package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An H2 file that delays its commits can lose a token increment when its process dies: the store says so. */
class H2DurabilityWarningTest {
    @TempDir
    Path dir;

    @Test
    void anH2FileWithDelayedCommitsIsWarnedAboutOnceAndOneWithWriteDelayZeroIsNot() throws Exception {
        String delayed = logOfFirstAcquire("jdbc:h2:file:" + dir.resolve("delayed"));
        assertThat(delayed).contains("500 ms");
        assertThat(delayed.split("writes commits up to", -1))
                .as("one warning in: %s", delayed)
                .hasSize(2);

        String durable = logOfFirstAcquire("jdbc:h2:file:" + dir.resolve("durable") + ";WRITE_DELAY=0");
        assertThat(durable).doesNotContain("WRITE_DELAY");

        String memory = logOfFirstAcquire("jdbc:h2:mem:durability;DB_CLOSE_DELAY=-1");
        assertThat(memory).doesNotContain("WRITE_DELAY");
    }

    /** What the store logs (slf4j-simple writes to the current System.err) around its first two calls. */
    private static String logOfFirstAcquire(String url) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        // A 10 s request timeout: opening a new H2 file on a loaded machine took more than the default 2 s.
        try (JdbcLeaseStore store = JdbcLeaseStore.builder()
                .url(url)
                .createSchema(true)
                .requestTimeout(Duration.ofSeconds(10))
                .build()) {
            store.acquireOrRenew("g", "h", 0, Duration.ofSeconds(1))
                    .toCompletableFuture()
                    .get();
            store.acquireOrRenew("g", "h", 1, Duration.ofSeconds(1))
                    .toCompletableFuture()
                    .get();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
