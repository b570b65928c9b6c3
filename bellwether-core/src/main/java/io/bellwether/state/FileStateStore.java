package io.bellwether.state;

import static io.bellwether.state.StateFileFormat.VERSION;
import static io.bellwether.state.StateFileFormat.emptySlot;
import static io.bellwether.state.StateFileFormat.formatRecord;
import static io.bellwether.state.StateFileFormat.parse;
import static io.bellwether.state.StateFileFormat.slotOf;

import io.bellwether.elector.Counters;
import io.bellwether.elector.StoredState;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.StateStoreException;
import io.bellwether.state.StateFileFormat.Contents;
import io.bellwether.state.StateFileFormat.Unusable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each group's state in its own small text file, {@code <directory>/<group>.state}, of a fixed size
 * ({@value #FILE_BYTES} bytes): two slots of {@value #SLOT_BYTES} bytes, at offsets 0 and {@value
 * #SLOT_BYTES}. Each slot holds one record, padded with spaces up to a newline that is the slot's last byte:
 *
 * <pre>
 * bellwether-state 2
 * seq=17
 * term=42
 * crc32=1a2b3c4d
 * </pre>
 *
 * The first line names the format and its version, the second is the record's sequence number, then one
 * {@code key=value} line per counter (keys sorted), then a CRC-32 (hex) of every byte of the record before the
 * checksum line. A slot that is all padding is empty. {@code cat} shows the two records separated by blank
 * space; {@code grep = <file>} shows only their lines. A record may take at most {@value #MAX_RECORD_BYTES}
 * bytes; the electors store one or two counters, well under 100 bytes.
 *
 * <h2>Saving</h2>
 *
 * {@link #save} writes the new record, with the sequence number of the newest record plus one, over the
 * <em>other</em> slot (whole slot, one positional write) and forces the file's data to disk ({@code
 * fdatasync}: the file's size never changes, so there is no metadata to force). It keeps one open file per
 * group for this (see {@link #close}). The slots lie {@value #SLOT_BYTES} bytes apart, a file-system block and
 * a disk sector on current hardware, so that a write torn by a power failure, which can damage the whole block
 * or sector being written, cannot reach the slot that is not being written.
 *
 * <p>The first save of a group creates the file whole: it writes a temporary file ({@code <group>.state.tmp})
 * with the record in slot 0 and slot 1 empty, forces it to disk, atomically renames it over {@code
 * <group>.state} and forces the directory (best effort: not every file system allows it). A crash leaves no
 * file or the whole file. The same path replaces a file in the previous format (version 1: one record, no
 * slots, no sequence number), which {@link #load} still reads, and a file that no slot of which can be read.
 *
 * <h2>Loading, and why a damaged slot does not roll anything back</h2>
 *
 * {@link #load} reads both slots and returns the valid record with the highest sequence number. If one slot is
 * damaged (truncated, bad checksum, zeroed, …) and the other is valid, it returns the valid one and logs a
 * warning naming the file. That is what a crash in the middle of a save leaves, and it is safe:
 *
 * <ul>
 *   <li>A save writes only the slot that does <em>not</em> hold the newest record, so the newest record
 *       acknowledged by a completed {@code save} (number <i>n</i>) is never overwritten by the next save (number
 *       <i>n</i>+1); it is overwritten only by save <i>n</i>+2, which starts after save <i>n</i>+1 returned,
 *       that is after record <i>n</i>+1 was forced to disk. (A save that throws leaves record <i>n</i> alone
 *       too, and the next save writes the same slot as the one that failed.)
 *   <li>So a crash can damage only the record of a save that had not returned. The caller never acted on that
 *       state: electors act on a new state (vote in a term, count their own vote, lead) only once {@code save}
 *       has returned, and it returns only once the record is on disk. Loading record <i>n</i> then gives exactly the last state
 *       that anyone acted upon, never an older one.
 *   <li>If the write completed before the crash, record <i>n</i>+1 is valid and newer, and is loaded: a state
 *       nobody acted upon yet, as after a crash just after {@code save} returned. Electors' counters only grow,
 *       so this is the same as having crashed one step later.
 * </ul>
 *
 * This argument covers damage by an interrupted write. Damage to a record <em>after</em> its save returned (a
 * failing disk, a stray write by another program) looks the same and would load the previous record, one save
 * back; the warning names the file and both slots so that an operator can tell. The format-1 file had no
 * previous record to fall back on and refused to load in that case.
 *
 * <p>{@link #load} never turns damage into an empty state: a file that cannot be read, is empty, has the wrong
 * size, no slot of which holds a valid record, or (format 1) is truncated, has a wrong checksum, an unknown
 * version or a malformed line raises a {@link StateStoreException} naming the file and the problem. Only a
 * missing file means "never saved". Repair or remove the file by hand, knowing that a quorum member that forgets
 * its term may vote twice in one term. A leftover temporary file is ignored by {@link #load} and removed by the
 * group's next save.
 *
 * <h2>Values</h2>
 *
 * Every value is a counter or an epoch that electors only ever increment or raise, so {@link #load} refuses a
 * record holding one out of {@link Counters}' range (negative, or too large to be incremented essentially
 * forever, such as {@code Long.MAX_VALUE}) with a {@link StateStoreException} naming the file, the key and the
 * value, and {@link #save} refuses to write one. A node that started from such a value could never elect again.
 *
 * <h2>The directory lock</h2>
 *
 * The directory belongs to one store of one process for as long as the store is open: the constructor takes an
 * OS lock on {@code <directory>/bellwether.lock} (which names the holder's process id) and {@link #close}
 * releases it. A second store on the same directory, in another process or in this one, is refused with {@code
 * "state-dir <directory> is locked by process <pid>"}.
 *
 * <p>Thread-safe. Saves and loads of one group are serialised; a state file must not be replaced while its group
 * runs (the store keeps writing the file it opened).
 */
public final class FileStateStore implements StateStore, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FileStateStore.class);

    /** The size of one slot, and the offset of the second. */
    public static final int SLOT_BYTES = 4096;

    /** The size of every format-2 state file. */
    public static final int FILE_BYTES = 2 * SLOT_BYTES;

    /** The largest record a slot holds: the slot's last byte is always the padding's newline. */
    public static final int MAX_RECORD_BYTES = SLOT_BYTES - 1;

    private static final String SUFFIX = ".state";
    private static final String TEMP_SUFFIX = ".state.tmp";

    private final Path directory;
    private final Consumer<String> warnings;
    private final SlotFileOpener opener;
    private final Map<String, GroupFile> groups = new ConcurrentHashMap<>();
    private final StateDirectoryLock lock;
    private volatile boolean closed;

    /**
     * What this store knows of one group's file; also the lock that serialises the group's saves and loads.
     *
     * <p>Which slot to write next comes from what this process last saved, not from re-reading the file: after
     * a failed save the slot it wrote may read back as valid (from the page cache) without being on disk, and
     * the next save must overwrite that slot again, not the last record known to be durable.
     */
    private static final class GroupFile {
        FileChannel channel; // open on the current format-2 file, or null (opened at the next save)
        int newestSlot = -1; // slot of the newest durable record, or -1: not known yet (read the file)
        long newestSeq;
    }

    /** Opens a group's file for saving in place; tests pass one that fails or tears writes. */
    interface SlotFileOpener {
        FileChannel open(Path file) throws IOException;
    }

    /**
     * Uses {@code directory}, creating it (and its parents) if missing.
     *
     * @throws StateStoreException if the directory cannot be created, is not a directory, is not writable, or
     *     is locked by another store (of another process or of this one); the message names the holder's pid
     */
    public FileStateStore(Path directory) {
        this(
                directory,
                message -> log.warn("{}", message),
                file -> FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE));
    }

    /** For tests: {@code warnings} receives what would be logged at WARN. */
    FileStateStore(Path directory, Consumer<String> warnings, SlotFileOpener opener) {
        Objects.requireNonNull(directory, "directory");
        this.warnings = Objects.requireNonNull(warnings, "warnings");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.directory = directory.toAbsolutePath().normalize();
        try {
            Files.createDirectories(this.directory);
        } catch (FileAlreadyExistsException e) {
            throw new StateStoreException("state directory " + this.directory + " cannot be used: it is a file");
        } catch (IOException e) {
            throw new StateStoreException(
                    "state directory " + this.directory + " cannot be created: " + describe(e), e);
        }
        if (!Files.isDirectory(this.directory)) {
            throw new StateStoreException("state directory " + this.directory + " cannot be used: not a directory");
        }
        if (!Files.isWritable(this.directory)) {
            throw new StateStoreException("state directory " + this.directory + " is not writable by this process");
        }
        this.lock = StateDirectoryLock.acquire(this.directory);
    }

    /** The directory holding the state files. */
    public Path directory() {
        return directory;
    }

    /** The file that holds {@code group}'s state. */
    public Path fileOf(String group) {
        return directory.resolve(GroupNames.check("group", group) + SUFFIX);
    }

    /**
     * {@inheritDoc}
     *
     * @throws StateStoreException also if this store is closed
     */
    @Override
    public StoredState load(String group) {
        Path file = fileOf(group);
        GroupFile g = groups.computeIfAbsent(group, k -> new GroupFile());
        // Under the group's lock so that a load never sees a slot that a save of this process is writing.
        synchronized (g) {
            checkOpen(file);
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                return StoredState.EMPTY;
            } catch (IOException e) {
                throw new StateStoreException("state file " + file + " cannot be read: " + describe(e), e);
            }
            Contents contents;
            try {
                contents = parse(bytes);
            } catch (Unusable e) {
                throw new StateStoreException("state file " + file + " is unusable: " + e.getMessage()
                        + "; refusing to start from an empty state (repair or remove the file knowingly)");
            }
            if (contents.damage() != null) {
                warnings.accept("state file " + file + ": " + contents.damage());
            }
            String bad = outOfRange(contents.state());
            if (bad != null) {
                throw new StateStoreException("state file " + file + " holds " + bad + ": " + Counters.allowed()
                        + " (epochs: their counter part); a node starting from it could never elect again."
                        + " Refusing to start from it (repair or remove the file knowingly)");
            }
            return contents.state();
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws StateStoreException also if the state's record would not fit in a slot ({@value
     *     #MAX_RECORD_BYTES} bytes), holds a value out of {@link Counters}' range, or if this store is closed;
     *     nothing is written then
     */
    @Override
    public void save(String group, StoredState state) {
        Objects.requireNonNull(state, "state");
        Path file = fileOf(group);
        String bad = outOfRange(state);
        if (bad != null) {
            throw new StateStoreException("state file " + file + " cannot be saved: " + bad + " is out of range, "
                    + Counters.allowed() + " (epochs: their counter part); nothing was written");
        }
        // Checked with the widest sequence number, so that a state accepted once is accepted at every save.
        int worstLength = formatRecord(state, Long.MAX_VALUE).length;
        if (worstLength > MAX_RECORD_BYTES) {
            throw new StateStoreException("state file " + file + " cannot be saved: the record would take "
                    + worstLength + " bytes (counting a 19-digit sequence number), more than the " + MAX_RECORD_BYTES
                    + " bytes a slot holds; nothing was written");
        }
        GroupFile g = groups.computeIfAbsent(group, k -> new GroupFile());
        synchronized (g) {
            checkOpen(file);
            if (g.newestSlot < 0) {
                inspect(group, file, g);
            }
            if (g.newestSlot < 0 || g.newestSeq == Long.MAX_VALUE) {
                create(group, file, g, state);
            } else {
                writeSlot(group, file, g, state);
            }
        }
    }

    /**
     * Closes the files kept open for saving. Later calls of {@link #save} and {@link #load} throw a {@link
     * StateStoreException}. Close the store after the elections that use it. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        for (GroupFile g : groups.values()) {
            synchronized (g) {
                closeChannel(g);
            }
        }
        lock.close();
    }

    /** The first {@code key=value} of {@code state} out of range, or null if every value is in range. */
    private static String outOfRange(StoredState state) {
        for (Map.Entry<String, Long> e : state.values().entrySet()) {
            if (!Counters.storedInRange(e.getKey(), e.getValue())) {
                return e.getKey() + "=" + e.getValue();
            }
        }
        return null;
    }

    private void checkOpen(Path file) {
        if (closed) {
            throw new StateStoreException("state file " + file + " cannot be used: " + this + " is closed");
        }
    }

    // The first save of a group in this process learns from the file which slot holds the newest record. It
    // leaves g.newestSlot at -1 when the file must be created or replaced whole.
    private void inspect(String group, Path file, GroupFile g) {
        Path temp = directory.resolve(group + TEMP_SUFFIX);
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            log.debug("could not remove the leftover {}: {}", temp, e.toString());
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            warnings.accept("state file " + file + " cannot be read (" + describe(e) + "); this save replaces it");
            return;
        }
        Contents contents;
        try {
            contents = parse(bytes);
        } catch (Unusable e) {
            warnings.accept("state file " + file + " is unusable (" + e.getMessage() + "); this save replaces it");
            return;
        }
        if (contents.version() == 1) {
            log.info("state file {} is in format version 1; this save converts it to version {}", file, VERSION);
            return;
        }
        if (contents.damage() != null) {
            // Already reported by load(); this save overwrites the damaged slot.
            log.debug("state file {}: {}", file, contents.damage());
        }
        g.newestSlot = contents.slot();
        g.newestSeq = contents.seq();
    }

    private void writeSlot(String group, Path file, GroupFile g, StoredState state) {
        int target = 1 - g.newestSlot;
        long seq = g.newestSeq + 1;
        ByteBuffer slot = ByteBuffer.wrap(slotOf(formatRecord(state, seq)));
        try {
            if (g.channel == null) {
                g.channel = opener.open(file);
            }
            long position = (long) target * SLOT_BYTES;
            while (slot.hasRemaining()) {
                position += g.channel.write(slot, position);
            }
            g.channel.force(false);
        } catch (NoSuchFileException e) {
            // Removed while we were running: start a new file, as the first save would.
            log.warn("state file {} disappeared; creating it again", file);
            g.newestSlot = -1;
            create(group, file, g, state);
            return;
        } catch (IOException e) {
            // A descriptor that saw a failed write or flush is not trusted again: the next save reopens the file
            // and writes this same slot again (the newest durable record stays where it is).
            closeChannel(g);
            throw new StateStoreException(
                    "state file " + file + " cannot be saved: writing slot " + target + " failed: " + describe(e)
                            + "; the previous state (slot " + g.newestSlot + ", seq " + g.newestSeq + ") is intact",
                    e);
        }
        g.newestSlot = target;
        g.newestSeq = seq;
    }

    private void create(String group, Path file, GroupFile g, StoredState state) {
        Path temp = directory.resolve(group + TEMP_SUFFIX);
        long seq = 1;
        byte[] bytes = new byte[FILE_BYTES];
        System.arraycopy(slotOf(formatRecord(state, seq)), 0, bytes, 0, SLOT_BYTES);
        System.arraycopy(emptySlot(), 0, bytes, SLOT_BYTES, SLOT_BYTES);
        try (FileChannel channel = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        } catch (IOException e) {
            throw new StateStoreException(
                    "state file " + file + " cannot be saved: writing " + temp + " failed: " + describe(e), e);
        }
        // Whatever was open is about to be replaced by another file.
        closeChannel(g);
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new StateStoreException(
                    "state file " + file + " cannot be saved: renaming " + temp + " failed: " + describe(e), e);
        }
        forceDirectory();
        g.newestSlot = 0;
        g.newestSeq = seq;
    }

    // The rename is durable only once the directory entry is; some platforms cannot open a directory for
    // this, and there the rename's own ordering guarantees are all we get.
    private void forceDirectory() {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            log.debug("could not force directory {} after a rename: {}", directory, e.toString());
        }
    }

    private static void closeChannel(GroupFile g) {
        if (g.channel != null) {
            try {
                g.channel.close();
            } catch (IOException e) {
                log.debug("closing a state file failed: {}", e.toString());
            }
            g.channel = null;
        }
    }

    private static String describe(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    @Override
    public String toString() {
        return "FileStateStore[" + directory + "]";
    }
}
