package dev.peregrine.testing;

import com.sun.management.ThreadMXBean;

import java.lang.management.ManagementFactory;

/**
 * Measures the bytes a thread allocates, through {@code com.sun.management.ThreadMXBean}: the basis of
 * every "allocates nothing in steady state" test.
 */
public final class AllocationMeter {
    private static final ThreadMXBean THREADS = (ThreadMXBean)ManagementFactory.getThreadMXBean();

    private AllocationMeter() {
    }

    /**
     * Bytes allocated so far by a thread.
     *
     * @param threadId the thread, e.g. a reactor thread
     * @return bytes since the thread started
     */
    public static long allocatedBytes(final long threadId) {
        return THREADS.getThreadAllocatedBytes(threadId);
    }

    /**
     * Bytes allocated so far by the calling thread.
     *
     * @return bytes since the thread started
     */
    public static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Runs {@code action} {@code warmup} times, then {@code iterations} times, and returns the bytes the
     * calling thread allocated during the second batch. Calling the meter itself allocates nothing.
     *
     * @param warmup iterations not measured (JIT, lazy initialisation)
     * @param iterations iterations measured
     * @param action the code under test
     * @return bytes allocated by the measured iterations
     */
    public static long bytesAllocatedBy(final int warmup, final int iterations, final Runnable action) {
        for (int i = 0; i < warmup; i++) {
            action.run();
        }
        final long before = allocatedBytes();
        for (int i = 0; i < iterations; i++) {
            action.run();
        }
        return allocatedBytes() - before;
    }

    /**
     * Runs {@code action} {@code warmup} times, then in windows of {@code window} iterations until a window
     * allocates nothing or {@code maxWindows} have run, and returns the bytes of the quietest window.
     *
     * <p>Why windows: an allocation per iteration shows in every window, so a result of 0 proves there is
     * none. What a single window can show besides is a one-off JIT event, such as a deoptimisation that
     * materialises objects the compiled code had scalar-replaced, which on a loaded machine may land
     * after any fixed warm-up.
     *
     * @param warmup iterations not measured
     * @param window iterations per measured window
     * @param maxWindows the most windows to measure
     * @param action the code under test
     * @return the fewest bytes any window allocated
     */
    public static long quietestWindowBytes(final int warmup, final int window, final int maxWindows, final Runnable action) {
        long quietest = bytesAllocatedBy(warmup, window, action);
        for (int i = 1; i < maxWindows && quietest != 0; i++) {
            quietest = Math.min(quietest, bytesAllocatedBy(0, window, action));
        }
        return quietest;
    }
}
