package io.bellwether.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bellwether.elector.StoredState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileStateStoreTest {
    @TempDir
    Path dir;

    private final StoredState state = StoredState.of(Map.of("term", 42L, "counter", -7L));

    @Test
    void savedStateIsLoadedBack() {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        assertThat(store.load("jobs")).isEqualTo(state);
    }

    @Test
    void missingFileMeansNothingWasEverSaved() {
        assertThat(new FileStateStore(dir).load("jobs")).isEqualTo(StoredState.EMPTY);
    }

    @Test
    void stateSurvivesANewStoreOnTheSameDirectory() {
        new FileStateStore(dir).save("jobs", state);
        new FileStateStore(dir).save("other", StoredState.EMPTY.with("term", 1));
        FileStateStore reopened = new FileStateStore(dir);
        assertThat(reopened.load("jobs")).isEqualTo(state);
        assertThat(reopened.load("other")).isEqualTo(StoredState.EMPTY.with("term", 1));
    }

    @Test
    void laterSaveReplacesEarlierOne() {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        store.save("jobs", state.with("term", 43));
        assertThat(store.load("jobs").get("term", 0)).isEqualTo(43);
    }

    @Test
    void fileHasHeaderKeyValueLinesAndChecksum() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        assertThat(Files.readAllLines(store.fileOf("jobs")))
                .hasSize(4)
                .startsWith("bellwether-state 1", "counter=-7", "term=42")
                .last()
                .asString()
                .matches("crc32=[0-9a-f]{8}");
    }

    @Test
    void corruptChecksumIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        // Same length, different value: only the checksum can notice.
        Files.writeString(file, Files.readString(file).replace("term=42", "term=43"));
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("checksum does not match");
    }

    @Test
    void truncatedFileIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 5));
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("truncated");
    }

    @Test
    void emptyFileIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        Files.write(store.fileOf("jobs"), new byte[0]);
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString())
                .hasMessageContaining("empty");
    }

    @Test
    void garbageIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        Files.write(store.fileOf("jobs"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2, '\n'});
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString())
                .hasMessageContaining("not a Bellwether state file");
        Files.writeString(store.fileOf("jobs"), "term: 42\n");
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("not a Bellwether state file");
    }

    @Test
    void unknownVersionIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        Files.writeString(file, Files.readString(file).replace("bellwether-state 1", "bellwether-state 2"));
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("version '2' is not supported");
    }

    @Test
    void malformedLineWithValidChecksumIsRefused() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        String body = "bellwether-state 1\nterm=forty-two\n";
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        Files.writeString(store.fileOf("jobs"), body + String.format("crc32=%08x\n", crc.getValue()));
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString())
                .hasMessageContaining("line 2");
    }

    @Test
    void unreadableFileIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        assumeTrue(Files.getFileStore(file).supportsFileAttributeView("posix"), "needs POSIX file permissions");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("---------"));
        assumeTrue(
                !Files.isReadable(file),
                "running as root (or with CAP_DAC_OVERRIDE): file permissions cannot make the file unreadable");
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("cannot be read");
    }

    @Test
    void failedSaveLeavesPreviousStateReadable() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        // A directory where the temporary file must go makes the write fail, even for root.
        Files.createDirectory(dir.resolve("jobs.state.tmp"));
        assertThatThrownBy(() -> store.save("jobs", state.with("term", 99)))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString());
        assertThat(store.load("jobs")).isEqualTo(state);
    }

    @Test
    void leftoverTemporaryFileIsIgnoredAndOverwritten() throws IOException {
        FileStateStore store = new FileStateStore(dir);
        store.save("jobs", state);
        Files.writeString(dir.resolve("jobs.state.tmp"), "half a wri");
        assertThat(store.load("jobs")).isEqualTo(state);
        store.save("jobs", state.with("term", 50));
        assertThat(new FileStateStore(dir).load("jobs").get("term", 0)).isEqualTo(50);
        assertThat(dir.resolve("jobs.state.tmp")).doesNotExist();
    }

    @Test
    void missingDirectoryIsCreated() {
        Path nested = dir.resolve("a/b/c");
        new FileStateStore(nested).save("jobs", state);
        assertThat(nested.resolve("jobs.state")).isRegularFile();
    }

    @Test
    void directoryThatCannotBeCreatedIsAClearError() throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        assertThatThrownBy(() -> new FileStateStore(file.resolve("sub")))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.resolve("sub").toString())
                .hasMessageContaining("cannot be created");
        assertThatThrownBy(() -> new FileStateStore(file))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("it is a file");
    }

    @Test
    void unsafeGroupNamesAreRejected() {
        FileStateStore store = new FileStateStore(dir);
        for (String bad : new String[] {"../etc", ".hidden", "a/b", "", "x".repeat(65), "sp ace"}) {
            assertThatThrownBy(() -> store.save(bad, state))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("group = '" + bad + "'");
        }
    }
}
