package dev.peregrine.peers;

/**
 * Sending side of a one-way stream. Used by one thread; allocates nothing per message.
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
     * Gets every message offered so far on its way: a sender that batches writes (and holds the last few
     * messages until more come) writes them now. Called once after the last {@link #offer}, before the
     * receiver is waited for; may drive the sender's event loop for a bounded time.
     */
    default void flush() {
    }

    @Override
    void close();
}
