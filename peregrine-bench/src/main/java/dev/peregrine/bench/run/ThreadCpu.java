package dev.peregrine.bench.run;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time of the calling thread ({@code ThreadMXBean.getCurrentThreadCpuTime}, {@code CLOCK_THREAD_CPUTIME_ID} on
 * Linux): how much of a core a measured thread used over its window, so that a report can say when a run asked for
 * more cores than the machine has and its tail latency is the scheduler's.
 */
public final class ThreadCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean SUPPORTED = supported();

    private ThreadCpu() {
    }

    private static boolean supported() {
        try {
            if (THREADS.isCurrentThreadCpuTimeSupported() && !THREADS.isThreadCpuTimeEnabled()) {
                THREADS.setThreadCpuTimeEnabled(true);
            }
            return THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
        } catch (final UnsupportedOperationException | SecurityException ex) {
            return false;
        }
    }

    /**
     * CPU time the calling thread has used since it started, user and system; allocates nothing.
     *
     * @return nanoseconds, or -1 if the JVM cannot tell
     */
    public static long currentThreadNs() {
        return SUPPORTED ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /**
     * The share of one core a thread used over a window.
     *
     * @param cpuAtStartNs {@link #currentThreadNs()} at the window's start, or -1
     * @param cpuAtEndNs the same at its end, or -1
     * @param wallNs the window's length on the monotonic clock
     * @return CPU time over wall time (1.0: a whole core), or -1 if either reading is unknown or the window empty
     */
    public static double share(final long cpuAtStartNs, final long cpuAtEndNs, final long wallNs) {
        if (cpuAtStartNs < 0 || cpuAtEndNs < cpuAtStartNs || wallNs <= 0) {
            return -1;
        }
        return (double)(cpuAtEndNs - cpuAtStartNs) / wallNs;
    }
}
