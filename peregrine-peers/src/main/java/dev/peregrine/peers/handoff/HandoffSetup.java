package dev.peregrine.peers.handoff;

/**
 * How a {@code bench handoff} run opens a queue.
 *
 * @param size bytes of every message, from {@link HandoffMessage#MIN_SIZE} to {@link HandoffMessage#MAX_SIZE}
 * @param producers producer threads, 1 or more ({@link HandoffImplementation#manyProducers()} for more than 1)
 * @param capacity messages the queue holds (a byte ring is sized to hold this many of {@code size})
 * @param readLimit the most messages one {@link HandoffConsumer#poll} delivers
 * @param yielding whether the threads yield when they wait (two producers on two cores) rather than spin; a queue
 *     whose API takes a wait strategy picks the matching one
 */
public record HandoffSetup(int size, int producers, int capacity, int readLimit, boolean yielding) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException for a value out of range
     */
    public HandoffSetup {
        HandoffMessage.checkSize(size);
        if (producers < 1 || producers > HandoffMessage.MAX_PRODUCERS) {
            throw new IllegalArgumentException("producers=" + producers + " is not in [1, "
                + HandoffMessage.MAX_PRODUCERS + "]");
        }
        if (capacity < 2 || Integer.bitCount(capacity) != 1 || capacity < producers) {
            throw new IllegalArgumentException("capacity=" + capacity + " is not a power of two of at least 2 and"
                + " producers=" + producers);
        }
        if (readLimit < 1) {
            throw new IllegalArgumentException("readLimit=" + readLimit + " must be at least 1");
        }
    }

    /**
     * Bytes of a ring that holds {@link #capacity()} records of this size.
     *
     * @param recordOverhead bytes each record adds to the message (its header), before alignment to 8
     * @param minimum the ring's own least capacity
     * @return a power of two
     */
    public int ringBytes(final int recordOverhead, final int minimum) {
        final int record = (size + recordOverhead + 7) & ~7;
        final long bytes = Math.max((long)record * capacity, minimum);
        final long power = Long.highestOneBit(bytes - 1) << 1;
        if (power > 1 << 30) {
            throw new IllegalArgumentException("capacity=" + capacity + " of size=" + size + " needs " + power
                + " bytes, more than a ring takes");
        }
        return (int)power;
    }
}
