package dev.peregrine.peers;

/**
 * Sending side of a one-way stream. Used by one thread; allocates nothing per message.
 *
 * <p>Messages are offered in batches, as an application with many messages at once sends them: a sender may
 * hold offered messages back (in a buffered stream, a channel's outbound buffer, a large direct buffer) and
 * hand them to the kernel when its buffer is full or when {@link #flush()} ends the batch. A sender that
 * holds messages back hands them on before it refuses one, so that a refused offer never waits for a flush.
 */
public interface StreamSender extends AutoCloseable {
    /**
     * Offers one message of the configured size carrying {@code sequence} in its first 8 bytes.
     *
     * @param sequence the sequence number
     * @return false if the transport is back-pressured (nothing taken; offer again)
     */
    boolean offer(long sequence);

    /**
     * Offers a run of up to {@code count} messages carrying {@code firstSequence}, {@code firstSequence + 1}, and
     * so on, as a sender with that many messages at hand would: one {@link #offer(long)} after another, stopping
     * at the first refused ({@link #offerEach}), unless the transport takes a run in one step of its own. A
     * sender whose {@code offer} is cheap overrides this with a call of {@link #offerEach} on itself: compiled
     * into its own override, the loop's call of {@code offer(long)} is that class's alone, where in this default
     * method it is one call site shared by every transport of the JVM.
     *
     * @param firstSequence the sequence number of the first message
     * @param count how many messages at most, at least 1
     * @return how many were taken, from the first (0 if the transport is back-pressured)
     */
    default int offer(final long firstSequence, final int count) {
        return offerEach(this, firstSequence, count);
    }

    /**
     * One {@link #offer(long)} after another, stopping at the first refused.
     *
     * @param sender the sender
     * @param firstSequence the sequence number of the first message
     * @param count how many messages at most
     * @return how many were taken, from the first
     */
    static int offerEach(final StreamSender sender, final long firstSequence, final int count) {
        int taken = 0;
        while (taken < count && sender.offer(firstSequence + taken)) {
            taken++;
        }
        return taken;
    }

    /**
     * Ends a batch: hands every message offered so far to the kernel (or to the transport's own sending
     * machinery), as far as it takes them; a blocking transport may block here like its users' flush does.
     * Called after every batch and, repeatedly until it returns true, after the last message.
     *
     * @return true if no offered message is left waiting in this sender
     */
    default boolean flush() {
        return true;
    }

    @Override
    void close();
}
