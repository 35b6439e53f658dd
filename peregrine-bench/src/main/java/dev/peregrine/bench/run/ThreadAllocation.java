package dev.peregrine.bench.run;

import com.sun.management.ThreadMXBean;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Bytes allocated by threads, through {@code com.sun.management.ThreadMXBean}: the client thread measures
 * itself; the responder side is "the threads a transport started", found as the threads that did not
 * exist before it started.
 */
public final class ThreadAllocation {
    private static final ThreadMXBean THREADS = (ThreadMXBean)ManagementFactory.getThreadMXBean();
    private static final boolean SUPPORTED = supported();

    private ThreadAllocation() {
    }

    private static boolean supported() {
        try {
            if (THREADS.isThreadAllocatedMemorySupported() && !THREADS.isThreadAllocatedMemoryEnabled()) {
                THREADS.setThreadAllocatedMemoryEnabled(true);
            }
            return THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled();
        } catch (final UnsupportedOperationException | SecurityException ex) {
            return false;
        }
    }

    /**
     * Bytes the calling thread has allocated since it started; allocates nothing itself.
     *
     * @return the bytes, or -1 if the JVM cannot tell
     */
    public static long currentThread() {
        return SUPPORTED ? THREADS.getCurrentThreadAllocatedBytes() : -1;
    }

    /**
     * The ids of all live threads now.
     *
     * @return the ids
     */
    public static Set<Long> liveThreadIds() {
        final Set<Long> ids = new HashSet<>();
        for (final long id : THREADS.getAllThreadIds()) {
            ids.add(id);
        }
        return ids;
    }

    /**
     * Counts what a group of threads allocates over time: every call adds, for each live thread not excluded,
     * what it allocated since the previous call (all of it for a thread seen for the first time). Unlike a
     * plain sum over live threads, the total never shrinks when a thread ends.
     */
    public static final class Tracker {
        private final Set<Long> excluded;
        private final Map<Long, Long> last = new HashMap<>();
        private long total;

        /**
         * Tracks every thread but these.
         *
         * @param excluded threads to leave out; the set is read on each call, so it may grow
         */
        public Tracker(final Set<Long> excluded) {
            this.excluded = excluded;
        }

        /**
         * Bytes allocated by the tracked threads up to now.
         *
         * @return the running total, or -1 if the JVM cannot tell
         */
        public synchronized long total() {
            if (!SUPPORTED) {
                return -1;
            }
            final long[] ids = Arrays.stream(THREADS.getAllThreadIds()).filter(id -> !excluded.contains(id)).toArray();
            final long[] bytes = THREADS.getThreadAllocatedBytes(ids);
            for (int i = 0; i < ids.length; i++) {
                if (bytes[i] >= 0) {
                    final Long before = last.put(ids[i], bytes[i]);
                    total += bytes[i] - (before == null ? 0 : before);
                }
            }
            return total;
        }
    }
}
