package io.bellwether.state;

import io.bellwether.elector.StoredState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each group's state in its own small text file, {@code <directory>/<group>.state}:
 *
 * <pre>
 * bellwether-state 1
 * term=42
 * crc32=1a2b3c4d
 * </pre>
 *
 * The first line names the format and its version, then one {@code key=value} line per counter (keys
 * sorted), then a CRC-32 (hex) of every byte before the checksum line.
 *
 * <p>{@link #save} writes a temporary file ({@code <group>.state.tmp}) in the same directory, forces it to
 * disk, atomically renames it over the old file and then forces the directory (best effort: not every file
 * system allows it). A crash at any point leaves either the old or the new file; a leftover temporary file is
 * ignored by {@link #load} and overwritten by the next save.
 *
 * <p>{@link #load} never turns a damaged file into an empty state: a file that cannot be read, is truncated,
 * has a wrong checksum, an unknown version or a malformed line raises a {@link StateStoreException} naming the
 * file and the problem. Only a missing file means "never saved". Repair or remove the file by hand, knowing
 * that a quorum member that forgets its term may vote twice in one term.
 *
 * <p>Thread-safe. Saves of one group are serialised; one directory must not be shared by two processes that
 * run the same group.
 */
public final class FileStateStore implements StateStore {
    private static final Logger log = LoggerFactory.getLogger(FileStateStore.class);

    static final String FORMAT = "bellwether-state";
    static final int VERSION = 1;
    private static final String CHECKSUM_PREFIX = "crc32=";
    private static final String SUFFIX = ".state";
    private static final String TEMP_SUFFIX = ".state.tmp";

    private final Path directory;
    private final Map<String, Object> groupLocks = new ConcurrentHashMap<>();

    /**
     * Uses {@code directory}, creating it (and its parents) if missing.
     *
     * @throws StateStoreException if the directory cannot be created, is not a directory, or is not writable
     */
    public FileStateStore(Path directory) {
        Objects.requireNonNull(directory, "directory");
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
    }

    /** The directory holding the state files. */
    public Path directory() {
        return directory;
    }

    /** The file that holds {@code group}'s state. */
    public Path fileOf(String group) {
        return directory.resolve(GroupNames.check("group", group) + SUFFIX);
    }

    @Override
    public StoredState load(String group) {
        Path file = fileOf(group);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return StoredState.EMPTY;
        } catch (IOException e) {
            throw new StateStoreException("state file " + file + " cannot be read: " + describe(e), e);
        }
        return parse(file, bytes);
    }

    @Override
    public void save(String group, StoredState state) {
        Objects.requireNonNull(state, "state");
        Path file = fileOf(group);
        Path temp = directory.resolve(group + TEMP_SUFFIX);
        byte[] bytes = format(state);
        synchronized (groupLocks.computeIfAbsent(group, g -> new Object())) {
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
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new StateStoreException(
                        "state file " + file + " cannot be saved: renaming " + temp + " failed: " + describe(e), e);
            }
            forceDirectory();
        }
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

    static byte[] format(StoredState state) {
        StringBuilder text = new StringBuilder();
        text.append(FORMAT).append(' ').append(VERSION).append('\n');
        state.values().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
        text.append(CHECKSUM_PREFIX)
                .append(String.format("%08x", crc(body, body.length)))
                .append('\n');
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static StoredState parse(Path file, byte[] bytes) {
        if (bytes.length == 0) {
            throw corrupt(file, "it is empty (truncated?)");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw corrupt(file, "it is not a Bellwether state file (not UTF-8 text)");
        }
        List<String> lines = List.of(text.split("\n", -1));
        String header = lines.get(0);
        if (!header.startsWith(FORMAT + " ")) {
            throw corrupt(
                    file,
                    "it is not a Bellwether state file (first line '" + abbreviate(header) + "', expected '" + FORMAT
                            + " " + VERSION + "')");
        }
        String versionText = header.substring(FORMAT.length() + 1);
        if (!versionText.equals(Integer.toString(VERSION))) {
            throw corrupt(
                    file,
                    "its format version '" + abbreviate(versionText) + "' is not supported (this version reads version "
                            + VERSION + ")");
        }
        // A complete file ends with the checksum line and a newline, so the split leaves an empty last item.
        if (lines.size() < 3 || !lines.get(lines.size() - 1).isEmpty()) {
            throw corrupt(file, "it is truncated: it does not end with a complete checksum line");
        }
        String checksumLine = lines.get(lines.size() - 2);
        if (!checksumLine.startsWith(CHECKSUM_PREFIX)) {
            throw corrupt(
                    file,
                    "it is truncated: the last line is '" + abbreviate(checksumLine) + "', expected a checksum line '"
                            + CHECKSUM_PREFIX + "…'");
        }
        long expected;
        try {
            String hex = checksumLine.substring(CHECKSUM_PREFIX.length());
            if (hex.length() != 8) {
                throw new NumberFormatException(hex);
            }
            expected = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw corrupt(file, "its checksum line '" + abbreviate(checksumLine) + "' is malformed");
        }
        int bodyLength = bytes.length - checksumLine.getBytes(StandardCharsets.UTF_8).length - 1;
        long actual = crc(bytes, bodyLength);
        if (actual != expected) {
            throw corrupt(
                    file, String.format("its checksum does not match (stored %08x, computed %08x)", expected, actual));
        }
        Map<String, Long> values = new LinkedHashMap<>();
        for (int i = 1; i < lines.size() - 2; i++) {
            String line = lines.get(i);
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw corrupt(file, "line " + (i + 1) + " '" + abbreviate(line) + "' is not key=value");
            }
            String key = line.substring(0, eq);
            long value;
            try {
                value = Long.parseLong(line.substring(eq + 1));
            } catch (NumberFormatException e) {
                throw corrupt(file, "line " + (i + 1) + " '" + abbreviate(line) + "' does not hold a whole number");
            }
            if (values.put(key, value) != null) {
                throw corrupt(file, "line " + (i + 1) + " repeats key '" + abbreviate(key) + "'");
            }
        }
        try {
            return StoredState.of(values);
        } catch (IllegalArgumentException e) {
            throw corrupt(file, e.getMessage());
        }
    }

    private static long crc(byte[] bytes, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }

    private static StateStoreException corrupt(Path file, String problem) {
        return new StateStoreException("state file " + file + " is unusable: " + problem
                + "; refusing to start from an empty state (repair or remove the file knowingly)");
    }

    private static String abbreviate(String s) {
        String printable = s.replaceAll("\\p{Cntrl}", "?");
        return printable.length() <= 40 ? printable : printable.substring(0, 40) + "…";
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
