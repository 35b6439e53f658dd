package dev.peregrine.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * A file kept open from attach to close so that a check made again and again on it allocates nothing: its size and
 * inode through {@code fstat(2)} into a segment allocated once, and whether another process holds an exclusive
 * {@code flock} on it ({@link FileLocks#trySharedAndRelease}). Opening by path each time (a path string, a confined
 * arena, a descriptor) allocates. Both calls are linked without {@code errno} capture, so they allocate nothing even
 * in code the JIT has not compiled with escape analysis (a check every 50 ms stays in C1 code for minutes).
 *
 * <ul>
 *   <li>The descriptor is read only, opened without following a link ({@link FileLocks#openToProbe}).</li>
 *   <li>A file missing at {@link #open} is not an error: the descriptor is -1 until {@link #reopenIfReplaced} finds
 *       one under the name.</li>
 *   <li>A file replaced under its name (removed and made again) leaves the descriptor on the old one. Callers look
 *       again with {@link #reopenIfReplaced} on their rare path (a lock found free); only that call allocates.</li>
 * </ul>
 *
 * <p>Not thread-safe: one thread probes. Needs {@link FileLocks#isAvailable()} (else every probe answers
 * {@link #UNKNOWN} and every size -1).
 */
@SuppressWarnings("restricted") // a native call is this class's purpose; callers enable native access
public final class KeptFile implements AutoCloseable {
    /** {@link #lockState}: another open file description holds an exclusive lock. */
    public static final int HELD = 1;
    /** {@link #lockState}: no one holds an exclusive lock. */
    public static final int FREE = 0;
    /** {@link #lockState}: it cannot be told (no descriptor open, or a bad one). */
    public static final int UNKNOWN = -1;
    /** {@code struct stat}'s {@code st_ino}: the same offset on x86_64 and aarch64 (asm-generic). */
    private static final long ST_INO_OFFSET = 8;
    /** {@code struct stat}'s {@code st_size}: the same offset on x86_64 (144-byte struct) and aarch64 (128). */
    private static final long ST_SIZE_OFFSET = 48;
    private static final long STAT_BYTES = 256;
    /** {@code fstat} calls made at class initialisation: past the JDK's method handle customisation (127). */
    private static final int LINK_CALLS = 256;
    private static final long SYS_FSTAT;
    private static final MethodHandle SYSCALL;

    static {
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        long number = -1;
        if ("amd64".equals(arch) || "x86_64".equals(arch)) {
            number = 5;
        } else if ("aarch64".equals(arch) || "arm64".equals(arch)) {
            number = 80;
        }
        MethodHandle syscall = null;
        if (number >= 0 && FileLocks.isAvailable()) {
            try {
                final Linker linker = Linker.nativeLinker();
                final Optional<MemorySegment> symbol = linker.defaultLookup().find("syscall");
                if (symbol.isPresent()) {
                    // long syscall(long number, ...): fstat(int fd, struct stat *buffer), each a full register
                    syscall = linker.downcallHandle(symbol.get(), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                        Linker.Option.firstVariadicArg(1));
                }
            } catch (final RuntimeException ex) {
                syscall = null; // then size and inode answer -1: callers treat that as "cannot be told"
            }
        }
        SYS_FSTAT = number;
        SYSCALL = syscall;
        if (syscall != null) {
            linkFstat();
        }
    }

    /**
     * Makes the first {@link #LINK_CALLS} {@code fstat} calls here, at class initialisation, on descriptor -1 (the
     * kernel answers {@code EBADF} at once). A downcall's first call links it (some hundreds of KB, once per JVM), and
     * in code C2 has not compiled the JDK customises a method handle's lambda form after its 127th call (some tens of
     * KB). A broadcast reader's idle check (every 50 ms) and a writer's probe of a stalled reader (every 10 ms) stay in
     * such code for minutes, so both came in the middle of a run: a bench reader's 128th {@code fstat} allocated in its
     * measured window (JFR). The buffer is in a shared arena, as the callers' are (a log's reader and writer): the
     * first call with such a segment links more than with a confined one.
     */
    private static void linkFstat() {
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment stat = arena.allocate(STAT_BYTES, 8);
            for (int i = 0; i < LINK_CALLS; i++) {
                fstat(-1, stat);
            }
        } catch (final RuntimeException ex) {
            // left to the first real call, which answers -1 ("cannot be told") if it fails too
        }
    }

    private final Path path;
    private final MemorySegment stat;
    private int fd;

    private KeptFile(final Path path, final Arena arena) {
        this.path = path;
        this.stat = arena.allocate(STAT_BYTES, 8);
        this.fd = FileLocks.openToProbe(path);
    }

    /**
     * Opens a file to keep; a missing file leaves the descriptor at -1.
     *
     * @param path the file
     * @param arena where the native buffers live; close this before the arena
     * @return the kept file
     */
    public static KeptFile open(final Path path, final Arena arena) {
        return new KeptFile(path, arena);
    }

    /**
     * The kept descriptor.
     *
     * @return the descriptor, or -1 if none is open
     */
    public int fd() {
        return fd;
    }

    /**
     * The size of the file the descriptor is open on, even if its name was removed since. Allocates nothing.
     *
     * @return bytes, or -1 if no descriptor is open or {@code fstat} failed
     */
    public long size() {
        return fstat() ? stat.get(ValueLayout.JAVA_LONG, ST_SIZE_OFFSET) : -1;
    }

    /**
     * The inode of the file the descriptor is open on. Allocates nothing.
     *
     * @return the inode, or -1 if no descriptor is open or {@code fstat} failed
     */
    public long inode() {
        return fstat() ? stat.get(ValueLayout.JAVA_LONG, ST_INO_OFFSET) : -1;
    }

    /**
     * Whether another open file description holds an exclusive lock on the kept file. Allocates nothing. A refused
     * {@code flock} on a descriptor that {@code fstat} still takes is read as held: its only other cause is the
     * kernel out of lock memory, and "held" is the safe answer there (no writer reported gone, no reader evicted as
     * dead, on a guess).
     *
     * @return {@link #HELD}, {@link #FREE}, or {@link #UNKNOWN} (no descriptor open, or a bad one)
     */
    public int lockState() {
        if (fd < 0) {
            return UNKNOWN;
        }
        if (FileLocks.trySharedAndRelease(fd)) {
            return FREE;
        }
        return fstat() ? HELD : UNKNOWN;
    }

    /**
     * Opens the file under the name again if it is not the one kept (removed and made again, or missing at
     * {@link #open}). The rare path: it allocates.
     *
     * @return true if a new descriptor is now kept
     */
    public boolean reopenIfReplaced() {
        final long named;
        try {
            named = FileLocks.inode(path);
        } catch (final IOException ex) {
            return false; // no file under the name: the kept one, if any, is all there is
        }
        if (fd >= 0 && named >= 0 && named == inode()) {
            return false;
        }
        final int fresh = FileLocks.openToProbe(path);
        if (fresh < 0) {
            return false;
        }
        FileLocks.close(fd);
        fd = fresh;
        return true;
    }

    private boolean fstat() {
        return fd >= 0 && SYSCALL != null && fstat(fd, stat);
    }

    /** The one call site of the downcall: the one {@link #linkFstat} links and takes past its customisation. */
    private static boolean fstat(final long fd, final MemorySegment stat) {
        try {
            return (long)SYSCALL.invokeExact(SYS_FSTAT, fd, stat) == 0;
        } catch (final Throwable ex) {
            return false;
        }
    }

    /** Closes the descriptor; the native buffers go with the caller's arena. */
    @Override
    public void close() {
        FileLocks.close(fd);
        fd = -1;
    }
}
