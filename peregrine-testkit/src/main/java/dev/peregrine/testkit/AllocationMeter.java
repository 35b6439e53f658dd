package dev.peregrine.testkit;

import com.sun.management.ThreadMXBean;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * Measures the bytes a thread allocates, through {@code com.sun.management.ThreadMXBean}: the basis of every
 * "allocates nothing in steady state" test in every module.
 *
 * <p>Steady state is proven by windows, not by one measurement: identical work runs in a number of windows of a fixed
 * number of iterations, and every window must allocate nothing (zero tolerance). An allocation per iteration shows in
 * every window; one rarer than that (a timer, a heartbeat, a buffer that grows) in some windows only, and still
 * fails. What no fixed warm-up rules out on a loaded two-core machine is a JIT event after it: code C2 has not yet
 * compiled (an object its escape analysis removes) or a deoptimisation that materialises objects once. So
 * {@link #firstCleanSet} measures sets of windows until one whole set is clean, at most a given number, and
 * {@link CleanSets} does the same for windows measured on several threads at once. Nothing here forgives a share of
 * the windows: an allocation at least once per set fails every set.
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
     * Zero tolerance after a warm-up that waits for the JIT instead of counting on a fixed length: runs
     * {@code action} {@code warmup} times, then measures sets of {@code windows} windows of {@code window}
     * iterations until one whole set allocates nothing, at most {@code maxSets} sets, and returns the last set
     * measured (clean, or the last that was not). Each set that allocated is the further warm-up of the next.
     *
     * <p>For a path whose source allocates nothing but whose interpreted or C1 code does (an object C2's escape
     * analysis removes, such as the JDK's errno capture slice in a downcall): on a loaded two-core machine C2 may
     * compile it after any fixed warm-up, and a deoptimisation may send it back once. What it still catches: an
     * allocation at least once per set ({@code window * windows} iterations) shows in every set and fails; so does
     * any allocation at all while the JIT keeps one set from being clean in {@code maxSets}.
     *
     * @param warmup iterations not measured before the first set
     * @param window iterations per measured window
     * @param windows windows per set, at least 1
     * @param maxSets the most sets to measure, at least 1
     * @param action the code under test
     * @return the last set measured; {@link Windows#totalBytes()} is 0 when it is clean, {@link Windows#sets()}
     *     says how many sets it took
     */
    public static Windows firstCleanSet(final int warmup, final int window, final int windows, final int maxSets,
        final Runnable action) {
        if (maxSets < 1) {
            throw new IllegalArgumentException("maxSets=" + maxSets + " must be at least 1");
        }
        Windows measured = windows(warmup, window, windows, action);
        int sets = 1;
        while (measured.totalBytes() != 0 && sets < maxSets) {
            System.out.println("allocation set " + sets + " on " + Thread.currentThread().getName() + ": "
                + measured.totalBytes() + " bytes in " + measured.allocatingWindows() + " of " + windows
                + " windows; measuring another set");
            measured = windows(0, window, windows, action);
            sets++;
        }
        measured.sets = sets;
        return measured;
    }

    /**
     * Runs {@code action} {@code warmup} times, then {@code windows} windows of {@code window} iterations each, and
     * returns every window's figure, for a test that bounds a one-off it can name by count and bytes instead of
     * forgiving a share of the windows.
     *
     * @param warmup iterations not measured
     * @param window iterations per measured window
     * @param windows how many windows to measure, at least 1
     * @param action the code under test
     * @return the measured windows
     */
    public static Windows windows(final int warmup, final int window, final int windows, final Runnable action) {
        if (windows < 1) {
            throw new IllegalArgumentException("windows=" + windows + " must be at least 1");
        }
        final Windows measured = new Windows(window);
        for (int i = 0; i < warmup; i++) {
            action.run();
        }
        for (int w = 0; w < windows; w++) {
            measured.begin();
            for (int i = 0; i < window; i++) {
                action.run();
            }
            measured.end();
        }
        return measured;
    }

    /**
     * {@link #firstCleanSet} for a measurement made on several threads at once, such as both ends of a stream:
     * each thread measures a set of windows of its own, then {@link #another(long)} waits for every thread's set and
     * says whether to measure another one. Another set is measured while any thread's set allocated, at most
     * {@code maxSets} sets, so every thread ends on the same set: the clean one, or the last.
     *
     * <p>A thread must finish its part of a set without waiting for another thread's next set (a sender flushes what
     * it has sent before it calls {@link #another(long)}): the call blocks until every party has called it.
     */
    public static final class CleanSets {
        private static final long WAIT_NS = 120_000_000_000L; // fails a party that hung; a set takes well under 1 s

        private final int parties;
        private final int maxSets;
        private int arrived;
        private long bytes;
        private int sets = 1;
        private boolean another;

        /**
         * Creates it.
         *
         * @param parties the threads taking part, at least 1
         * @param maxSets the most sets to measure, at least 1
         */
        public CleanSets(final int parties, final int maxSets) {
            if (parties < 1) {
                throw new IllegalArgumentException("parties=" + parties + " must be at least 1");
            }
            if (maxSets < 1) {
                throw new IllegalArgumentException("maxSets=" + maxSets + " must be at least 1");
            }
            this.parties = parties;
            this.maxSets = maxSets;
        }

        /**
         * Ends the calling thread's part of the current set: waits until every party has ended its part, then says
         * whether all are to measure another set (some party's set allocated, and fewer than {@code maxSets} sets
         * were measured). Call it after the set's windows, never inside one.
         *
         * @param setBytes what the calling thread's set allocated ({@link Windows#totalBytes()})
         * @return true to measure another set, false when this set is the verdict
         * @throws IllegalStateException when a party has not ended the set within two minutes
         */
        public synchronized boolean another(final long setBytes) {
            final int set = sets;
            bytes += setBytes;
            if (++arrived == parties) {
                another = bytes != 0 && sets < maxSets;
                if (bytes != 0) {
                    System.out.println("allocation set " + sets + " of " + parties + " threads: " + bytes + " bytes"
                        + (another ? "; measuring another set" : ""));
                }
                if (another) {
                    sets++;
                }
                arrived = 0;
                bytes = 0;
                notifyAll();
                return another;
            }
            final long deadline = System.nanoTime() + WAIT_NS;
            while (sets == set && arrived != 0) {
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("set=" + set + ": " + arrived + " of parties=" + parties
                        + " ended it within 120 s");
                }
                try {
                    wait(left / 1_000_000 + 1);
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for set=" + set, ex);
                }
            }
            return another;
        }

        /**
         * Measures sets of {@code windows} windows of {@code window} iterations of {@code action} on the calling
         * thread, each ended by {@link #another(long)}, and returns the last set.
         *
         * @param window iterations per window
         * @param windows windows per set, at least 1
         * @param action the code under test
         * @return the calling thread's last set; {@link Windows#sets()} says how many were measured
         */
        public Windows measure(final int window, final int windows, final Runnable action) {
            Windows measured = AllocationMeter.windows(0, window, windows, action);
            int measuredSets = 1;
            while (another(measured.totalBytes())) {
                measured = AllocationMeter.windows(0, window, windows, action);
                measuredSets++;
            }
            measured.sets = measuredSets;
            return measured;
        }

        /**
         * The sets measured so far, the current one included.
         *
         * @return the count
         */
        public synchronized int sets() {
            return sets;
        }
    }

    /**
     * Windows measured by hand, for loops that cannot be a {@link Runnable}, such as the far side of a round trip in
     * another thread: {@link #begin()} and {@link #end()} around each window, on the calling thread or, from the
     * calling thread, on another one (a reactor thread the test cannot run code on).
     */
    public static final class Windows {
        private final int iterations;
        private final long threadId;
        private long[] bytes = new long[16];
        private long before;
        private int count;
        private int sets = 1;

        /**
         * Creates it, to measure the calling thread.
         *
         * @param iterations iterations per window, for the printed lines only
         */
        public Windows(final int iterations) {
            this(iterations, -1);
        }

        /**
         * Creates it, to measure the thread {@code threadId} from the thread that calls {@link #begin()} and
         * {@link #end()}.
         *
         * @param iterations iterations per window, for the printed lines only
         * @param threadId the thread measured, or -1 for the calling thread
         */
        public Windows(final int iterations, final long threadId) {
            this.iterations = iterations;
            this.threadId = threadId;
        }

        private long read() {
            return threadId < 0 ? allocatedBytes() : allocatedBytes(threadId);
        }

        /** Starts a window. */
        public void begin() {
            before = read();
        }

        /**
         * Ends the window started by {@link #begin()}.
         *
         * @return the bytes the window allocated
         */
        public long end() {
            final long allocated = read() - before;
            // what follows is after the measurement: the copy and the line are not counted in any window
            if (count == bytes.length) {
                bytes = Arrays.copyOf(bytes, count * 2);
            }
            bytes[count++] = allocated;
            if (allocated != 0) {
                System.out.println("allocation window " + count + " on "
                    + (threadId < 0 ? Thread.currentThread().getName() : "thread " + threadId) + ": "
                    + allocated + " bytes in " + iterations + " iterations");
            }
            return allocated;
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
         * The sets of windows measured to reach these windows: 1 unless they come from
         * {@link AllocationMeter#firstCleanSet(int, int, int, int, Runnable)}, which keeps only the last set.
         *
         * @return the count
         */
        public int sets() {
            return sets;
        }

        /**
         * The fewest bytes any window allocated, for diagnosis: 0 here alone proves nothing about an allocation
         * that happens in some windows only.
         *
         * @return the bytes, or {@link Long#MAX_VALUE} before the first window
         */
        public long quietest() {
            long quietest = Long.MAX_VALUE;
            for (int i = 0; i < count; i++) {
                quietest = Math.min(quietest, bytes[i]);
            }
            return quietest;
        }

        /**
         * The median of the windows' bytes (the upper of the two middle ones for an even count).
         *
         * @return the bytes, or {@link Long#MAX_VALUE} before the first window
         */
        public long median() {
            if (count == 0) {
                return Long.MAX_VALUE;
            }
            final long[] sorted = Arrays.copyOf(bytes, count);
            Arrays.sort(sorted);
            return sorted[count / 2];
        }

        /**
         * The bytes of every window ended so far, together: the zero-tolerance verdict.
         *
         * @return the total
         * @throws IllegalStateException before the first window
         */
        public long totalBytes() {
            if (count == 0) {
                throw new IllegalStateException("no window was measured");
            }
            long total = 0;
            for (int i = 0; i < count; i++) {
                total += bytes[i];
            }
            return total;
        }

        /**
         * The windows that allocated anything.
         *
         * @return the count
         */
        public int allocatingWindows() {
            int allocating = 0;
            for (int i = 0; i < count; i++) {
                if (bytes[i] != 0) {
                    allocating++;
                }
            }
            return allocating;
        }
    }
}
