package dev.peregrine.handoff;

import dev.peregrine.channel.CloseReason;

import java.lang.foreign.MemorySegment;

/**
 * What a worker thread receives from a {@link WorkerDemux}, on that worker's thread, in the order the reactor saw
 * it for each key. Only {@link #onMessage} is mandatory.
 *
 * <p>A call that throws is contained by the {@link WorkerAgent}: the channel is closed through the command ring,
 * the error is counted and reported, and the channel's later messages are skipped until its {@link #onClosed}.
 */
public interface WorkerHandler {
    /**
     * The channel was accepted or connected; its messages follow.
     *
     * @param channelId the channel
     */
    default void onOpened(final long channelId) {
    }

    /**
     * A message. The view is valid only during this call.
     *
     * @param channelId the channel it arrived on
     * @param buffer memory holding the message
     * @param offset where it starts
     * @param length its length, possibly 0
     */
    void onMessage(long channelId, MemorySegment buffer, long offset, int length);

    /**
     * The channel closed; no event for it follows.
     *
     * @param channelId the channel
     * @param reason who or what closed it (the detail stays on the reactor thread)
     */
    default void onClosed(final long channelId, final CloseReason reason) {
    }
}
