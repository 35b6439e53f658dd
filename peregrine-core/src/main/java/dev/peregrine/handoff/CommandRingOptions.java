package dev.peregrine.handoff;

/**
 * Settings of a {@link ReactorCommandRing}; fluent, validated on each setter.
 */
public final class CommandRingOptions {
    private int capacity = 1 << 16;
    private int drainLimit = 256;
    private long claimTimeoutNs = 1_000_000_000L;

    /** Creates options with the defaults: 64 KiB, 256 commands a cycle, a claim timeout of one second. */
    public CommandRingOptions() {
    }

    /**
     * Bytes of the data area, a power of two from {@link CommandRingDescriptor#MIN_CAPACITY} to
     * {@link CommandRingDescriptor#MAX_CAPACITY}; the longest message is
     * {@link CommandRingDescriptor#maxMessageLength(int) half of it} less a record header.
     *
     * @param capacity bytes
     * @return this
     */
    public CommandRingOptions capacity(final int capacity) {
        if (capacity < CommandRingDescriptor.MIN_CAPACITY || capacity > CommandRingDescriptor.MAX_CAPACITY
            || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " is not a power of two from "
                + CommandRingDescriptor.MIN_CAPACITY + " to " + CommandRingDescriptor.MAX_CAPACITY);
        }
        this.capacity = capacity;
        return this;
    }

    /**
     * Most commands one duty cycle takes from the ring, so that busy producers cannot starve the sockets.
     *
     * @param drainLimit at least 1
     * @return this
     */
    public CommandRingOptions drainLimit(final int drainLimit) {
        if (drainLimit < 1) {
            throw new IllegalArgumentException("drainLimit=" + drainLimit);
        }
        this.drainLimit = drainLimit;
        return this;
    }

    /**
     * How long a claim may stay uncommitted at the head of the ring before the reactor pads over it, counted from
     * the first duty cycle that found it blocking the head. GC pauses and descheduling of milliseconds are normal:
     * keep it at a second or more outside tests.
     *
     * @param claimTimeoutNs nanoseconds, at least one millisecond
     * @return this
     */
    public CommandRingOptions claimTimeoutNs(final long claimTimeoutNs) {
        if (claimTimeoutNs < 1_000_000L) {
            throw new IllegalArgumentException("claimTimeoutNs=" + claimTimeoutNs + " is below one millisecond");
        }
        this.claimTimeoutNs = claimTimeoutNs;
        return this;
    }

    /**
     * The data capacity.
     *
     * @return bytes
     */
    public int capacity() {
        return capacity;
    }

    /**
     * The most commands taken per duty cycle.
     *
     * @return a count
     */
    public int drainLimit() {
        return drainLimit;
    }

    /**
     * The claim timeout.
     *
     * @return nanoseconds
     */
    public long claimTimeoutNs() {
        return claimTimeoutNs;
    }
}
