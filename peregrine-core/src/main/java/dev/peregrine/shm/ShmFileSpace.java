package dev.peregrine.shm;

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
 * Gives a ring file all its pages before it is mapped, with {@code posix_fallocate(3)} called through the FFM
 * API. A sparse file on a full tmpfs maps fine, and the first store to a page that cannot be had then kills the
 * process with {@code SIGBUS}; reserving up front turns that into an {@link IOException} at connect time.
 *
 * <p>Where the C library cannot be called (not Linux, or no native access) every page is written once through
 * a {@link FileChannel} instead, which reserves the same pages, only more slowly.
 */
@SuppressWarnings("restricted") // native calls are this class's purpose; callers enable native access
final class ShmFileSpace {
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

    private ShmFileSpace() {
    }

    /**
     * Reserves {@code length} bytes of storage for the file (its size becomes at least {@code length}).
     *
     * @param path an existing file this process may write
     * @param length bytes to reserve
     * @throws IOException if the storage cannot be had, e.g. "no space left on device", naming the file
     */
    static void reserve(final Path path, final long length) throws IOException {
        if (FALLOCATE == null) {
            touchEveryPage(path, length);
            return;
        }
        final int error;
        try (Arena arena = Arena.ofConfined()) {
            final int fd = (int)OPEN.invokeExact(arena.allocateFrom(path.toString()), O_RDWR | O_CLOEXEC);
            if (fd < 0) {
                throw new IOException("cannot open ring file " + path + " to reserve " + length + " bytes");
            }
            try {
                error = (int)FALLOCATE.invokeExact(fd, 0L, length);
            } finally {
                final int ignored = (int)CLOSE.invokeExact(fd);
            }
        } catch (final IOException ex) {
            throw ex;
        } catch (final Throwable ex) {
            throw new IOException("posix_fallocate on ring file " + path + " failed", ex);
        }
        if (error == ENOSPC) {
            throw new IOException("no space left for ring file " + path + ": it needs " + length
                + " bytes (posix_fallocate: ENOSPC); free space there or choose another ring directory");
        }
        if (error != 0) {
            // EOPNOTSUPP, EINVAL, ...: this file system cannot reserve, so fall back to writing the pages
            touchEveryPage(path, length);
        }
    }

    private static void touchEveryPage(final Path path, final long length) throws IOException {
        final ByteBuffer zero = ByteBuffer.allocate(1);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            for (long position = 0; position < length; position += PAGE) {
                zero.clear();
                channel.write(zero, Math.min(position + PAGE, length) - 1);
            }
        } catch (final IOException ex) {
            throw new IOException("cannot reserve " + length + " bytes for ring file " + path + ": " + ex.getMessage(), ex);
        }
    }
}
