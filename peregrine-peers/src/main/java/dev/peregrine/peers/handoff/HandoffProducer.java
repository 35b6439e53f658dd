package dev.peregrine.peers.handoff;

/**
 * The producer side of a {@link HandoffQueue}, used by one thread. Neither method waits: a full queue answers at
 * once, and the caller decides how to wait.
 */
public interface HandoffProducer {
    /**
     * Hands over one message: copies all its bytes into the queue, with this header.
     *
     * @param sequence the tagged sequence
     * @param timestampNs the timestamp
     * @return true if taken, false if the queue is full (nothing taken)
     */
    boolean offer(long sequence, long timestampNs);

    /**
     * Hands over up to {@code count} messages with sequences from {@code firstSequence} up, timestamp 0, batched as
     * the queue's API batches (one claim and one publication for all, where it has them).
     *
     * @param firstSequence the first tagged sequence
     * @param count the most to hand over, at least 1
     * @return how many were taken, the first ones; 0 if the queue is full
     */
    int offerBatch(long firstSequence, int count);
}
