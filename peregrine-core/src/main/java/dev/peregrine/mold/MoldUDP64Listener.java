package dev.peregrine.mold;

import java.lang.foreign.MemorySegment;

/**
 * Receives what a {@link MoldUDP64Subscriber} delivers, on the reactor thread.
 */
public interface MoldUDP64Listener {
    /**
     * The next message, in order; each sequence number is delivered exactly once. The view is valid only
     * during this call.
     *
     * @param sequence its sequence number
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length, possibly 0
     */
    void onMessage(long sequence, MemorySegment buffer, long offset, int length);

    /**
     * The subscriber's state changed.
     *
     * @param state the new state
     * @param nextExpected the sequence number of the next message to deliver
     */
    default void onStateChange(final MoldUDP64SubscriberState state, final long nextExpected) {
    }
}
