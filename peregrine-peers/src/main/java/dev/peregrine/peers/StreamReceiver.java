package dev.peregrine.peers;

import java.util.function.LongConsumer;

/**
 * Receiving side of a one-way stream, polled by the caller's thread.
 */
public interface StreamReceiver extends AutoCloseable {
    /**
     * Delivers whatever has arrived.
     *
     * @param sequences receives the sequence number of each message, in arrival order
     * @return the number of messages delivered by this call
     */
    int poll(LongConsumer sequences);

    @Override
    void close();
}
