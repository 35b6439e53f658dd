package dev.peregrine.testkit;

import com.sun.management.ThreadMXBean;

import java.lang.management.ManagementFactory;

/**
 * Measures the bytes a thread allocates, through {@code com.sun.management.ThreadMXBean}: the basis of every
 * "allocates nothing in steady state" test in every module.
 *
 * <p>Steady state is proven by windows, not by one measurement: identical work runs in windows of a fixed
 * number of iterations until one window allocates nothing. An allocation per iteration shows in every
 * window, so a window of 0 bytes proves there is none. What one window can show besides is a one-off JIT
 * event, such as a deoptimisation that materialises objects the compiled code had scalar-replaced or a late
 * link of an uncommon-trap site, which on a loaded two-core machine may land after any fixed warm-up.
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
     * Bytes allocated so far by the calling thread; allocates nothing itself.
     *
     * @return bytes since the thread started
     */
    public static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Runs {@code action} {@code warmup} times, then {@code iterations} times, and returns the bytes the
     * calling thread allocated during the second batch.
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
     * allocates nothing or {@code maxWindows} have run, and returns the bytes of the quietest window. Each
     * window that allocated is printed, so a failure shows whether every window allocated (a real
     * allocation per iteration) or a few did (the JIT).
     *
     * @param warmup iterations not measured
     * @param window iterations per measured window
     * @param maxWindows the most windows to measure
     * @param action the code under test
     * @return the fewest bytes any window allocated: 0 proves the steady state allocates nothing
     */
    public static long quietestWindowBytes(final int warmup, final int window, final int maxWindows, final Runnable action) {
        final Windows windows = new Windows(window);
        for (int i = 0; i < warmup; i++) {
            action.run();
        }
        while (windows.count() < maxWindows && windows.quietest() != 0) {
            windows.begin();
            for (int i = 0; i < window; i++) {
                action.run();
            }
            windows.end();
        }
        return windows.quietest();
    }

    /**
     * Windows measured by hand on the calling thread, for loops that cannot be a {@link Runnable}, such as the
     * far side of a round trip in another thread: {@link #begin()} and {@link #end()} around each window.
     */
    public static final class Windows {
        private final int iterations;
        private long quietest = Long.MAX_VALUE;
        private long before;
        private int count;

        /**
         * Creates it.
         *
         * @param iterations iterations per window, for the printed lines only
         */
        public Windows(final int iterations) {
            this.iterations = iterations;
        }

        /** Starts a window on the calling thread. */
        public void begin() {
            before = allocatedBytes();
        }

        /**
         * Ends the window started on this thread by {@link #begin()}.
         *
         * @return the bytes the window allocated
         */
        public long end() {
            final long bytes = allocatedBytes() - before;
            count++;
            quietest = Math.min(quietest, bytes);
            if (bytes != 0) {
                System.out.println("allocation window " + count + " on " + Thread.currentThread().getName() + ": "
                    + bytes + " bytes in " + iterations + " iterations");
            }
            return bytes;
        }

        /**
         * The windows ended so far.
         *
         * @return the count
         */
        public int count() {
            return count;
        }

        /**
         * The fewest bytes any window allocated.
         *
         * @return the bytes, or {@link Long#MAX_VALUE} before the first window
         */
        public long quietest() {
            return quietest;
        }
    }
}
