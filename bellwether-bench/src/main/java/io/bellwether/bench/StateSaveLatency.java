package io.bellwether.bench;

import io.bellwether.elector.StoredState;
import io.bellwether.state.FileStateStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * Latency of one durable save of a quorum member's term, as it sits on a leader handover's critical path: the
 * state file's format 2 ({@link FileStateStore}: one positional write of a slot and {@code fdatasync}) against the
 * format-1 path it replaced (temporary file, {@code fsync}, atomic rename, directory {@code fsync}, reproduced
 * here). Saves of the two kinds alternate in blocks of 50 on one disk, so both see the same conditions.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.StateSaveLatency [SAVES]
 * [DIRECTORY]} with SAVES measured saves of each kind (default 1000, after 50 unmeasured ones) in a fresh
 * directory made under DIRECTORY (default: the working directory; /tmp may be a RAM disk) and removed at the end.
 * Exits 2 on a bad argument.
 */
public final class StateSaveLatency {
    static final int DEFAULT_SAVES = 1000;
    static final int WARM_UP = 50;
    static final int BLOCK = 50;

    private StateSaveLatency() {}

    public static void main(String[] args) throws IOException {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        if (args.length > 2) {
            err.println("usage: StateSaveLatency [SAVES] [DIRECTORY]  (default " + DEFAULT_SAVES + " saves, the working"
                    + " directory)");
            return 2;
        }
        OptionalInt savesArg =
                args.length > 0 ? Args.count("SAVES", args[0], 1_000_000, err) : OptionalInt.of(DEFAULT_SAVES);
        if (savesArg.isEmpty()) {
            return 2;
        }
        int saves = savesArg.getAsInt();
        Path parent = Path.of(args.length > 1 ? args[1] : ".").toAbsolutePath().normalize();
        if (!Files.isDirectory(parent)) {
            err.println("DIRECTORY must be an existing directory, was " + parent);
            return 2;
        }
        Path dir = Files.createTempDirectory(parent, "state-save-latency-");
        try (FileStateStore store = new FileStateStore(dir)) {
            FileStore fs = Files.getFileStore(dir);
            long[] v1 = new long[saves];
            long[] v2 = new long[saves];
            long[] term = {0};
            // Blocks of BLOCK saves of one kind, alternating which kind goes first, so that both see the same
            // disk conditions without each save following one of the other kind.
            for (int done = -WARM_UP; done < saves; done += BLOCK) {
                boolean v1First = ((done + WARM_UP) / BLOCK) % 2 == 0;
                for (int round = 0; round < 2; round++) {
                    boolean formatOne = v1First == (round == 0);
                    for (int i = done; i < Math.min(done + BLOCK, saves); i++) {
                        StoredState state = StoredState.EMPTY.with("term", ++term[0]);
                        long nanos = formatOne ? timeV1(dir, state) : timeV2(store, state);
                        if (i >= 0) {
                            (formatOne ? v1 : v2)[i] = nanos;
                        }
                    }
                }
            }
            out.printf(
                    Locale.ROOT,
                    "%s, %d cores, Java %s, %s (%s), %d saves of each after %d unmeasured%n%n",
                    LocalDate.now(),
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"),
                    fs.type(),
                    fs.name(),
                    saves,
                    WARM_UP);
            out.println("| save | p50 ms | p90 ms | p99 ms | max ms | mean ms |");
            out.println("|---|---:|---:|---:|---:|---:|");
            row(out, "format 1: temp file, fsync, rename, directory fsync", v1);
            row(out, "format 2: write the other slot, fdatasync", v2);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
        return 0;
    }

    private static long timeV2(FileStateStore store, StoredState state) {
        long start = System.nanoTime();
        store.save("bench", state);
        return System.nanoTime() - start;
    }

    private static long timeV1(Path dir, StoredState state) throws IOException {
        long start = System.nanoTime();
        saveFormatOne(dir, state);
        return System.nanoTime() - start;
    }

    /** The format-1 save, as {@code FileStateStore} did it before format 2. */
    private static void saveFormatOne(Path dir, StoredState state) throws IOException {
        StringBuilder text = new StringBuilder("bellwether-state 1\n");
        state.values().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        CRC32 crc = new CRC32();
        crc.update(text.toString().getBytes(StandardCharsets.UTF_8));
        text.append(String.format("crc32=%08x\n", crc.getValue()));
        Path temp = dir.resolve("v1.state.tmp");
        try (FileChannel channel = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        Files.move(temp, dir.resolve("v1.state"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private static void row(PrintStream out, String name, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        out.printf(
                Locale.ROOT,
                "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                name,
                ms(percentile(sorted, 0.50)),
                ms(percentile(sorted, 0.90)),
                ms(percentile(sorted, 0.99)),
                ms(sorted[sorted.length - 1]),
                ms((long) Arrays.stream(sorted).average().orElse(0)));
    }

    // Nearest rank.
    private static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
