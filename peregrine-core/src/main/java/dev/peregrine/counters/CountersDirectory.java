package dev.peregrine.counters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Where counters files live, and which of them belong to running processes.
 *
 * <p>The default directory is {@code $XDG_RUNTIME_DIR/peregrine} (a per-user tmpfs on systemd hosts), else
 * {@code /dev/shm/peregrine-<user>}, else {@code <java.io.tmpdir>/peregrine-<user>}; it is made with mode
 * 0700. A file whose owner is gone (its pid no longer runs, or runs a process that started at another
 * time) is dead, and may be removed by anyone.
 */
public final class CountersDirectory {
    private CountersDirectory() {
    }

    /**
     * The default directory of counters files for this user.
     *
     * @return the directory (maybe not made yet)
     */
    public static Path defaultDirectory() {
        final String runtime = System.getenv("XDG_RUNTIME_DIR");
        if (runtime != null && !runtime.isEmpty() && Files.isDirectory(Path.of(runtime))) {
            return Path.of(runtime, "peregrine");
        }
        final String user = System.getProperty("user.name", "unknown").replaceAll("[^A-Za-z0-9._-]", "_");
        final Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return shm.resolve("peregrine-" + user);
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "peregrine-" + user);
    }

    /**
     * The directory the process-wide counters of this JVM go to: the system property
     * {@value CountersManager#DIRECTORY_PROPERTY} if set, else {@link #defaultDirectory()}.
     *
     * @return the directory
     */
    public static Path configuredDirectory() {
        final String configured = System.getProperty(CountersManager.DIRECTORY_PROPERTY);
        return configured == null || configured.isEmpty() ? defaultDirectory() : Path.of(configured);
    }

    /** Makes the directory, mode 0700, if it does not exist. */
    static void ensureDirectory(final Path directory) {
        try {
            if (!Files.isDirectory(directory)) {
                try {
                    Files.createDirectories(directory,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (final UnsupportedOperationException ex) {
                    Files.createDirectories(directory);
                }
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot make counters directory " + directory + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * The counters files in a directory, sorted by process id.
     *
     * @param directory the directory; a missing one has no files
     * @return the files, named {@code <pid>.counters}
     */
    public static List<Path> files(final Path directory) {
        final List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return files;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, "*" + CountersManager.FILE_SUFFIX)) {
            for (final Path file : stream) {
                if (pidOf(file) > 0) {
                    files.add(file);
                }
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot list counters directory " + directory + ": " + ex.getMessage(), ex);
        }
        files.sort((a, b) -> Long.compare(pidOf(a), pidOf(b)));
        return files;
    }

    /**
     * The process id in a counters file's name.
     *
     * @param file the file
     * @return the pid, or -1 if the name is not {@code <pid>.counters}
     */
    public static long pidOf(final Path file) {
        final String name = file.getFileName().toString();
        if (!name.endsWith(CountersManager.FILE_SUFFIX)) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(0, name.length() - CountersManager.FILE_SUFFIX.length()));
        } catch (final NumberFormatException ex) {
            return -1;
        }
    }

    /**
     * Whether a process runs with this pid and started at this time.
     *
     * @param pid the process id
     * @param startMillis its start time, epoch milliseconds, or 0 if unknown (the pid alone then decides)
     * @return true if it runs
     */
    public static boolean isAlive(final long pid, final long startMillis) {
        final ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
        if (handle == null || !handle.isAlive()) {
            return false;
        }
        final long actual = startMillis(handle);
        // a pid reused by a later process has a later start; the clock-tick rounding of /proc is well under 1 s
        return startMillis == 0 || actual == 0 || Math.abs(actual - startMillis) < 1000;
    }

    /**
     * Removes the files of processes that are gone. A file that cannot be read as a counters file is removed
     * if its name's pid does not run and it is empty or starts as a counters file does (its making was cut
     * short, or it is damaged, or of another layout version); any other file is not this directory's and is
     * left alone, whatever its name.
     *
     * @param directory the directory
     * @return the files removed
     */
    public static List<Path> removeDead(final Path directory) {
        final List<Path> removed = new ArrayList<>();
        final long self = ProcessHandle.current().pid();
        for (final Path file : files(directory)) {
            final long pid = pidOf(file);
            if (pid == self || !isDead(file, pid)) {
                continue;
            }
            // the process that now has this pid may have replaced the judged file with its own since: take what
            // has the name out of everyone's way, judge that, and put it back if it lives
            final Path aside = file.resolveSibling(file.getFileName() + ".removing-" + self);
            try {
                Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
            } catch (final IOException ex) {
                continue; // removed meanwhile, or not ours to move
            }
            try {
                if (isDead(aside, pid)) {
                    Files.delete(aside);
                    removed.add(file);
                } else {
                    Files.move(aside, file); // never over a file: none but its owner makes one of this name
                }
            } catch (final IOException ex) {
                // left aside; no reader lists it
            }
        }
        return removed;
    }

    private static boolean isDead(final Path file, final long namePid) {
        try (CountersReader reader = CountersReader.open(file)) {
            return !reader.isOwnerAlive();
        } catch (final RuntimeException ex) {
            return startsAsCountersFile(file) && !isAlive(namePid, 0);
        }
    }

    /** Whether a file is empty or begins with the magic, or with the zeros it replaces while the file is made. */
    private static boolean startsAsCountersFile(final Path file) {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return false; // a FIFO, a folder, a link: nothing a manager makes
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final ByteBuffer magic = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder());
            while (magic.hasRemaining() && channel.read(magic, magic.position()) > 0) {
                // a regular file: reads until its end
            }
            if (magic.position() == 0) {
                return true;
            }
            return !magic.hasRemaining() && (magic.getLong(0) == 0 || magic.getLong(0) == CountersDescriptor.MAGIC);
        } catch (final IOException ex) {
            return false; // unreadable: not to be removed on a guess
        }
    }

    static long startMillis(final ProcessHandle handle) {
        return handle.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }
}
