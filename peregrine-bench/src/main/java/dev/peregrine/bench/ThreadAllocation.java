package dev.peregrine.bench;

import com.sun.management.ThreadMXBean;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashSet;
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
     * Bytes allocated so far by the live threads not in {@code excluded}, all together.
     *
     * @param excluded threads to leave out (those that existed before the transport started, the caller)
     * @return the bytes, or -1 if the JVM cannot tell
     */
    public static long threadsExcept(final Set<Long> excluded) {
        if (!SUPPORTED) {
            return -1;
        }
        final long[] ids = Arrays.stream(THREADS.getAllThreadIds()).filter(id -> !excluded.contains(id)).toArray();
        long total = 0;
        for (final long bytes : THREADS.getThreadAllocatedBytes(ids)) {
            if (bytes > 0) {
                total += bytes; // -1: the thread ended between the two calls
            }
        }
        return total;
    }
}
