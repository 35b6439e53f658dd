package dev.peregrine.handoff;

import java.lang.foreign.MemorySegment;

/**
 * Picks the key that chooses a message's worker in a {@link WorkerDemux}: messages with one key keep their order.
 * Called on the reactor thread for every message; must not allocate or keep the view.
 */
@FunctionalInterface
public interface KeyFunction {
    /** The default: the channel id, so that each channel's messages keep their order. */
    KeyFunction CHANNEL_ID = (channelId, buffer, offset, length) -> channelId;

    /**
     * The key of one message.
     *
     * @param channelId the channel it arrived on
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length
     * @return the key
     */
    long key(long channelId, MemorySegment buffer, long offset, int length);
}
