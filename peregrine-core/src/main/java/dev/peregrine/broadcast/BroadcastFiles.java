package dev.peregrine.broadcast;

import dev.peregrine.counters.CountersDirectory;
import dev.peregrine.internal.FileLocks;
import dev.peregrine.internal.FileSpace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Where broadcast logs live, how they are made and mapped, and the lock files that say who is alive.
 *
 * <ul>
 *   <li>A log named {@code N} is the file {@code N.bcast} in a directory checked as the counters directory is
 *       ({@link CountersDirectory#refusal}: a real directory, this user's, mode 0700); the file is mode 0600.</li>
 *   <li>The writer holds an exclusive {@code flock(2)} on {@code N.bcast.writer}, each reader one on
 *       {@code N.bcast.r<entry>}: a lock the kernel lets go when the process dies, whatever its pid means here.</li>
 * </ul>
 */
final class BroadcastFiles {
    static final String SUFFIX = ".bcast";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private BroadcastFiles() {
    }

    static Path logPath(final Path directory, final String name) {
        if (name == null || !NAME.matcher(name).matches() || name.startsWith(".")) {
            throw new IllegalArgumentException("name=" + name + " must be 1 to 64 of [A-Za-z0-9._-], not starting with"
                + " '.'");
        }
        return directory.resolve(name + SUFFIX);
    }

    static Path writerLockPath(final Path log) {
        return log.resolveSibling(log.getFileName() + ".writer");
    }

    static Path readerLockPath(final Path log, final int entry) {
        return log.resolveSibling(log.getFileName() + ".r" + entry);
    }

    static void checkDirectory(final Path directory) {
        final String refusal = CountersDirectory.refusal(directory);
        if (refusal != null) {
            throw new IllegalStateException("directory=" + directory + " refused for broadcast logs: it " + refusal);
        }
    }

    /** Creates the file (0600, failing if it exists), reserves its pages and writes the header; removed on failure. */
    static void create(final Path path, final BroadcastLogOptions options) {
        checkDirectory(path.toAbsolutePath().getParent());
        final long length = BroadcastDescriptor.fileLength(options.capacity(), options.maxRecordLength(),
            options.readers());
        try {
            Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (final FileAlreadyExistsException ex) {
            throw new IllegalStateException("broadcast log " + path + " already exists", ex);
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot create broadcast log " + path + ": " + ex.getMessage(), ex);
        }
        try (Arena arena = Arena.ofConfined()) {
            // every page now: a sparse mapping on a full tmpfs fails later, with SIGBUS on a store
            FileSpace.reserve(path, length, "broadcast log", "choose another directory");
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
                BroadcastDescriptor.initialise(segment, options.capacity(), options.maxRecordLength(),
                    options.readers(), options.policy(), options.initialPosition(), options.idleTimeoutMs());
            }
        } catch (final IOException ex) {
            delete(path);
            throw new UncheckedIOException("cannot create broadcast log " + path + ": " + ex.getMessage(), ex);
        } catch (final RuntimeException | Error ex) {
            delete(path);
            throw ex;
        }
    }

    /** A mapped, checked log. */
    record Mapped(MemorySegment segment, BroadcastDescriptor.Geometry geometry) {
    }

    /** Maps an existing log and checks its header against its real size. */
    static Mapped map(final Path path, final Arena arena) {
        if (Files.isSymbolicLink(path)) {
            throw new IllegalStateException("broadcast log " + path + " refused: it is a symbolic link");
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS)) {
            final long size = channel.size();
            if (size < BroadcastDescriptor.READERS_TABLE_OFFSET) {
                throw new IllegalStateException("broadcast log " + path + " refused: file is " + size
                    + " bytes, shorter than a header (" + BroadcastDescriptor.READERS_TABLE_OFFSET + ")");
            }
            final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            try {
                return new Mapped(segment, BroadcastDescriptor.geometry(segment, size));
            } catch (final IllegalArgumentException ex) {
                throw new IllegalStateException("broadcast log " + path + " refused: " + ex.getMessage(), ex);
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot map broadcast log " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** Attempts at an exclusive lock that only probes' shared locks refuse. */
    static final int LOCK_ATTEMPTS = 100_000;
    /** Exclusive locks refused by a probe's shared lock and tried again, all logs of this process; for tests. */
    static final AtomicLong PROBES_WAITED_OUT = new AtomicLong();

    /**
     * Takes the exclusive lock on a lock file, making it (0600) if missing. Holders lock exclusively; a liveness probe
     * ({@link dev.peregrine.internal.KeptFile#lockState}) holds a shared lock for the length of two system calls. An
     * exclusive lock refused while a shared one is still to be had is such a probe, not a holder: taken again, up to
     * {@value #LOCK_ATTEMPTS} times, so a reader's or writer's probe never makes a new writer or reader take a free
     * lock for a held one.
     *
     * @return the descriptor holding the lock, -1 if another process holds it
     */
    static int lock(final Path lockFile) {
        if (!FileLocks.isAvailable()) {
            throw new IllegalStateException("broadcast logs need flock: " + FileLocks.unavailableReason());
        }
        try {
            try {
                Files.createFile(lockFile, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
            } catch (final FileAlreadyExistsException ex) {
                // a previous holder's: whose lock it is decides, not whether it exists
            }
            final int fd = FileLocks.openToProbe(lockFile);
            if (fd < 0) {
                throw new IOException("cannot open it (a link, or not this user's)");
            }
            for (int attempt = 1; ; attempt++) {
                if (FileLocks.tryLock(fd, true)) {
                    return fd;
                }
                // refused: a holder (its exclusive lock refuses a shared one too), or a probe's brief shared lock
                if (attempt == LOCK_ATTEMPTS || !FileLocks.trySharedAndRelease(fd)) {
                    FileLocks.close(fd);
                    return -1;
                }
                PROBES_WAITED_OUT.incrementAndGet();
                Thread.yield(); // a probe holds it for two system calls: let its thread finish them
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot lock " + lockFile + ": " + ex.getMessage(), ex);
        }
    }

    /** Whether some process holds a lock on the file; false when it cannot be told (then taken for gone). */
    static boolean isHeld(final Path lockFile) {
        try {
            return FileLocks.isHeld(lockFile);
        } catch (final IOException ex) {
            return false;
        }
    }

    static void delete(final Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (final IOException ex) {
            // nothing to do: a leftover file is refused or reused by name later
        }
    }
}
