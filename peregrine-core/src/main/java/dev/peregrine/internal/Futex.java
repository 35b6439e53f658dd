package dev.peregrine.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code futex(2)} through the C library's {@code syscall(3)}, called with the FFM API: a thread sleeps in
 * the kernel on a 32-bit word of shared memory and another process wakes it. The operations are the
 * shared (not {@code FUTEX_PRIVATE_FLAG}) ones, because the word lives in a file mapped by two processes.
 *
 * <p>Available on Linux x86_64 ({@code SYS_futex} = 202) and aarch64 (98); elsewhere
 * {@link #unavailableReason()} says why and callers fall back to spinning and parking.
 *
 * <p>Internal: the one implementation behind the public {@code dev.peregrine.shm.ShmFutex} and the separated stack's
 * application wake-up, so that neither package needs the other. Threading: any thread.
 */
@SuppressWarnings("restricted") // native calls are this class's purpose; callers enable native access
public final class Futex {
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;
    private static final long SYS_FUTEX;
    private static final MethodHandle SYSCALL;
    private static final String UNAVAILABLE;
    /** Calls of each operation made at class initialisation: past the JDK's method handle customisation (127). */
    private static final int LINK_CALLS = 256;

    static {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        long number = -1;
        MethodHandle syscall = null;
        String unavailable = null;
        if (!os.contains("linux")) {
            unavailable = "futex is Linux only, this is " + System.getProperty("os.name");
        } else if ("amd64".equals(arch) || "x86_64".equals(arch)) {
            number = 202;
        } else if ("aarch64".equals(arch) || "arm64".equals(arch)) {
            number = 98;
        } else {
            unavailable = "SYS_futex is not known for os.arch=" + arch + " (known: amd64, aarch64)";
        }
        if (unavailable == null) {
            try {
                final Linker linker = Linker.nativeLinker();
                final Optional<MemorySegment> symbol = linker.defaultLookup().find("syscall");
                if (symbol.isPresent()) {
                    // long syscall(long number, ...): every variadic argument passed as a full register. The
                    // pointers go as plain addresses, not ADDRESS: a segment of a shared arena (a log's mapping) is
                    // acquired for the call, which allocates at every call in code C2 has not compiled (a sleep is
                    // rare enough to stay there). The kernel reads the word and the timeout only at the call's
                    // start, and a segment unmapped by then makes it fail with EFAULT, never a crash
                    syscall = linker.downcallHandle(symbol.get(),
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG),
                        Linker.Option.firstVariadicArg(1));
                } else {
                    unavailable = "syscall(3) is not in the C library";
                }
            } catch (final RuntimeException ex) {
                unavailable = "FFM downcalls unavailable (run with --enable-native-access): " + ex.getMessage();
            }
        }
        SYS_FUTEX = number;
        SYSCALL = syscall;
        UNAVAILABLE = unavailable;
        if (unavailable == null) {
            linkBothCalls();
        }
    }

    /**
     * Makes the first {@link #LINK_CALLS} calls of each operation here, at class initialisation. A downcall's first
     * call from a call site links it (method handles spun, the linker's specialisation: some 50 KB, once per JVM), and
     * in code C2 has not compiled (a sleep is rare enough to stay there) the JDK customises a method handle's lambda
     * form after its 127th call (some 30 KB, once per handle). A reader's first or 128th sleep, or a writer's wake-up,
     * can come in the middle of a run, and they allocated there (JFR on bench readers). {@code FUTEX_WAIT} on a word
     * that does not hold the expected value returns at once, and {@code FUTEX_WAKE} on a word no one waits on wakes
     * no one: some hundreds of microseconds in all.
     */
    private static void linkBothCalls() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment word = arena.allocate(4, 4); // holds 0: the waits below are turned away at once
            final MemorySegment timespec = arena.allocate(16, 8);
            for (int i = 0; i < LINK_CALLS; i++) {
                await(word, 1, timespec, 1_000_000L);
                wake(word, 1);
            }
        } catch (final RuntimeException ex) {
            // left to the first real call, which reports it
        }
    }

    private Futex() {
    }

    /**
     * Why futex cannot be used here.
     *
     * @return {@code null} if it can, otherwise the reason in one sentence
     */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    /**
     * Whether futex can be used here.
     *
     * @return true on Linux x86_64 and aarch64 with native access
     */
    public static boolean isAvailable() {
        return UNAVAILABLE == null;
    }

    /**
     * {@code FUTEX_WAIT}: sleeps while {@code word} holds {@code expected}, until woken or the timeout.
     * Returns at once if the word differs; spurious returns happen, so the caller re-checks its condition.
     *
     * @param word a 4-byte aligned native segment of at least 4 bytes, in shared memory, mapped until this returns
     * @param expected the value that means "still sleep"
     * @param timespec a 16-byte native segment owned by the caller, filled here with the relative timeout, kept
     *     until this returns
     * @param timeoutNs the longest sleep
     * @return 0 when woken, -1 on timeout, mismatch or interruption (the caller cannot tell and need not)
     */
    public static int await(final MemorySegment word, final int expected, final MemorySegment timespec,
        final long timeoutNs) {
        checkAvailable();
        checkNative(word, timespec);
        timespec.set(ValueLayout.JAVA_LONG, 0, timeoutNs / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, timeoutNs % 1_000_000_000L);
        try {
            return (int)(long)SYSCALL.invokeExact(SYS_FUTEX, word.address(), FUTEX_WAIT, (long)expected,
                timespec.address(), 0L, 0L);
        } catch (final Throwable ex) {
            throw new IllegalStateException("futex(FUTEX_WAIT) failed", ex);
        }
    }

    /**
     * {@code FUTEX_WAKE}: wakes up to {@code count} threads sleeping on {@code word}.
     *
     * @param word the futex word
     * @param count most threads to wake
     * @return the number woken, or -1 on error
     */
    public static int wake(final MemorySegment word, final int count) {
        checkAvailable();
        checkNative(word, word);
        try {
            return (int)(long)SYSCALL.invokeExact(SYS_FUTEX, word.address(), FUTEX_WAKE, (long)count, 0L, 0L, 0L);
        } catch (final Throwable ex) {
            throw new IllegalStateException("futex(FUTEX_WAKE) failed", ex);
        }
    }

    /** The calls pass plain addresses: a heap segment's would be an offset, not an address. */
    private static void checkNative(final MemorySegment word, final MemorySegment timespec) {
        if (!word.isNative() || !timespec.isNative()) {
            throw new IllegalArgumentException("word=" + word + ", timespec=" + timespec + ": futex needs native"
                + " segments");
        }
    }

    private static void checkAvailable() {
        if (UNAVAILABLE != null) {
            throw new IllegalStateException("futex unavailable: " + UNAVAILABLE);
        }
    }
}
