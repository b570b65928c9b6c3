package io.bellwether.state;

import static io.bellwether.state.FileStateStore.FILE_BYTES;
import static io.bellwether.state.FileStateStore.SLOT_BYTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.elector.Counters;
import io.bellwether.elector.StoredState;
import io.bellwether.spi.StateStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FileStateStoreTest {
    @TempDir
    Path dir;

    private final StoredState state = StoredState.of(Map.of("term", 42L, "counter", 7L));
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Faults faults = new Faults();
    private final List<FileStateStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(FileStateStore::close);
    }

    /**
     * A store as a (re)started process gets it: nothing known about the files yet. The stores opened before are
     * closed first, as the earlier process is gone: the directory is locked by one open store at a time.
     */
    private FileStateStore store() {
        opened.forEach(FileStateStore::close);
        FileStateStore store = new FileStateStore(dir, warnings::add, faults);
        opened.add(store);
        return store;
    }

    private static StoredState term(long term) {
        return StoredState.EMPTY.with("term", term);
    }

    // ---------------------------------------------------------------- round trips

    @Test
    void savedStateIsLoadedBack() {
        FileStateStore store = store();
        store.save("jobs", state);
        assertThat(store.load("jobs")).isEqualTo(state);
        assertThat(store().load("jobs")).isEqualTo(state);
        assertThat(warnings).isEmpty();
    }

    @Test
    void missingFileMeansNothingWasEverSaved() {
        assertThat(store().load("jobs")).isEqualTo(StoredState.EMPTY);
    }

    @Test
    void stateSurvivesANewStoreOnTheSameDirectory() {
        store().save("jobs", state);
        store().save("other", term(1));
        FileStateStore reopened = store();
        assertThat(reopened.load("jobs")).isEqualTo(state);
        assertThat(reopened.load("other")).isEqualTo(term(1));
    }

    @Test
    void laterSaveReplacesEarlierOne() {
        FileStateStore store = store();
        store.save("jobs", state);
        store.save("jobs", state.with("term", 43));
        assertThat(store.load("jobs").get("term", 0)).isEqualTo(43);
        assertThat(store().load("jobs").get("term", 0)).isEqualTo(43);
    }

    @Test
    void fileHoldsTwoPaddedSlotsOfHeaderSeqKeyValueLinesAndChecksum() throws IOException {
        FileStateStore store = store();
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        assertThat(Files.size(file)).isEqualTo(FILE_BYTES);
        String slot0 = slot(file, 0);
        assertThat(List.of(slot0.strip().split("\n")))
                .hasSize(5)
                .startsWith("bellwether-state 2", "seq=1", "counter=7", "term=42")
                .last()
                .asString()
                .matches("crc32=[0-9a-f]{8}");
        assertThat(slot0).matches("(?s)bellwether-state 2\n[^ ]+\n +\n");
        assertThat(slot(file, 1)).isEqualTo(" ".repeat(SLOT_BYTES - 1) + "\n");
        // Text a person can read: nothing but printable ASCII, spaces and newlines.
        assertThat(Files.readString(file, StandardCharsets.US_ASCII)).matches("[\\x20-\\x7e\\n]*");
    }

    @Test
    void savesAlternateSlotsInPlaceAndTheNewestIsLoaded() throws IOException {
        FileStateStore store = store();
        store.save("jobs", term(1));
        Path file = store.fileOf("jobs");
        Object inode = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        for (int t = 2; t <= 9; t++) {
            store.save("jobs", term(t));
            int newest = (t - 1) % 2;
            assertThat(slot(file, newest)).startsWith("bellwether-state 2\nseq=" + t + "\nterm=" + t + "\n");
            assertThat(slot(file, 1 - newest)).startsWith("bellwether-state 2\nseq=" + (t - 1) + "\n");
            assertThat(Files.size(file)).isEqualTo(FILE_BYTES);
            assertThat(store.load("jobs")).isEqualTo(term(t));
        }
        if (inode != null) {
            assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey())
                    .as("saves after the first write the same file in place")
                    .isEqualTo(inode);
        }
        assertThat(faults.opened).isEqualTo(1);
        assertThat(warnings).isEmpty();
    }

    @Test
    void concurrentSavesOfOneGroupAreSerialised() throws Exception {
        FileStateStore store = store();
        int threads = 4;
        int savesEach = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int thread = i;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int s = 0; s < savesEach; s++) {
                        store.save("jobs", term(thread * 1000L + s));
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        // Every save took the next sequence number: none was lost or written over a record it did not own.
        Path file = store.fileOf("jobs");
        String newer = slot(file, (threads * savesEach - 1) % 2);
        String older = slot(file, threads * savesEach % 2);
        assertThat(newer).startsWith("bellwether-state 2\nseq=" + threads * savesEach + "\n");
        assertThat(older).startsWith("bellwether-state 2\nseq=" + (threads * savesEach - 1) + "\n");
        assertThat(store().load("jobs").get("term", -1) % 1000).isEqualTo(savesEach - 1);
        assertThat(warnings).isEmpty();
    }

    // ---------------------------------------------------------------- crashes and damage

    /** Saves term 1, 2, 3: slot 0 holds term 3 (seq 3, the newest), slot 1 term 2 (seq 2). */
    private Path threeSaves() {
        FileStateStore store = store();
        for (int t = 1; t <= 3; t++) {
            store.save("jobs", term(t));
        }
        store.close();
        return store.fileOf("jobs");
    }

    @Test
    void newestSlotWithABadChecksumLoadsThePreviousStateAndWarns() throws IOException {
        Path file = threeSaves();
        String slot = slot(file, 0);
        // Same length, different value: only the checksum can notice.
        poke(file, 0, slot.replace("term=3", "term=4"));
        assertThat(store().load("jobs")).isEqualTo(term(2));
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains(file.toString())
                .contains("slot 0 (bytes 0–4095) is damaged: its checksum does not match")
                .contains("it claims seq=3")
                .contains("loaded slot 1 (bytes 4096–8191) (seq=2)")
                .contains("A crash during a save leaves this");
    }

    @Test
    void newestSlotHalfWrittenLoadsThePreviousStateAndWarns() throws IOException {
        Path file = threeSaves();
        String slot = slot(file, 0);
        // The first sector of the write reached the disk, the rest of the slot did not (zeros).
        byte[] torn = new byte[SLOT_BYTES];
        byte[] head = slot.substring(0, 30).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, torn, 0, head.length);
        poke(file, 0, torn);
        assertThat(store().load("jobs")).isEqualTo(term(2));
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains(file.toString())
                .contains("slot 0 (bytes 0–4095) is damaged: it does not end with padding");
    }

    @Test
    void newestSlotZeroedLoadsThePreviousStateAndWarns() throws IOException {
        Path file = threeSaves();
        poke(file, 0, new byte[SLOT_BYTES]);
        assertThat(store().load("jobs")).isEqualTo(term(2));
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains(file.toString())
                .contains("slot 0 (bytes 0–4095) is damaged: it holds neither a record nor padding");
    }

    @Test
    void newestSlotTruncatedWithinItsRecordLoadsThePreviousStateAndWarns() throws IOException {
        Path file = threeSaves();
        String slot = slot(file, 0);
        // The record lost its last line; what follows is padding, as if the write had been shorter.
        int cut = slot.indexOf("crc32=");
        poke(file, 0, slot.substring(0, cut) + " ".repeat(SLOT_BYTES - 1 - cut) + "\n");
        assertThat(store().load("jobs")).isEqualTo(term(2));
        assertThat(warnings).singleElement().asString().contains("truncated");
    }

    @Test
    void damagedOlderSlotLoadsTheNewestAndSaysNothingIsLost() throws IOException {
        Path file = threeSaves();
        String slot = slot(file, 1);
        poke(file, SLOT_BYTES, slot.replace("term=2", "term=7"));
        assertThat(store().load("jobs")).isEqualTo(term(3));
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains("slot 1 (bytes 4096–8191) is damaged")
                .contains("older one: nothing is lost");
    }

    @Test
    void saveAfterADamagedSlotOverwritesTheDamagedSlot() throws IOException {
        Path file = threeSaves();
        poke(file, 0, new byte[SLOT_BYTES]);
        FileStateStore restarted = store();
        assertThat(restarted.load("jobs")).isEqualTo(term(2));
        restarted.save("jobs", term(4));
        assertThat(slot(file, 0)).startsWith("bellwether-state 2\nseq=3\nterm=4\n");
        assertThat(slot(file, 1)).startsWith("bellwether-state 2\nseq=2\nterm=2\n");
        warnings.clear();
        assertThat(store().load("jobs")).isEqualTo(term(4));
        assertThat(warnings).isEmpty();
    }

    @ParameterizedTest(name = "{0} bytes of the slot written")
    @ValueSource(ints = {24, 40, 50})
    void crashInTheMiddleOfASlotWriteLoadsTheLastCompletedSave(int bytesWritten) {
        FileStateStore store = store();
        store.save("jobs", state.with("term", 1));
        store.save("jobs", state.with("term", 2));
        faults.tearAfter = bytesWritten;
        assertThatThrownBy(() -> store.save("jobs", state.with("term", 3)))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString());
        // The process "crashed" there: a restarted one must find the last save that returned.
        assertThat(store().load("jobs")).isEqualTo(state.with("term", 2));
        assertThat(warnings).singleElement().asString().contains("slot 0 (bytes 0–4095) is damaged");
    }

    @Test
    void crashAfterTheRecordButBeforeTheEndOfTheSlotLoadsTheNewRecord() {
        FileStateStore store = store();
        store.save("jobs", term(1));
        store.save("jobs", term(2));
        // The whole record and part of the padding were written: the rest of the old slot is padding too, so
        // the new record is complete. It was never acknowledged, and it is newer: loading it is safe.
        faults.tearAfter = 2000;
        assertThatThrownBy(() -> store.save("jobs", term(3))).isInstanceOf(StateStoreException.class);
        assertThat(store().load("jobs")).isEqualTo(term(3));
        assertThat(warnings).isEmpty();
    }

    @Test
    void bothSlotsDamagedIsAnErrorNamingTheFileAndBothProblems() throws IOException {
        Path file = threeSaves();
        poke(file, 0, new byte[SLOT_BYTES]);
        poke(file, SLOT_BYTES, slot(file, 1).replace("term=2", "term=9"));
        assertThatThrownBy(() -> store().load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("state file " + file + " is unusable")
                .hasMessageContaining("neither slot holds a valid record")
                .hasMessageContaining("slot 0 (bytes 0–4095) damaged: it holds neither a record nor padding")
                .hasMessageContaining("slot 1 (bytes 4096–8191) damaged: its checksum does not match")
                .hasMessageContaining("refusing to start from an empty state");
    }

    @Test
    void onlyRecordWithABadChecksumIsAnErrorNamingTheFile() throws IOException {
        FileStateStore store = store();
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        poke(file, 0, slot(file, 0).replace("term=42", "term=43"));
        assertThatThrownBy(() -> store().load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("checksum does not match")
                .hasMessageContaining("slot 1 (bytes 4096–8191) empty");
    }

    @Test
    void slotsWithTheSameSeqAndDifferentValuesAreAnError() throws IOException {
        Path file = threeSaves();
        String slot0 = slot(file, 0);
        poke(file, SLOT_BYTES, slot0.replace("term=3", "term=5").replaceFirst("crc32=[0-9a-f]{8}", crc32Line(slot0)));
        assertThatThrownBy(() -> store().load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("both slots hold seq=3 with different values");
    }

    private static String crc32Line(String slotWithTerm3) {
        String record = slotWithTerm3.replace("term=3", "term=5");
        String body = record.substring(0, record.indexOf("crc32="));
        CRC32 crc = new CRC32();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        return String.format("crc32=%08x", crc.getValue());
    }

    @Test
    void fileOfTheWrongSizeIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = store();
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, SLOT_BYTES + 100));
        assertThatThrownBy(() -> store().load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("4196 bytes long; a version 2 state file has exactly 8192 (truncated?)");
    }

    @Test
    void emptyFileIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = store();
        Files.write(store.fileOf("jobs"), new byte[0]);
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString())
                .hasMessageContaining("empty");
    }

    @Test
    void garbageIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = store();
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
        FileStateStore store = store();
        writeV1(store.fileOf("jobs"), "bellwether-state 9\nterm=42\n");
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString())
                .hasMessageContaining("version '9' is not supported (this version reads versions 1 and 2)");
    }

    @Test
    void recordOfAnotherVersionInBothSlotsIsRefused() throws IOException {
        FileStateStore store = store();
        store.save("jobs", state);
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        String bytes = Files.readString(file, StandardCharsets.US_ASCII);
        Files.writeString(file, bytes.replace("bellwether-state 2", "bellwether-state 3"), StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> store().load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("format version is '3', expected 2");
    }

    // ---------------------------------------------------------------- format 1

    @Test
    void formatOneFileIsLoadedAndTheNextSaveConvertsIt() throws IOException {
        FileStateStore store = store();
        Path file = store.fileOf("jobs");
        writeV1(file, "bellwether-state 1\ncounter=7\nterm=42\n");
        Object before = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        assertThat(store.load("jobs")).isEqualTo(state);
        store.save("jobs", state.with("term", 43));
        assertThat(Files.size(file)).isEqualTo(FILE_BYTES);
        assertThat(slot(file, 0)).startsWith("bellwether-state 2\nseq=1\ncounter=7\nterm=43\ncrc32=");
        assertThat(slot(file, 1)).isBlank();
        if (before != null) {
            assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey())
                    .as("converted through a new file and a rename")
                    .isNotEqualTo(before);
        }
        assertThat(dir.resolve("jobs.state.tmp")).doesNotExist();
        assertThat(store.load("jobs")).isEqualTo(state.with("term", 43));
        store.save("jobs", state.with("term", 44));
        assertThat(slot(file, 1)).startsWith("bellwether-state 2\nseq=2\n");
        assertThat(store().load("jobs")).isEqualTo(state.with("term", 44));
    }

    @Test
    void formatOneFileWithABadChecksumIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = store();
        Path file = store.fileOf("jobs");
        writeV1(file, "bellwether-state 1\nterm=42\n");
        Files.writeString(file, Files.readString(file).replace("term=42", "term=43"));
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("checksum does not match");
    }

    @Test
    void truncatedFormatOneFileIsRefusedNamingTheFile() throws IOException {
        FileStateStore store = store();
        Path file = store.fileOf("jobs");
        writeV1(file, "bellwether-state 1\nterm=42\n");
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 5));
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("truncated");
    }

    @Test
    void malformedLineWithValidChecksumIsRefused() throws IOException {
        FileStateStore store = store();
        writeV1(store.fileOf("jobs"), "bellwether-state 1\nterm=forty-two\n");
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString())
                .hasMessageContaining("line 2");
    }

    // ---------------------------------------------------------------- failed saves and limits

    @Test
    void failedWriteLeavesPreviousStateReadable() {
        FileStateStore store = store();
        store.save("jobs", term(1));
        store.save("jobs", term(2));
        faults.failWrite = true;
        assertThatThrownBy(() -> store.save("jobs", term(3)))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(store.fileOf("jobs").toString())
                .hasMessageContaining("the previous state (slot 1, seq 2) is intact");
        assertThat(store.load("jobs")).isEqualTo(term(2));
        assertThat(store().load("jobs")).isEqualTo(term(2));
    }

    @Test
    void saveAfterAFailedFlushRewritesTheSameSlotThroughAFreshDescriptor() throws IOException {
        FileStateStore store = store();
        store.save("jobs", term(1));
        store.save("jobs", term(2));
        faults.failForce = true;
        assertThatThrownBy(() -> store.save("jobs", term(3)))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("the previous state (slot 1, seq 2) is intact");
        // Slot 0 now reads back as seq 3, but may not be on disk: the next save must not overwrite slot 1 (the
        // last record known durable), so it writes slot 0 again.
        store.save("jobs", term(4));
        Path file = store.fileOf("jobs");
        assertThat(slot(file, 0)).startsWith("bellwether-state 2\nseq=3\nterm=4\n");
        assertThat(slot(file, 1)).startsWith("bellwether-state 2\nseq=2\nterm=2\n");
        assertThat(faults.opened).isEqualTo(2);
        assertThat(store().load("jobs")).isEqualTo(term(4));
    }

    @Test
    void failedCreationLeavesPreviousStateReadable() throws IOException {
        FileStateStore store = store();
        Path file = store.fileOf("jobs");
        writeV1(file, "bellwether-state 1\nterm=42\n");
        // A non-empty directory where the temporary file must go makes the conversion fail, even for root.
        Files.createDirectory(dir.resolve("jobs.state.tmp"));
        Files.writeString(dir.resolve("jobs.state.tmp/keep"), "x");
        assertThatThrownBy(() -> store.save("jobs", term(99)))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString());
        assertThat(store.load("jobs")).isEqualTo(term(42));
        assertThat(store().load("jobs")).isEqualTo(term(42));
    }

    @Test
    void recordTooLargeForASlotIsRefusedAndNothingChanges() throws IOException {
        Map<String, Long> many = new TreeMap<>();
        for (int i = 0; i < 80; i++) {
            many.put(String.format("counter-%03d-%s", i, "x".repeat(40)), Counters.LIMIT - 1);
        }
        StoredState tooLarge = StoredState.of(many);
        FileStateStore store = store();
        store.save("jobs", state);
        Path file = store.fileOf("jobs");
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> store.save("jobs", tooLarge))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageMatching(".*the record would take \\d{4,} bytes .* more than the 4095 bytes a slot holds.*")
                .hasMessageContaining("nothing was written");
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
        assertThat(store.load("jobs")).isEqualTo(state);
        assertThatThrownBy(() -> store.save("fresh", tooLarge)).isInstanceOf(StateStoreException.class);
        assertThat(dir.resolve("fresh.state")).doesNotExist();
        assertThat(dir.resolve("fresh.state.tmp")).doesNotExist();
    }

    @Test
    void leftoverTemporaryFileIsIgnoredAndRemovedByTheNextSave() throws IOException {
        store().save("jobs", state);
        Files.writeString(dir.resolve("jobs.state.tmp"), "half a wri");
        FileStateStore restarted = store();
        assertThat(restarted.load("jobs")).isEqualTo(state);
        restarted.save("jobs", state.with("term", 50));
        assertThat(store().load("jobs").get("term", 0)).isEqualTo(50);
        assertThat(dir.resolve("jobs.state.tmp")).doesNotExist();
    }

    @Test
    void closedStoreRefusesToSaveOrLoad() {
        FileStateStore store = store();
        store.save("jobs", state);
        store.save("jobs", state);
        assertThat(faults.channels).hasSize(1).allMatch(FileChannel::isOpen);
        store.close();
        store.close();
        assertThatThrownBy(() -> store.save("jobs", state))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("is closed");
        assertThatThrownBy(() -> store.load("jobs"))
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("is closed");
        assertThat(faults.channels).noneMatch(FileChannel::isOpen);
    }

    // ---------------------------------------------------------------- directory and names

    @Test
    void missingDirectoryIsCreated() {
        Path nested = dir.resolve("a/b/c");
        try (FileStateStore store = new FileStateStore(nested)) {
            store.save("jobs", state);
        }
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
        FileStateStore store = store();
        for (String bad : new String[] {"../etc", ".hidden", "a/b", "", "x".repeat(65), "sp ace"}) {
            assertThatThrownBy(() -> store.save(bad, state))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("group = '" + bad + "'");
        }
    }

    // ---------------------------------------------------------------- helpers

    private static String slot(Path file, int slot) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        return new String(bytes, slot * SLOT_BYTES, SLOT_BYTES, StandardCharsets.ISO_8859_1);
    }

    private static void poke(Path file, long offset, String text) throws IOException {
        poke(file, offset, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static void poke(Path file, long offset, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                offset += channel.write(buffer, offset);
            }
        }
    }

    /** Writes a format-1 file: {@code body} and its checksum line. */
    private static void writeV1(Path file, String body) throws IOException {
        CRC32 crc = new CRC32();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        Files.writeString(file, body + String.format("crc32=%08x\n", crc.getValue()));
    }

    /** Opens the store's files through channels that fail or tear the next write or flush on request. */
    static final class Faults implements FileStateStore.SlotFileOpener {
        volatile boolean failWrite;
        volatile boolean failForce;
        volatile int tearAfter = -1;
        volatile int opened;
        final List<FileChannel> channels = new CopyOnWriteArrayList<>();

        @Override
        public FileChannel open(Path file) throws IOException {
            opened++;
            FileChannel channel =
                    new FaultyChannel(FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE), this);
            channels.add(channel);
            return channel;
        }
    }

    /** Delegates to a real channel, except where {@link Faults} asks for a failure. */
    private static final class FaultyChannel extends FileChannel {
        private final FileChannel real;
        private final Faults faults;

        FaultyChannel(FileChannel real, Faults faults) {
            this.real = real;
            this.faults = faults;
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            if (faults.failWrite) {
                faults.failWrite = false;
                throw new IOException("injected write failure");
            }
            if (faults.tearAfter >= 0) {
                int n = faults.tearAfter;
                faults.tearAfter = -1;
                ByteBuffer part = src.duplicate();
                part.limit(part.position() + n);
                while (part.hasRemaining()) {
                    real.write(part, position + part.position() - src.position());
                }
                throw new IOException("injected crash after " + n + " bytes");
            }
            return real.write(src, position);
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (faults.failForce) {
                faults.failForce = false;
                throw new IOException("injected flush failure");
            }
            real.force(metaData);
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return real.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return real.read(dsts, offset, length);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return real.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return real.write(srcs, offset, length);
        }

        @Override
        public long position() throws IOException {
            return real.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            real.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return real.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            real.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return real.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return real.transferFrom(src, position, count);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return real.read(dst, position);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return real.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return real.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return real.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            real.close();
        }
    }
}
