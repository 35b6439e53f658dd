package dev.peregrine.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Whole-file {@code flock(2)} locks held on descriptors from {@code open(2)}, both called through the FFM API: how a
 * process shows that a file it made is still its own (the counters files). A {@code flock} lock belongs to the open
 * file description, so it lasts until that descriptor is closed or the process dies, whatever else the process
 * opens or closes on the file; a POSIX record lock ({@code FileChannel.tryLock}) is dropped by the close of any
 * channel of the file in the process, and so cannot be used for this.
 *
 * <p>Available on Linux x86_64 and aarch64 (whose {@code O_NOFOLLOW} differ); elsewhere, or without native access,
 * {@link #unavailableReason()} says why and callers judge liveness another way.
 */
@SuppressWarnings("restricted") // native calls are this class's purpose; callers enable native access
public final class FileLocks {
    /** {@code errno} of a {@code flock(LOCK_NB)} on a file another open file description holds. */
    private static final int EWOULDBLOCK = 11;
    private static final int LOCK_SH = 1;
    private static final int LOCK_EX = 2;
    private static final int LOCK_NB = 4;
    private static final int LOCK_UN = 8;
    private static final int O_RDONLY = 0;
    private static final int O_RDWR = 2;
    private static final int O_CREAT = 0x40;
    private static final int O_EXCL = 0x80;
    private static final int O_NONBLOCK = 0x800; // a FIFO under a file's name: open does not wait for a writer
    private static final int O_CLOEXEC = 0x80000;
    private static final int MODE_0600 = 0x180;
    private static final int O_NOFOLLOW;
    private static final MethodHandle OPEN;
    private static final MethodHandle FLOCK;
    private static final MethodHandle FLOCK_PLAIN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle GETEUID;
    private static final StructLayout CAPTURE;
    private static final VarHandle ERRNO;
    private static final String UNAVAILABLE;
    /** Probe calls made at class initialisation: past the JDK's method handle customisation (127). */
    private static final int LINK_CALLS = 256;

    static {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        int noFollow = 0;
        MethodHandle open = null;
        MethodHandle flock = null;
        MethodHandle flockPlain = null;
        MethodHandle close = null;
        MethodHandle geteuid = null;
        StructLayout capture = null;
        VarHandle errno = null;
        String unavailable = null;
        if (!os.contains("linux")) {
            unavailable = "flock through FFM is Linux only, this is " + System.getProperty("os.name");
        } else if ("amd64".equals(arch) || "x86_64".equals(arch)) {
            noFollow = 0x20000;
        } else if ("aarch64".equals(arch) || "arm64".equals(arch)) {
            noFollow = 0x8000;
        } else {
            unavailable = "open flags are not known for os.arch=" + arch + " (known: amd64, aarch64)";
        }
        if (unavailable == null) {
            try {
                final Linker linker = Linker.nativeLinker();
                final SymbolLookup libc = linker.defaultLookup();
                capture = Linker.Option.captureStateLayout();
                errno = capture.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                final Linker.Option captureErrno = Linker.Option.captureCallState("errno");
                final ValueLayout.OfInt i32 = ValueLayout.JAVA_INT;
                // int open(const char *path, int flags, ...): the mode is the one variadic argument
                open = handle(linker, libc, "open", FunctionDescriptor.of(i32, ValueLayout.ADDRESS, i32, i32),
                    captureErrno, Linker.Option.firstVariadicArg(2));
                flock = handle(linker, libc, "flock", FunctionDescriptor.of(i32, i32, i32), captureErrno);
                flockPlain = handle(linker, libc, "flock", FunctionDescriptor.of(i32, i32, i32));
                close = handle(linker, libc, "close", FunctionDescriptor.of(i32, i32));
                geteuid = handle(linker, libc, "geteuid", FunctionDescriptor.of(i32));
            } catch (final RuntimeException ex) {
                unavailable = "FFM downcalls unavailable (run with --enable-native-access): " + ex.getMessage();
            }
        }
        final boolean complete = unavailable == null;
        O_NOFOLLOW = noFollow;
        OPEN = complete ? open : null;
        FLOCK = complete ? flock : null;
        FLOCK_PLAIN = complete ? flockPlain : null;
        CLOSE = complete ? close : null;
        GETEUID = complete ? geteuid : null;
        CAPTURE = complete ? capture : null;
        ERRNO = complete ? errno : null;
        UNAVAILABLE = unavailable;
        if (complete) {
            linkProbe();
        }
    }

    /**
     * Makes the first {@link #LINK_CALLS} calls of {@link #trySharedAndRelease}'s {@code flock} here, at class
     * initialisation, on descriptor -1 (the kernel answers {@code EBADF} at once). A downcall's first call links it,
     * and in code C2 has not compiled the JDK customises a method handle's lambda form after its 127th call (some tens
     * of KB); the probe is made every 50 ms by an idle broadcast reader and every 10 ms by a writer held back by a
     * reader, and stays in such code for minutes, so both came in the middle of a run.
     */
    private static void linkProbe() {
        for (int i = 0; i < LINK_CALLS; i++) {
            flockPlain(-1, LOCK_SH | LOCK_NB);
        }
    }

    private FileLocks() {
    }

    private static MethodHandle handle(final Linker linker, final SymbolLookup libc, final String name,
        final FunctionDescriptor descriptor, final Linker.Option... options) {
        return linker.downcallHandle(libc.find(name)
            .orElseThrow(() -> new IllegalStateException(name + " is not in the C library")), descriptor, options);
    }

    /**
     * Why locks cannot be taken here.
     *
     * @return null if they can, otherwise the reason in one sentence
     */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    /**
     * Whether locks can be taken here.
     *
     * @return true on Linux x86_64 and aarch64 with native access
     */
    public static boolean isAvailable() {
        return UNAVAILABLE == null;
    }

    /**
     * Creates a new file, mode 0600, not following a link, and takes an exclusive lock on it at once.
     *
     * @param path a name no file has
     * @return the descriptor that holds the lock: keep it open as long as the file is owned
     * @throws IOException if the file exists or cannot be made, or another process locked it first (a clean-up
     *     that judged the empty file abandoned); the file is left for that clean-up
     */
    public static int createLocked(final Path path) throws IOException {
        final int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, "create");
        if (!tryLock(fd, true)) {
            close(fd);
            throw new IOException("cannot lock new file " + path + ": another process locked it first");
        }
        return fd;
    }

    /**
     * Opens a file to test its lock: read only, not following a link, not waiting on a FIFO.
     *
     * @param path the file
     * @return the descriptor, or -1 if it cannot be opened (gone, a link, not readable)
     */
    public static int openToProbe(final Path path) {
        try {
            return open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, "probe");
        } catch (final IOException ex) {
            return -1;
        }
    }

    /**
     * Takes a lock without waiting.
     *
     * @param fd a descriptor
     * @param exclusive {@code LOCK_EX} if true, else {@code LOCK_SH}
     * @return true if taken, false if another open file description holds a conflicting lock
     * @throws IOException on any other failure (the answer is not known)
     */
    public static boolean tryLock(final int fd, final boolean exclusive) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment state = arena.allocate(CAPTURE);
            final int result = (int)FLOCK.invokeExact(state, fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB);
            if (result == 0) {
                return true;
            }
            final int error = (int)ERRNO.get(state, 0L);
            if (error == EWOULDBLOCK) {
                return false;
            }
            throw new IOException("flock(" + fd + ") failed: errno=" + error);
        } catch (final IOException | RuntimeException | Error ex) {
            throw ex;
        } catch (final Throwable ex) {
            throw new IOException("flock(" + fd + ") failed", ex);
        }
    }

    /**
     * Takes a shared lock without waiting and lets it go at once: {@code flock(LOCK_SH | LOCK_NB)}, then
     * {@code LOCK_UN} if taken. For a check made again and again on a descriptor kept open, so it allocates nothing
     * even before the JIT has compiled it: the call is linked without {@code errno} capture (whose per-call slice of
     * the capture segment is an allocation until C2 compiles the caller, and a check made every 50 ms is not compiled
     * for minutes). The caller tells a refusal from a bad descriptor another way ({@code fstat}).
     *
     * @param fd a descriptor this caller keeps open and locks nothing through
     * @return true if taken (no one held an exclusive lock), false if refused: another open file description holds an
     *     exclusive lock ({@code EWOULDBLOCK}), or, rarely, the kernel is out of lock memory or the descriptor is bad
     */
    public static boolean trySharedAndRelease(final int fd) {
        if (flockPlain(fd, LOCK_SH | LOCK_NB) != 0) {
            return false;
        }
        final int ignored = flockPlain(fd, LOCK_UN); // no lock kept: no one is blocked by it
        return true;
    }

    /** The one call site of the probe's downcall: the one {@link #linkProbe} links and takes past its customisation. */
    private static int flockPlain(final int fd, final int operation) {
        try {
            return (int)FLOCK_PLAIN.invokeExact(fd, operation);
        } catch (final Throwable ex) {
            return -1;
        }
    }

    /**
     * Whether another open file description, in this process or another, holds a lock on the file.
     *
     * @param path the file
     * @return true if held; false if not held, or the file cannot be opened
     * @throws IOException if the lock cannot be tested
     */
    public static boolean isHeld(final Path path) throws IOException {
        final int fd = openToProbe(path);
        if (fd < 0) {
            return false;
        }
        try {
            return !tryLock(fd, false);
        } finally {
            close(fd);
        }
    }

    /**
     * The inode of the file a descriptor is open on (its name may have changed or gone since).
     *
     * @param fd the descriptor
     * @return the inode number
     * @throws IOException if it cannot be read
     */
    public static long inode(final int fd) throws IOException {
        // stat through /proc follows the descriptor to its file, as fstat(2) would
        return (Long)Files.getAttribute(Path.of("/proc/self/fd/" + fd), "unix:ino");
    }

    /**
     * The inode number of a file, not following a link.
     *
     * @param path the file
     * @return the inode, or -1 if the file system cannot tell
     * @throws IOException if the file cannot be read
     */
    public static long inode(final Path path) throws IOException {
        try {
            return (Long)Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS);
        } catch (final UnsupportedOperationException | IllegalArgumentException ex) {
            return -1;
        }
    }

    /**
     * This process's effective user id.
     *
     * @return the uid, or -1 if it cannot be had here
     */
    public static long effectiveUid() {
        if (GETEUID == null) {
            return -1;
        }
        try {
            return Integer.toUnsignedLong((int)GETEUID.invokeExact());
        } catch (final Throwable ex) {
            return -1;
        }
    }

    /**
     * Closes a descriptor, and with it any lock taken through it; nothing for -1.
     *
     * @param fd the descriptor, or -1
     */
    public static void close(final int fd) {
        if (fd < 0) {
            return;
        }
        try {
            final int ignored = (int)CLOSE.invokeExact(fd); // EINTR or EIO: the descriptor is released all the same
        } catch (final Throwable ex) {
            throw new IllegalStateException("close(" + fd + ") failed", ex);
        }
    }

    private static int open(final Path path, final int flags, final String what) throws IOException {
        final int fd;
        final int error;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment state = arena.allocate(CAPTURE);
            fd = (int)OPEN.invokeExact(state, arena.allocateFrom(path.toString()), flags, MODE_0600);
            error = fd < 0 ? (int)ERRNO.get(state, 0L) : 0;
        } catch (final Throwable ex) {
            throw new IOException("cannot " + what + " " + path, ex);
        }
        if (fd < 0) {
            throw new IOException("cannot " + what + " " + path + ": errno=" + error);
        }
        return fd;
    }
}
