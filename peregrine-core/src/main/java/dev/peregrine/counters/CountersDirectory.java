package dev.peregrine.counters;

import dev.peregrine.internal.FileLocks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Where counters files live, which of them belong to running processes, and whether a directory may hold them.
 *
 * <p>The default directory is {@code $XDG_RUNTIME_DIR/peregrine} (a per-user tmpfs on systemd hosts), else
 * {@code /dev/shm/peregrine-<user>}, else {@code <java.io.tmpdir>/peregrine-<user>}. The rules:
 * <ul>
 *   <li>A directory is used only if it is a real directory (not a symbolic link), owned by this process's user,
 *       with mode 0700; a missing one is made so, atomically ({@link #refusal}).</li>
 *   <li>A file is named {@code <pid>-<start>-<random>.counters}: the owner's pid, its start time and a random part,
 *       so that processes with the same pid in different pid namespaces, sharing {@code /dev/shm}, never collide.</li>
 *   <li>Its owner holds an exclusive {@code flock(2)} on it for as long as it owns it. A file whose lock can be taken
 *       is dead, and may be removed by anyone; a file whose lock is held is alive, whatever its pid means here.</li>
 * </ul>
 *
 * <p>A file named {@code <pid>.counters} (an older version's, which holds no lock, or one given to
 * {@link CountersManager#create}) is also alive while the pid and start time in its header run here. Where
 * {@code flock} cannot be called through the FFM API (not Linux, or no native access) every file is judged that way,
 * which only works within one pid namespace.
 */
public final class CountersDirectory {
    private static final String TEMPORARY_GLOB = ".*" + CountersManager.FILE_SUFFIX + "-*.tmp";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

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

    /**
     * Makes the directory if it is missing (mode 0700, in one step) and says whether it may hold counters files:
     * another user who made it, or could write to it, could delete this process's file or plant forged ones.
     *
     * @param directory the directory
     * @return null if it may be used, otherwise what is wrong with it, e.g. "has mode 0777, not 0700"
     */
    public static String refusal(final Path directory) {
        try {
            if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
                final Path parent = directory.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                try {
                    Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                } catch (final FileAlreadyExistsException ex) {
                    // made by someone else meanwhile: judged below like any existing one
                }
            }
            final PosixFileAttributes attributes = Files.readAttributes(directory, PosixFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink()) {
                return "is a symbolic link";
            }
            if (!attributes.isDirectory()) {
                return "is not a directory";
            }
            final String owner = ownerProblem(directory, attributes);
            if (owner != null) {
                return owner;
            }
            if (!attributes.permissions().equals(OWNER_ONLY)) {
                return "has mode " + mode(attributes.permissions()) + ", not 0700";
            }
            return null;
        } catch (final UnsupportedOperationException ex) {
            return null; // not a POSIX file system (Windows): its own access control applies
        } catch (final IOException ex) {
            return "cannot be made or read: " + ex;
        }
    }

    private static String ownerProblem(final Path directory, final PosixFileAttributes attributes) throws IOException {
        final long self = FileLocks.effectiveUid();
        if (self >= 0) {
            final Object uid = Files.getAttribute(directory, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (uid instanceof Integer owner && Integer.toUnsignedLong(owner) != self) {
                return "is owned by uid " + Integer.toUnsignedLong(owner) + ", not by this process's uid " + self;
            }
            return null;
        }
        final String user = System.getProperty("user.name", "");
        if (!attributes.owner().getName().equals(user)) {
            return "is owned by " + attributes.owner().getName() + ", not by this process's user " + user;
        }
        return null;
    }

    private static String mode(final Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (final PosixFilePermission permission : permissions) {
            mode |= 1 << (8 - permission.ordinal()); // OWNER_READ first: 0400
        }
        return String.format("0%03o", mode);
    }

    /**
     * A new name for a counters file of this process: its pid, its start time, a random part.
     *
     * @param directory the directory
     * @return the file, {@code <pid>-<start ms>-<random>.counters}
     */
    public static Path newFile(final Path directory) {
        final ProcessHandle self = ProcessHandle.current();
        return directory.resolve(self.pid() + "-" + startMillis(self) + "-"
            + Long.toHexString(new SecureRandom().nextLong() >>> 1) + CountersManager.FILE_SUFFIX);
    }

    /** A temporary name a file is made under, locked, before it is renamed into place. */
    static Path temporaryOf(final Path file) {
        return file.resolveSibling("." + file.getFileName() + "-" + Long.toHexString(new SecureRandom().nextLong() >>> 1)
            + ".tmp");
    }

    /**
     * The counters files in a directory, sorted by process id.
     *
     * @param directory the directory; a missing one has no files
     * @return the files, named {@code <pid>-<start>-<random>.counters} (or {@code <pid>.counters}, as older versions
     *     and {@link CountersManager#create} callers name them)
     */
    public static List<Path> files(final Path directory) {
        final List<Path> files = list(directory, "*" + CountersManager.FILE_SUFFIX);
        files.removeIf(file -> pidOf(file) <= 0);
        files.sort((a, b) -> Long.compare(pidOf(a), pidOf(b)));
        return files;
    }

    private static List<Path> list(final Path directory, final String glob) {
        final List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return files;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, glob)) {
            for (final Path file : stream) {
                files.add(file);
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot list counters directory " + directory + ": " + ex.getMessage(), ex);
        }
        return files;
    }

    /**
     * The process id in a counters file's name.
     *
     * @param file the file
     * @return the pid, or -1 if the name is neither {@code <pid>-<start>-<random>.counters} nor {@code <pid>.counters}
     */
    public static long pidOf(final Path file) {
        final String name = file.getFileName().toString();
        if (!name.endsWith(CountersManager.FILE_SUFFIX)) {
            return -1;
        }
        final String stem = name.substring(0, name.length() - CountersManager.FILE_SUFFIX.length());
        final int dash = stem.indexOf('-');
        try {
            return Long.parseLong(dash < 0 ? stem : stem.substring(0, dash));
        } catch (final NumberFormatException ex) {
            return -1;
        }
    }

    /**
     * The counters file of a process, as {@code ./peregrine stat <pid>} looks for it.
     *
     * @param directory the directory
     * @param pid the process id
     * @return its file: of the files named for this pid, one whose owner is alive, else the last by name; null if
     *     there is none
     */
    public static Path fileOf(final Path directory, final long pid) {
        Path found = null;
        for (final Path file : files(directory)) {
            if (pidOf(file) == pid) {
                if (isOwnerAlive(file, pid, 0)) {
                    return file;
                }
                found = file;
            }
        }
        return found;
    }

    /**
     * Whether a process runs with this pid and started at this time, as seen from this process's pid namespace.
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
     * Whether the owner of a counters file still owns it: it holds the file's lock. Without {@code flock}, whether
     * the pid and start time of its header run here.
     */
    static boolean isOwnerAlive(final Path file, final long pid, final long startMillis) {
        if (!FileLocks.isAvailable()) {
            return isAlive(pid, startMillis);
        }
        try {
            if (FileLocks.isHeld(file)) {
                return true;
            }
        } catch (final IOException ex) {
            return true; // cannot tell: never judged dead on a guess
        }
        return isPidOnlyName(file) && isAlive(pid, startMillis);
    }

    /**
     * Whether a file is named {@code <pid>.counters}: made by an older version, which holds no lock, or by a
     * {@link CountersManager#create} caller, which does. Its header's pid then also keeps it alive.
     */
    private static boolean isPidOnlyName(final Path file) {
        return file.getFileName().toString().indexOf('-') < 0;
    }

    /**
     * Removes the files of processes that are gone: counters files whose lock nobody holds, and the temporary
     * files of makings cut short. A file is removed only if it is a regular file, empty or beginning as a counters
     * file does; any other file is not this directory's and is left alone, whatever its name. Nothing is removed
     * from a directory that {@link #refusal} refuses.
     *
     * <p>Without {@code flock} a file is dead if the pid and start time in its header (or, unreadable, the pid in
     * its name) do not run here, and temporary files are left alone.
     *
     * @param directory the directory
     * @return the files removed
     */
    public static List<Path> removeDead(final Path directory) {
        final List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS) || refusal(directory) != null) {
            return removed;
        }
        final List<Path> candidates = files(directory);
        if (FileLocks.isAvailable()) {
            candidates.addAll(list(directory, TEMPORARY_GLOB));
        }
        for (final Path file : candidates) {
            if (removeIfDead(file)) {
                removed.add(file);
            }
        }
        return removed;
    }

    private static boolean removeIfDead(final Path file) {
        if (!FileLocks.isAvailable()) {
            final long inode;
            try {
                inode = FileLocks.inode(file);
            } catch (final IOException ex) {
                return false; // gone meanwhile
            }
            return isDeadByHeader(file, pidOf(file)) && startsAsCountersFile(file) && removeInode(file, inode);
        }
        final int fd = FileLocks.openToProbe(file);
        if (fd < 0) {
            return false; // gone meanwhile, or a link: nothing a manager makes
        }
        try {
            // exclusive: two clean-ups never both judge one file, and a maker that has not locked its new temporary
            // file yet fails to, and makes another
            if (!FileLocks.tryLock(fd, true)) {
                return false; // its owner holds it: alive
            }
            return startsAsCountersFile(file) && (!isPidOnlyName(file) || isDeadByHeader(file, pidOf(file)))
                && removeInode(file, FileLocks.inode(fd));
        } catch (final IOException ex) {
            return false; // cannot tell: left alone
        } finally {
            FileLocks.close(fd);
        }
    }

    /**
     * Removes the file the name has if it is still the judged one: an owner may have renamed a new file onto the name
     * since ({@link CountersManager#create} replaces a dead file of its name). The name is taken out of everyone's way
     * first, the file so moved checked, and put back if it is another.
     */
    static boolean removeInode(final Path file, final long judged) {
        final Path aside = file.resolveSibling(file.getFileName() + ".removing-" + ProcessHandle.current().pid() + "-"
            + Long.toHexString(System.nanoTime()));
        try {
            Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (final IOException ex) {
            return false; // removed meanwhile, or not ours to move
        }
        try {
            if (judged >= 0 && FileLocks.inode(aside) == judged) {
                Files.delete(aside);
                return true;
            }
            Files.move(aside, file, StandardCopyOption.ATOMIC_MOVE); // a live file: back under its name
        } catch (final IOException ex) {
            // left aside; no reader lists it
        }
        return false;
    }

    private static boolean isDeadByHeader(final Path file, final long namePid) {
        try (CountersReader reader = CountersReader.open(file)) {
            return !isAlive(reader.pid(), reader.processStartMillis());
        } catch (final RuntimeException ex) {
            return startsAsCountersFile(file) && !isAlive(namePid, 0);
        }
    }

    /** Whether a file is empty or begins with the magic, or with the zeros it replaces while the file is made. */
    private static boolean startsAsCountersFile(final Path file) {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return false; // a FIFO, a folder, a link: nothing a manager makes
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
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
