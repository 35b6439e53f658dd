package dev.peregrine.bench.run;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * JIT compilation time and garbage collections of this JVM, from its MXBeans; two snapshots taken around a
 * measurement give what happened during it. A value of -1 means the JVM does not report it.
 *
 * @param jitMillis total JIT compilation time in milliseconds
 * @param gcCount collections, all collectors together
 * @param gcMillis time spent collecting in milliseconds, all collectors together
 */
public record RuntimeCounters(long jitMillis, long gcCount, long gcMillis) {
    /** Nothing is known. */
    public static final RuntimeCounters UNKNOWN = new RuntimeCounters(-1, -1, -1);

    /**
     * Reads the counters now.
     *
     * @return the snapshot
     */
    public static RuntimeCounters now() {
        final var compilation = ManagementFactory.getCompilationMXBean();
        final long jit = compilation != null && compilation.isCompilationTimeMonitoringSupported()
            ? compilation.getTotalCompilationTime() : -1;
        long count = 0;
        long time = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            time += Math.max(0, gc.getCollectionTime());
        }
        return new RuntimeCounters(jit, count, time);
    }

    /**
     * What happened between {@code earlier} and this snapshot.
     *
     * @param earlier the snapshot taken before
     * @return the differences, -1 where either side is unknown
     */
    public RuntimeCounters since(final RuntimeCounters earlier) {
        return new RuntimeCounters(diff(jitMillis, earlier.jitMillis), diff(gcCount, earlier.gcCount),
            diff(gcMillis, earlier.gcMillis));
    }

    /**
     * Adds two deltas (for several clients in one JVM use only one; for separate JVMs the sum).
     *
     * @param other the other delta
     * @return the sum, -1 where either side is unknown
     */
    public RuntimeCounters plus(final RuntimeCounters other) {
        return new RuntimeCounters(sum(jitMillis, other.jitMillis), sum(gcCount, other.gcCount),
            sum(gcMillis, other.gcMillis));
    }

    /**
     * Whether any value is known.
     *
     * @return false if all are -1
     */
    public boolean known() {
        return jitMillis >= 0 || gcCount >= 0 || gcMillis >= 0;
    }

    /**
     * Human form, e.g. {@code JIT 12 ms, GC 0 (0 ms)}, with n/a for unknown values.
     *
     * @return the text
     */
    public String describe() {
        return "JIT " + orNa(jitMillis, " ms") + ", GC " + orNa(gcCount, "") + " (" + orNa(gcMillis, " ms") + ")";
    }

    private static String orNa(final long value, final String unit) {
        return value < 0 ? "n/a" : value + unit;
    }

    private static long diff(final long a, final long b) {
        return a < 0 || b < 0 ? -1 : a - b;
    }

    private static long sum(final long a, final long b) {
        return a < 0 || b < 0 ? -1 : a + b;
    }
}
