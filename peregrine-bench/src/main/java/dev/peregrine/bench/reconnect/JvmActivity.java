package dev.peregrine.bench.reconnect;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What the JVM did besides the run, between two readings: garbage collections (count and time) and the JIT's
 * compilation time (all compiler threads together). Compilation during a measured run is code still warming up, on
 * a core the two reactor threads share with it.
 */
final class JvmActivity {
    private final long collections;
    private final long collectionMs;
    private final long compileMs;
    private final long uptimeMs;

    private JvmActivity(final long collections, final long collectionMs, final long compileMs, final long uptimeMs) {
        this.collections = collections;
        this.collectionMs = collectionMs;
        this.compileMs = compileMs;
        this.uptimeMs = uptimeMs;
    }

    /** The counts now. */
    static JvmActivity now() {
        long count = 0;
        long ms = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            ms += Math.max(0, gc.getCollectionTime());
        }
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        final long compile = jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
        return new JvmActivity(count, ms, compile, ManagementFactory.getRuntimeMXBean().getUptime());
    }

    /** One line: what happened since this reading. */
    String since() {
        final JvmActivity end = now();
        return String.format(Locale.ROOT, "  the JVM during the run (JVM uptime %.3f s to %.3f s): %d garbage"
            + " collections, %d ms; JIT compiling %s", uptimeMs / 1e3, end.uptimeMs / 1e3, end.collections - collections,
            end.collectionMs - collectionMs, compileMs < 0 ? "not measured" : (end.compileMs - compileMs) + " ms");
    }
}
