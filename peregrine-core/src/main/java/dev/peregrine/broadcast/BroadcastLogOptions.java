package dev.peregrine.broadcast;

/**
 * How a broadcast log is made; fixed for its life.
 *
 * @param capacity records the ring holds, a power of two in [2, 2^24]
 * @param maxRecordLength the longest record in bytes, in [0, 2^20]
 * @param readers entries in the readers' table: at most this many readers at once
 * @param policy {@link BroadcastPolicy#BLOCK} or {@link BroadcastPolicy#DROP}
 * @param idleTimeoutMs under {@code BLOCK}, a reader that holds the writer back without moving for this long is
 *     evicted; 0 evicts only dead readers
 * @param initialPosition the position of the first record (0 normally; tests start near 2^31 or 2^63)
 */
public record BroadcastLogOptions(int capacity, int maxRecordLength, int readers, BroadcastPolicy policy,
    long idleTimeoutMs, long initialPosition) {
    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException naming the bad value
     */
    public BroadcastLogOptions {
        BroadcastDescriptor.checkParameters(capacity, maxRecordLength, readers);
        if (policy == null) {
            throw new IllegalArgumentException("policy=null");
        }
        if (idleTimeoutMs < 0) {
            throw new IllegalArgumentException("idleTimeoutMs=" + idleTimeoutMs + " must be at least 0");
        }
    }

    /**
     * Where logs go by default: {@code broadcast} in this user's counters directory
     * ({@link dev.peregrine.counters.CountersDirectory#defaultDirectory()}).
     *
     * @return the directory (maybe not made yet)
     */
    public static java.nio.file.Path defaultDirectory() {
        return dev.peregrine.counters.CountersDirectory.defaultDirectory().resolve("broadcast");
    }

    /**
     * Options with no idle eviction, starting at position 0.
     *
     * @param capacity records
     * @param maxRecordLength the longest record
     * @param readers entries in the readers' table
     * @param policy the policy
     * @return the options
     */
    public static BroadcastLogOptions of(final int capacity, final int maxRecordLength, final int readers,
        final BroadcastPolicy policy) {
        return new BroadcastLogOptions(capacity, maxRecordLength, readers, policy, 0, 0);
    }

    /**
     * The same options with another idle timeout.
     *
     * @param timeoutMs the idle eviction time, 0 for none
     * @return new options
     */
    public BroadcastLogOptions withIdleTimeoutMs(final long timeoutMs) {
        return new BroadcastLogOptions(capacity, maxRecordLength, readers, policy, timeoutMs, initialPosition);
    }

    /**
     * The same options starting at another position.
     *
     * @param position the first record's position
     * @return new options
     */
    public BroadcastLogOptions withInitialPosition(final long position) {
        return new BroadcastLogOptions(capacity, maxRecordLength, readers, policy, idleTimeoutMs, position);
    }
}
