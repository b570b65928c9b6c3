package io.bellwether.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.elector.Counters;
import io.bellwether.elector.StoredState;
import io.bellwether.spi.StateStoreException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DESIGN §6 for {@link FileStateStore}: values read back are validated (a term, counter or epoch that cannot be
 * incremented, or is negative, is refused with the file named), none is ever written, and the state directory
 * belongs to one store of one process for the store's life.
 */
class FileStateStoreValuesAndLockTest {
    @TempDir
    Path dir;

    private final List<FileStateStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(FileStateStore::close);
    }

    private FileStateStore open() {
        FileStateStore store = new FileStateStore(dir);
        opened.add(store);
        return store;
    }

    /** Writes a valid format-2 file (checksum and all) holding {@code key=value}. */
    private Path writeFile(String group, String key, long value) throws IOException {
        byte[] bytes = new byte[FileStateStore.FILE_BYTES];
        byte[] slot = StateFileFormat.slotOf(StateFileFormat.formatRecord(StoredState.EMPTY.with(key, value), 1));
        System.arraycopy(slot, 0, bytes, 0, FileStateStore.SLOT_BYTES);
        System.arraycopy(StateFileFormat.emptySlot(), 0, bytes, FileStateStore.SLOT_BYTES, FileStateStore.SLOT_BYTES);
        Path file = dir.resolve(group + ".state");
        Files.write(file, bytes);
        return file;
    }

    // ---------------------------------------------------------------- values

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "term, 9223372036854775807",
        "term, 140737488355328",
        "term, -1",
        "pledge, -9223372036854775808",
        "counter, 9223372036854775806",
        "group-counter, 140737488355328",
        // a bully or ring epoch whose counter part is 2^47
        "epoch, 144115188075855872",
        "epoch, -5"
    })
    void loadRefusesAValueOutOfRangeNamingTheFileKeyAndValue(String key, long value) throws IOException {
        Path file = writeFile("jobs", key, value);
        assertThatThrownBy(() -> open().load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining(key + "=" + value)
                .hasMessageContaining("allowed 0 to " + (Counters.LIMIT - 1))
                .hasMessageContaining("could never elect again");
    }

    @Test
    void loadAcceptsTheLastValueOfTheRangeAndEpochsWithTheirLastCounter() throws IOException {
        writeFile("jobs", "term", Counters.LIMIT - 1);
        long lastEpoch = ((Counters.LIMIT - 1) << Counters.EPOCH_RANK_BITS) | 1023;
        writeFile("other", "epoch", lastEpoch);
        FileStateStore store = open();
        assertThat(store.load("jobs").get("term", 0)).isEqualTo(Counters.LIMIT - 1);
        assertThat(store.load("other").get("epoch", 0)).isEqualTo(lastEpoch);
    }

    @Test
    void saveRefusesAValueOutOfRangeAndWritesNothing() throws IOException {
        FileStateStore store = open();
        store.save("jobs", StoredState.EMPTY.with("term", 5));
        Path file = store.fileOf("jobs");
        byte[] before = Files.readAllBytes(file);
        for (long bad : new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Counters.LIMIT, -1}) {
            assertThatThrownBy(() -> store.save("jobs", StoredState.EMPTY.with("term", bad)))
                    .isInstanceOf(StateStoreException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("term=" + bad)
                    .hasMessageContaining("nothing was written");
        }
        assertThatThrownBy(() -> store.save("fresh", StoredState.EMPTY.with("counter", Long.MAX_VALUE)))
                .isInstanceOf(StateStoreException.class);
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
        assertThat(dir.resolve("fresh.state")).doesNotExist();
        assertThat(store.load("jobs").get("term", 0)).isEqualTo(5);
    }

    // ---------------------------------------------------------------- the directory lock

    @Test
    void secondStoreOnTheSameDirectoryInThisProcessIsRefusedNamingThisProcess() throws IOException {
        FileStateStore first = open();
        long pid = ProcessHandle.current().pid();
        assertThatThrownBy(() -> new FileStateStore(dir))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("state-dir " + dir.toAbsolutePath().normalize() + " is locked by process " + pid);
        // Also through another spelling of the same directory.
        assertThatThrownBy(() -> new FileStateStore(dir.resolve("sub").resolve("..")))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("is locked by process " + pid);
        // The refused stores did not disturb the first one's lock or its use.
        first.save("jobs", StoredState.EMPTY.with("term", 3));
        assertThat(first.load("jobs").get("term", 0)).isEqualTo(3);
        assertThat(StateDirectoryLock.isHeld(dir)).isTrue();
        assertThat(Files.readString(dir.resolve(StateDirectoryLock.FILE_NAME)).trim())
                .isEqualTo(Long.toString(pid));
    }

    @Test
    void closingTheStoreReleasesTheDirectory() throws IOException {
        FileStateStore first = open();
        first.save("jobs", StoredState.EMPTY.with("term", 3));
        first.close();
        assertThat(StateDirectoryLock.isHeld(dir)).isFalse();
        FileStateStore second = open();
        assertThat(second.load("jobs").get("term", 0)).isEqualTo(3);
    }

    @Test
    void lockFileLockedByOtherCodeOfThisProcessIsAClearErrorAndTheirLockSurvives() throws IOException {
        Path lockFile = dir.resolve(StateDirectoryLock.FILE_NAME);
        try (FileChannel channel = FileChannel.open(
                        lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock theirs = channel.lock()) {
            // tryLock on a region this JVM already holds throws OverlappingFileLockException inside the store.
            assertThatThrownBy(() -> new FileStateStore(dir))
                    .isInstanceOf(StateStoreException.class)
                    .hasMessageContaining(
                            "is locked by process " + ProcessHandle.current().pid());
            assertThat(theirs.isValid()).isTrue();
            assertThat(StateDirectoryLock.isHeld(dir)).isFalse();
        }
    }

    @Test
    void storeInAnotherProcessHoldsTheDirectoryUntilItExits() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process holder = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        StateDirectoryLockHolder.class.getName(),
                        dir.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine(); // blocks until the child holds the lock (or dies: null)
            assertThat(line).isEqualTo("locked " + holder.pid());
            assertThatThrownBy(() -> new FileStateStore(dir))
                    .isInstanceOf(StateStoreException.class)
                    .hasMessageContaining(
                            "state-dir " + dir.toAbsolutePath().normalize() + " is locked by process " + holder.pid())
                    .hasMessageContaining("each node needs its own state-dir");
            holder.getOutputStream().close();
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(holder.exitValue()).isZero();
            FileStateStore mine = open();
            mine.save("jobs", StoredState.EMPTY.with("term", 1));
        } finally {
            holder.destroyForcibly();
        }
    }
}
