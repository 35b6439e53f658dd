package dev.peregrine.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Gives a file all its pages before it is mapped, with {@code posix_fallocate(3)} called through the FFM API: the
 * shared-memory rings and the MoldUDP64 message store. A sparse file on a full tmpfs maps fine, and the first store
 * to a page that cannot be had then kills the process with {@code SIGBUS}; reserving up front turns that into an
 * {@link IOException} when the file is made.
 *
 * <p>Where the C library cannot be called (not Linux, or no native access) every page is written once through
 * a {@link FileChannel} instead, which reserves the same pages, only more slowly; that writes a zero byte into each
 * page, so only a file whose content does not matter yet (a new one) is reserved.
 */
@SuppressWarnings("restricted") // native calls are this class's purpose; callers enable native access
public final class FileSpace {
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;
    private static final int ENOSPC = 28;
    private static final int PAGE = 4096;
    private static final MethodHandle OPEN;
    private static final MethodHandle FALLOCATE;
    private static final MethodHandle CLOSE;

    static {
        MethodHandle open = null;
        MethodHandle fallocate = null;
        MethodHandle close = null;
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            try {
                final Linker linker = Linker.nativeLinker();
                // int open(const char *path, int flags, ...): called with the two fixed arguments only
                open = linker.defaultLookup().find("open").map(symbol -> linker.downcallHandle(symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT))).orElse(null);
                // int posix_fallocate(int fd, off_t offset, off_t len): answers the error number, not -1
                fallocate = linker.defaultLookup().find("posix_fallocate").map(symbol -> linker.downcallHandle(symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG))).orElse(null);
                close = linker.defaultLookup().find("close").map(symbol -> linker.downcallHandle(symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))).orElse(null);
            } catch (final RuntimeException ex) {
                open = null; // no native access: the page-by-page fallback below
            }
        }
        final boolean complete = open != null && fallocate != null && close != null;
        OPEN = complete ? open : null;
        FALLOCATE = complete ? fallocate : null;
        CLOSE = complete ? close : null;
    }

    private FileSpace() {
    }

    /**
     * Reserves {@code length} bytes of storage for a new file (its size becomes at least {@code length}).
     *
     * @param path an existing file this process may write, whose content does not matter yet
     * @param length bytes to reserve
     * @param kind what the file is, for the messages: "ring file", "message store file"
     * @param remedy what to do when there is no space, for the message: "choose another ring directory"
     * @throws IOException if the storage cannot be had, e.g. "no space left on device", naming the file
     */
    public static void reserve(final Path path, final long length, final String kind, final String remedy)
        throws IOException {
        if (FALLOCATE == null) {
            touchEveryPage(null, path, length, kind);
            return;
        }
        final int fd = open(path, length, kind);
        try {
            allocate(fd, null, path, length, kind, remedy);
        } finally {
            closeDescriptor(fd);
        }
    }

    /**
     * Reserves, as {@link #reserve}, a new file that this process holds a {@link FileChannel#tryLock} on. Such a
     * lock is a POSIX record lock, which the close of any descriptor of the file in this process drops; so the
     * descriptor that {@code posix_fallocate} needs is not closed here but returned, to be closed with
     * {@link #closeDescriptor} once the lock is let go, and the fallback writes through {@code channel}.
     *
     * @param channel the locked channel, open for writing
     * @param path its file, whose content does not matter yet
     * @param length bytes to reserve
     * @param kind what the file is, for the messages
     * @param remedy what to do when there is no space, for the message
     * @return the descriptor to close once the lock may go, or -1 if there is none
     * @throws IOException if the storage cannot be had, naming the file; the descriptor is closed then, and with it
     *     the lock, since the caller gives the file up
     */
    public static int reserveLocked(final FileChannel channel, final Path path, final long length, final String kind,
        final String remedy) throws IOException {
        if (FALLOCATE == null) {
            touchEveryPage(channel, path, length, kind);
            return -1;
        }
        final int fd = open(path, length, kind);
        try {
            allocate(fd, channel, path, length, kind, remedy);
            return fd;
        } catch (final IOException | RuntimeException | Error ex) {
            closeDescriptor(fd);
            throw ex;
        }
    }

    /**
     * Closes a descriptor {@link #reserveLocked} returned; nothing for -1.
     *
     * @param fd the descriptor, or -1
     */
    public static void closeDescriptor(final int fd) {
        if (fd < 0) {
            return;
        }
        try {
            final int ignored = (int)CLOSE.invokeExact(fd); // EINTR or EIO: the descriptor is released all the same
        } catch (final Throwable ex) {
            throw new IllegalStateException("close(" + fd + ") failed", ex);
        }
    }

    private static int open(final Path path, final long length, final String kind) throws IOException {
        final int fd;
        try (Arena arena = Arena.ofConfined()) {
            fd = (int)OPEN.invokeExact(arena.allocateFrom(path.toString()), O_RDWR | O_CLOEXEC);
        } catch (final Throwable ex) {
            throw new IOException("cannot open " + kind + " " + path + " to reserve " + length + " bytes", ex);
        }
        if (fd < 0) {
            throw new IOException("cannot open " + kind + " " + path + " to reserve " + length + " bytes");
        }
        return fd;
    }

    /** posix_fallocate, or the fallback through {@code channel} (or a channel of its own, if null). */
    private static void allocate(final int fd, final FileChannel channel, final Path path, final long length,
        final String kind, final String remedy) throws IOException {
        final int error;
        try {
            error = (int)FALLOCATE.invokeExact(fd, 0L, length);
        } catch (final Throwable ex) {
            throw new IOException("posix_fallocate on " + kind + " " + path + " failed", ex);
        }
        if (error == ENOSPC) {
            throw new IOException("no space left for " + kind + " " + path + ": it needs " + length
                + " bytes (posix_fallocate: ENOSPC); free space there or " + remedy);
        }
        if (error != 0) {
            // EOPNOTSUPP, EINVAL, ...: this file system cannot reserve, so fall back to writing the pages
            touchEveryPage(channel, path, length, kind);
        }
    }

    /** Writes a zero into every page through {@code channel}, or through a channel of its own if that is null. */
    private static void touchEveryPage(final FileChannel channel, final Path path, final long length, final String kind)
        throws IOException {
        try {
            if (channel != null) {
                touchEveryPage(channel, length);
            } else {
                try (FileChannel own = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    touchEveryPage(own, length);
                }
            }
        } catch (final IOException ex) {
            throw new IOException("cannot reserve " + length + " bytes for " + kind + " " + path + ": " + ex.getMessage(),
                ex);
        }
    }

    private static void touchEveryPage(final FileChannel channel, final long length) throws IOException {
        final ByteBuffer zero = ByteBuffer.allocate(1);
        for (long position = 0; position < length; position += PAGE) {
            zero.clear();
            channel.write(zero, Math.min(position + PAGE, length) - 1);
        }
    }
}
