package dev.peregrine.reactor;

/**
 * The one allocation of the JDK's selector that Peregrine cannot remove itself, and the JVM option that removes it.
 *
 * <p>The JDK's epoll selector finds a ready channel's key by its file descriptor in a
 * {@code HashMap<Integer, SelectionKeyImpl>}: every ready channel of every {@code selectNow} boxes its descriptor
 * ({@code sun.nio.ch.EPollSelectorImpl.processEvents}, {@code fdToKey.get(fd)}), and so does every change of a
 * channel's interest set. {@code Integer.valueOf} hands out a shared instance only up to the JVM's Integer cache,
 * 127 unless {@code -XX:AutoBoxCacheMax} raises it: a process with more than about a hundred descriptors open (any
 * server, and any test JVM that has loaded enough jars) allocates 16 bytes per ready channel per cycle, which
 * escape analysis does not remove. Measured: {@code PeregrineWorkerResponderTest} with 300 descriptors held open
 * before its sockets allocated 24 000 bytes in every window of 1 500 echoes on the reactor thread, and none with
 * {@value #JVM_OPTION}.
 *
 * <p>The launcher, the bench's child processes and the test JVMs run with {@value #JVM_OPTION}; a
 * {@link Reactor} made in a JVM without it logs one warning ({@link System.Logger}, level WARNING) that names the
 * option. Raise the value above the highest descriptor the process may hold (its {@code ulimit -n}) if that is
 * more; the cache costs about 16 bytes per value, 1 MiB at the default.
 *
 * <p>Threading: any thread.
 */
public final class SelectorBoxing {
    /** The Integer cache bound the launcher sets: descriptors up to this are boxed without allocating. */
    public static final int CACHE_MAX = 65_536;
    /** The JVM option that sets it. */
    public static final String JVM_OPTION = "-XX:AutoBoxCacheMax=65536";

    private static volatile boolean warned;

    private SelectorBoxing() {
    }

    /**
     * The largest {@code int} that {@link Integer#valueOf(int)} answers from its cache in this JVM: 127 unless
     * {@code -XX:AutoBoxCacheMax} raised it. Found by a binary search that allocates a few dozen Integers: call it
     * at start-up, not in a cycle.
     *
     * @return the cache's upper bound
     */
    public static int integerCacheHigh() {
        int cached = 127; // the language guarantees -128..127
        int notCached = Integer.MAX_VALUE; // the cache is an array: never the whole int range
        while (notCached - cached > 1) {
            final int middle = cached + (notCached - cached) / 2;
            if (isCached(middle)) {
                cached = middle;
            } else {
                notCached = middle;
            }
        }
        return cached;
    }

    /**
     * Whether this JVM's selector boxes descriptors up to {@link #CACHE_MAX} without allocating.
     *
     * @return true with {@value #JVM_OPTION} or a larger cache
     */
    public static boolean allocationFree() {
        return isCached(CACHE_MAX);
    }

    /** Once per JVM: the warning of a reactor made where the selector allocates per ready channel. */
    static void warnIfAllocating() {
        if (!warned && !allocationFree()) {
            warned = true;
            System.getLogger(Reactor.class.getName()).log(System.Logger.Level.WARNING,
                "Integer cache ends at " + integerCacheHigh() + ": the JDK's selector allocates 16 bytes for every"
                    + " ready channel whose file descriptor is above it; start the JVM with " + JVM_OPTION);
        }
    }

    private static boolean isCached(final int value) {
        return Integer.valueOf(value) == Integer.valueOf(value);
    }
}
