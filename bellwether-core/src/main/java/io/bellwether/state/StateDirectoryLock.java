package io.bellwether.state;

import io.bellwether.spi.StateStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exclusive lock on a state directory, held for as long as its {@link FileStateStore} is open: an OS file
 * lock ({@link FileChannel#tryLock()}) on {@code <directory>/}{@value #FILE_NAME}, which holds the holder's
 * process id. Two nodes given one state directory would otherwise overwrite each other's terms and counters
 * without either noticing.
 *
 * <p>The OS lock belongs to the process, and on POSIX systems closing <em>any</em> descriptor of the lock file
 * releases it. So the same process never opens the lock file twice: it first checks the directories it has
 * locked itself ({@link #HELD}, by real path). A descriptor that did open the file and then met an {@link
 * OverlappingFileLockException} (the file locked in this process by other code) is kept open on purpose,
 * never closed, so that the other holder keeps its lock.
 *
 * <p>The lock file stays in place when the lock is released: removing it would let a process that opened the
 * old file and one that creates a new one both think they hold the lock.
 */
final class StateDirectoryLock implements AutoCloseable {
    /** The lock file's name inside the state directory. */
    static final String FILE_NAME = "bellwether.lock";

    /** The real paths of the directories this process holds locked. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    /** Descriptors that must stay open (see the class comment); never read. */
    private static final List<FileChannel> PARKED = new ArrayList<>();

    private final Path directory;
    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;

    private StateDirectoryLock(Path directory, Path key, FileChannel channel, FileLock lock) {
        this.directory = directory;
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks {@code directory} (which exists) for this process.
     *
     * @throws StateStoreException if another process, or another store of this process, holds it: the message
     *     names the directory and the holder's process id
     */
    static StateDirectoryLock acquire(Path directory) {
        long self = ProcessHandle.current().pid();
        Path key;
        try {
            key = directory.toRealPath();
        } catch (IOException e) {
            throw new StateStoreException("state-dir " + directory + " cannot be locked: " + e, e);
        }
        if (!HELD.add(key)) {
            throw lockedBy(directory, self, self);
        }
        Path file = key.resolve(FILE_NAME);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                parkOpen(channel);
                channel = null;
                throw lockedBy(directory, self, self);
            }
            if (lock == null) {
                long holder = holderOf(channel);
                channel.close();
                channel = null;
                throw lockedBy(directory, holder, self);
            }
            byte[] pid = (self + "\n").getBytes(StandardCharsets.US_ASCII);
            channel.truncate(0);
            ByteBuffer buffer = ByteBuffer.wrap(pid);
            long position = 0;
            while (buffer.hasRemaining()) {
                position += channel.write(buffer, position);
            }
            channel.force(false);
            return new StateDirectoryLock(directory, key, channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            HELD.remove(key);
            throw new StateStoreException(
                    "state-dir " + directory + " cannot be locked: lock file " + file + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            HELD.remove(key);
            throw e;
        }
    }

    private static StateStoreException lockedBy(Path directory, long holder, long self) {
        String who = holder < 0 ? "another process (its id is unknown)" : "process " + holder;
        String hint = holder == self
                ? " (this process: another state store of this process uses it; share one store instead)"
                : ": each node needs its own state-dir, since two nodes writing one directory overwrite each"
                        + " other's terms and counters";
        return new StateStoreException("state-dir " + directory + " is locked by " + who + hint);
    }

    /** The process id the lock file names, or -1 if it names none (the holder has not written it yet). */
    private static long holderOf(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(32);
        channel.read(buffer, 0);
        String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void parkOpen(FileChannel channel) {
        synchronized (PARKED) {
            PARKED.add(channel);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing more can be done; the lock, if any, goes with the process.
            }
        }
    }

    /** Whether this process holds {@code directory} locked (for tests). */
    static boolean isHeld(Path directory) throws IOException {
        return HELD.contains(directory.toRealPath());
    }

    /** Releases the lock. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (!channel.isOpen()) {
                return;
            }
            try {
                lock.release();
            } catch (IOException ignored) {
                // Closing the channel below releases it too.
            }
            closeQuietly(channel);
            HELD.remove(key);
        }
    }

    @Override
    public String toString() {
        return "StateDirectoryLock[" + directory + "]";
    }
}
