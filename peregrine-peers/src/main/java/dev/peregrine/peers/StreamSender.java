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

    @Override
    void close();
}
