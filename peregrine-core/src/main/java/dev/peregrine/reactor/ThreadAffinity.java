package dev.peregrine.reactor;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * Pins the calling thread to one CPU through {@code sched_setaffinity(2)}, called with the FFM API (no JNI).
 * Where the call is unavailable (not Linux, native access denied) pinning reports why instead of failing.
 */
@SuppressWarnings("restricted") // native calls are this class's purpose; callers enable native access
public final class ThreadAffinity {
    private static final int CPU_SET_BYTES = 128; // glibc's cpu_set_t: 1024 bits
    private static final MethodHandle SCHED_SETAFFINITY;
    private static final MethodHandle SCHED_GETCPU;
    private static final StructLayout CAPTURE_LAYOUT;
    private static final VarHandle ERRNO;
    private static final String UNAVAILABLE;

    static {
        MethodHandle setAffinity = null;
        MethodHandle getCpu = null;
        StructLayout captureLayout = null;
        VarHandle errno = null;
        String unavailable = null;
        try {
            final Linker linker = Linker.nativeLinker();
            final Optional<MemorySegment> set = linker.defaultLookup().find("sched_setaffinity");
            final Optional<MemorySegment> get = linker.defaultLookup().find("sched_getcpu");
            if (set.isPresent() && get.isPresent()) {
                captureLayout = Linker.Option.captureStateLayout();
                errno = captureLayout.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                setAffinity = linker.downcallHandle(set.get(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                    Linker.Option.captureCallState("errno"));
                getCpu = linker.downcallHandle(get.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT));
            } else {
                unavailable = "sched_setaffinity is not in the C library of " + System.getProperty("os.name");
            }
        } catch (final RuntimeException ex) {
            unavailable = "native calls unavailable: " + ex.getMessage();
        }
        SCHED_SETAFFINITY = setAffinity;
        SCHED_GETCPU = getCpu;
        CAPTURE_LAYOUT = captureLayout;
        ERRNO = errno;
        UNAVAILABLE = unavailable;
    }

    private ThreadAffinity() {
    }

    /**
     * Pins the calling thread to {@code cpu}.
     *
     * @param cpu the CPU number, from 0
     * @return {@code null} on success, otherwise why the thread could not be pinned
     */
    public static String pinCurrentThread(final int cpu) {
        if (cpu < 0 || cpu >= CPU_SET_BYTES * 8) {
            throw new IllegalArgumentException("cpu=" + cpu + " must be in [0, " + (CPU_SET_BYTES * 8) + ")");
        }
        if (UNAVAILABLE != null) {
            return UNAVAILABLE;
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            final long word = mask.get(ValueLayout.JAVA_LONG, (cpu / 64) * 8L);
            mask.set(ValueLayout.JAVA_LONG, (cpu / 64) * 8L, word | (1L << (cpu % 64)));
            final MemorySegment capture = arena.allocate(CAPTURE_LAYOUT);
            final int rc = (int)SCHED_SETAFFINITY.invokeExact(capture, 0, (long)CPU_SET_BYTES, mask);
            if (rc != 0) {
                final int errno = (int)ERRNO.get(capture, 0L);
                return "sched_setaffinity(cpu=" + cpu + ") failed with errno=" + errno
                    + (errno == 22 ? " (EINVAL: no such CPU, or not allowed in this cpuset)" : "");
            }
            return null;
        } catch (final Throwable ex) {
            return "sched_setaffinity(cpu=" + cpu + ") failed: " + ex;
        }
    }

    /**
     * The CPU the calling thread runs on now, through {@code sched_getcpu(3)}.
     *
     * @return the CPU number, or -1 where unavailable
     */
    public static int currentCpu() {
        if (SCHED_GETCPU == null) {
            return -1;
        }
        try {
            return (int)SCHED_GETCPU.invokeExact();
        } catch (final Throwable ex) {
            return -1;
        }
    }

    /**
     * Whether pinning can work on this platform.
     *
     * @return {@code null} if it can, otherwise why not
     */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }
}
