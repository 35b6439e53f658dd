package dev.peregrine.shm;

import dev.peregrine.internal.Futex;

import java.lang.foreign.MemorySegment;

/**
 * {@code futex(2)} through the C library's {@code syscall(3)}, called with the FFM API: a thread sleeps in
 * the kernel on a 32-bit word of shared memory and another process wakes it. The operations are the
 * shared (not {@code FUTEX_PRIVATE_FLAG}) ones, because the word lives in a file mapped by two processes.
 *
 * <p>Available on Linux x86_64 ({@code SYS_futex} = 202) and aarch64 (98); elsewhere
 * {@link #unavailableReason()} says why and callers fall back to spinning and parking.
 *
 * <p>Threading: any thread.
 */
public final class ShmFutex {
    private ShmFutex() {
    }

    /**
     * Why futex cannot be used here.
     *
     * @return {@code null} if it can, otherwise the reason in one sentence
     */
    public static String unavailableReason() {
        return Futex.unavailableReason();
    }

    /**
     * Whether futex can be used here.
     *
     * @return true on Linux x86_64 and aarch64 with native access
     */
    public static boolean isAvailable() {
        return Futex.isAvailable();
    }

    /**
     * {@code FUTEX_WAIT}: sleeps while {@code word} holds {@code expected}, until woken or the timeout.
     * Returns at once if the word differs; spurious returns happen, so the caller re-checks its condition.
     *
     * @param word a 4-byte aligned segment of at least 4 bytes, in shared memory
     * @param expected the value that means "still sleep"
     * @param timespec a 16-byte native segment owned by the caller, filled here with the relative timeout
     * @param timeoutNs the longest sleep
     * @return 0 when woken, -1 on timeout, mismatch or interruption (the caller cannot tell and need not)
     */
    public static int await(final MemorySegment word, final int expected, final MemorySegment timespec,
        final long timeoutNs) {
        return Futex.await(word, expected, timespec, timeoutNs);
    }

    /**
     * {@code FUTEX_WAKE}: wakes up to {@code count} threads sleeping on {@code word}.
     *
     * @param word the futex word
     * @param count most threads to wake
     * @return the number woken, or -1 on error
     */
    public static int wake(final MemorySegment word, final int count) {
        return Futex.wake(word, count);
    }
}
