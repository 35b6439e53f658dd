package dev.peregrine.mold;

import dev.peregrine.internal.FileSpace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;

/**
 * The open file of a mapped {@link MoldUDP64MessageStore}, held for the store's life so that one store at a time
 * writes it: an exclusive {@link FileChannel#tryLock} keeps other processes out, and a set of the files this
 * process's stores hold keeps a second store of this process out.
 *
 * <p>The set is needed because the lock is a POSIX record lock, which belongs to the process and which the close of
 * any descriptor of the file in the process drops: a second store of this process must be refused before it opens
 * the file, since closing its channel would free the file for every other process. For the same reason the
 * descriptor that reserved a new file's blocks stays open until the lock goes ({@link FileSpace#reserveLocked}).
 */
final class MoldUDP64StoreFile implements AutoCloseable {
    /** The files of this process's open stores, by file key (device and inode), or by path where there is none. */
    private static final Set<Object> OPEN = new HashSet<>();

    private final Path file;
    private final FileChannel channel;
    private final Object key;
    private int reservedDescriptor = -1;

    private MoldUDP64StoreFile(final Path file, final FileChannel channel, final Object key) {
        this.file = file;
        this.channel = channel;
        this.key = key;
    }

    /**
     * Opens (creating if missing) and locks the file.
     *
     * @throws IOException saying the file is in use, if another store of this process or another process holds
     *     it, or any other failure to open it
     */
    static MoldUDP64StoreFile open(final Path file) throws IOException {
        synchronized (OPEN) {
            refuseIfAStoreOfThisProcessHolds(file);
            final FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
            try {
                lock(channel, false);
                final Object key = keyOf(file);
                OPEN.add(key);
                return new MoldUDP64StoreFile(file, channel, key);
            } catch (final IOException | RuntimeException | Error ex) {
                channel.close();
                throw ex;
            }
        }
    }

    /** A look at an open file's content, failing with the reason it would be refused. */
    interface ContentCheck {
        /**
         * Checks the file.
         *
         * @param channel the file, open for reading
         * @throws IOException saying why the file would be refused
         */
        void check(FileChannel channel) throws IOException;
    }

    /**
     * Why {@link #open} followed by {@code content} would refuse an existing file, or null if it would take it:
     * another store of this process holds it, {@code content} refuses it, or a lock of another process holds it.
     * The file is opened for reading only, and only when no store of this process holds it (closing a descriptor
     * of it would drop that store's lock); a shared lock is taken and released at once to see whether another
     * process holds its exclusive one.
     *
     * @param file an existing regular file
     * @param content the check of what the file holds
     * @return the reason, or null
     */
    static String refusal(final Path file, final ContentCheck content) {
        synchronized (OPEN) {
            try {
                refuseIfAStoreOfThisProcessHolds(file);
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                    content.check(channel);
                    lock(channel, true).release();
                    return null;
                }
            } catch (final IOException ex) {
                return ex.getMessage();
            }
        }
    }

    /** Refuses a file a store of this process holds, before it is opened (its close would drop that store's lock). */
    private static void refuseIfAStoreOfThisProcessHolds(final Path file) throws IOException {
        final Object existing = keyOf(file);
        if (existing != null && OPEN.contains(existing)) {
            throw new IOException("in use by another message store of this process; one store per file");
        }
    }

    /** Locks the whole file, or refuses it as in use. */
    private static FileLock lock(final FileChannel channel, final boolean shared) throws IOException {
        final FileLock lock;
        try {
            lock = channel.tryLock(0, Long.MAX_VALUE, shared);
        } catch (final OverlappingFileLockException ex) {
            throw new IOException("in use: this process holds a lock on it already, not through a message store");
        }
        if (lock == null) {
            throw new IOException("in use by another process, which holds its lock; one store per file");
        }
        return lock;
    }

    FileChannel channel() {
        return channel;
    }

    /**
     * Empties the file and gives it {@code length} bytes of storage, so that a full file system is an
     * {@link IOException} here and not a {@code SIGBUS} at a later store through the mapping.
     */
    void startAfresh(final long length) throws IOException {
        channel.truncate(0);
        reservedDescriptor = FileSpace.reserveLocked(channel, file, length, "message store file",
            "choose another file");
    }

    /**
     * Releases the lock (by closing the channel) and forgets the file; the mapping may outlive this. Idempotent: a
     * second call never forgets the file of a store that opened it since.
     *
     * @throws UncheckedIOException naming the file if the channel cannot be closed
     */
    @Override
    public void close() {
        synchronized (OPEN) {
            if (!channel.isOpen()) {
                return;
            }
            try {
                channel.close();
            } catch (final IOException ex) {
                throw new UncheckedIOException("cannot close message store file=" + file + ": " + ex.getMessage(), ex);
            } finally {
                FileSpace.closeDescriptor(reservedDescriptor);
                reservedDescriptor = -1;
                OPEN.remove(key);
            }
        }
    }

    /** The file's identity, or null if it does not exist. */
    private static Object keyOf(final Path file) throws IOException {
        final BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (final NoSuchFileException ex) {
            return null;
        }
        final Object key = attributes.fileKey();
        return key != null ? key : file.toRealPath();
    }
}
