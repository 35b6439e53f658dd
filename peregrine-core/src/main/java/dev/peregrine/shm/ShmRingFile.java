package dev.peregrine.shm;

import dev.peregrine.internal.FileSpace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Creates, maps, checks and cleans up the files that hold rings. A file is named
 * {@code peregrine-shm-<pid>-<n>-<direction>} after the process that created it, so leftovers of a dead
 * process can be recognised and removed. A mapped file is never trusted: its header is checked against
 * {@link ShmRingDescriptor} and the parameters agreed on before use.
 */
public final class ShmRingFile {
    /** Prefix of every ring file name. */
    public static final String PREFIX = "peregrine-shm-";

    private static final AtomicLong NEXT = new AtomicLong();

    private ShmRingFile() {
    }

    /**
     * Where ring files go by default: {@code /dev/shm} where present (memory, never disk), otherwise the
     * temporary folder.
     *
     * @return the folder
     */
    public static Path defaultDirectory() {
        final Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return shm;
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * A fresh name for a pair of rings created by this process.
     *
     * @param directory where the files go
     * @param direction e.g. {@code c2s}
     * @param pairId from {@link #nextPairId()}
     * @return the path
     */
    static Path name(final Path directory, final String direction, final long pairId) {
        return directory.resolve(PREFIX + ProcessHandle.current().pid() + "-" + pairId + "-" + direction);
    }

    /**
     * A number unique in this process, naming a pair of ring files.
     *
     * @return the id
     */
    static long nextPairId() {
        return NEXT.incrementAndGet();
    }

    /**
     * Creates a new ring file (mode 0600, failing if it exists), maps it and writes a fresh header. On failure a file
     * this call created is removed again, and a file that was there before is left alone: it is someone else's.
     *
     * @param path the file
     * @param capacity data capacity
     * @param maxMessageLength largest payload
     * @param maxMessages most messages in flight
     * @param alignment record alignment; see {@link ShmRingDescriptor#checkAlignment}
     * @param arena owns the mapping; closing it unmaps
     * @return the mapped ring
     * @throws UncheckedIOException if the file exists or cannot be created, or its storage cannot be reserved
     *     (a full tmpfs, say), naming it
     */
    public static MemorySegment create(final Path path, final int capacity, final int maxMessageLength,
        final int maxMessages, final int alignment, final Arena arena) {
        ShmRingDescriptor.checkParameters(capacity, maxMessageLength, maxMessages);
        ShmRingDescriptor.checkAlignment(alignment);
        try {
            try {
                Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (final UnsupportedOperationException ex) {
                Files.createFile(path); // not a POSIX file system: the folder's protection applies
            }
        } catch (final FileAlreadyExistsException ex) {
            throw new UncheckedIOException("ring file " + path + " already exists; refusing to reuse it", ex);
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot create ring file " + path + ": " + ex.getMessage(), ex);
        }
        // from here on the file is this call's: a failure removes it, so that the caller has nothing to clean up
        try {
            // every page now: a sparse mapping on a full tmpfs would fail later, with SIGBUS on a store
            FileSpace.reserve(path, ShmRingDescriptor.fileLength(capacity), "ring file",
                "choose another ring directory");
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0,
                    ShmRingDescriptor.fileLength(capacity), arena);
                ShmRingDescriptor.initialise(segment, capacity, maxMessageLength, maxMessages, alignment);
                return segment;
            }
        } catch (final IOException ex) {
            delete(path);
            throw new UncheckedIOException("cannot create ring file " + path + ": " + ex.getMessage(), ex);
        } catch (final RuntimeException | Error ex) {
            delete(path);
            throw ex;
        }
    }

    /**
     * Maps an existing ring file after checking its size and header.
     *
     * @param path the file
     * @param expectedCapacity the capacity agreed on
     * @param expectedMaxMessageLength the maximum payload agreed on
     * @param arena owns the mapping
     * @return the mapped ring
     * @throws IllegalStateException if the file is not a ring this process may trust, saying why
     * @throws UncheckedIOException if it cannot be opened, naming it
     */
    public static MemorySegment map(final Path path, final int expectedCapacity, final int expectedMaxMessageLength,
        final Arena arena) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final long size = channel.size();
            final long expectedSize = ShmRingDescriptor.fileLength(expectedCapacity);
            if (size != expectedSize) {
                throw new IllegalStateException("ring file " + path + " refused: size=" + size
                    + " does not match capacity=" + expectedCapacity + " (expected " + expectedSize + " bytes)");
            }
            final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            final String invalid = ShmRingDescriptor.validate(segment, expectedCapacity, expectedMaxMessageLength);
            if (invalid != null) {
                throw new IllegalStateException("ring file " + path + " refused: " + invalid);
            }
            return segment;
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot map ring file " + path, ex);
        }
    }

    /**
     * Removes a ring file if it is still there.
     *
     * @param path the file
     * @return whether it was removed
     */
    public static boolean delete(final Path path) {
        try {
            return Files.deleteIfExists(path);
        } catch (final IOException ex) {
            return false;
        }
    }

    /**
     * Removes ring files left by processes that are no longer alive (after a crash or {@code kill -9}).
     *
     * <p>The pid in a name is judged in this process's pid namespace only. A process of another pid namespace that
     * shares the folder (another container's, with {@code /dev/shm} shared) and whose pid is not in use here is taken
     * for dead: its files are removed even while it lives. A ring file is only needed by name while its rendezvous is
     * in progress, so what that costs is the rendezvous going on at that moment, which fails; give such processes
     * folders of their own ({@link ShmOptions#ringDirectory}).
     *
     * @param directory the folder to clean
     * @return how many files were removed
     */
    public static int cleanLeftovers(final Path directory) {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PREFIX + "*")) {
            for (final Path file : files) {
                final String name = file.getFileName().toString();
                final int end = name.indexOf('-', PREFIX.length());
                if (end < 0) {
                    continue;
                }
                final long pid;
                try {
                    pid = Long.parseLong(name.substring(PREFIX.length(), end));
                } catch (final NumberFormatException ex) {
                    continue;
                }
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                if (delete(file)) {
                    removed++;
                }
            }
        } catch (final IOException ex) {
            return removed;
        }
        return removed;
    }
}
