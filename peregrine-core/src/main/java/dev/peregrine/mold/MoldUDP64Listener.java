package dev.peregrine.mold;

import java.lang.foreign.MemorySegment;

/**
 * Receives what a {@link MoldUDP64Subscriber} delivers, on the reactor thread.
 *
 * <p>An exception thrown from any of these callbacks ends that subscriber only: it becomes
 * {@link MoldUDP64SubscriberState#FAILED} ({@link MoldUDP64Subscriber#failure()} names the callback and the
 * exception), its sockets are released, the failure is counted ({@link MoldUDP64Subscriber#handlerFailures()})
 * and reported to the reactor's error handler, and {@link #onStateChange} with {@code FAILED} is the last call
 * it makes: nothing is delivered after it, not even the rest of the packet at hand. The reactor and everything
 * else on it go on. (A message the listener could not take is never skipped silently.)
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

    /**
     * Every message of a gap is now at hand (delivered, or held in the reorder buffer behind an earlier
     * gap): the recovery-latency hook. Called once per gap record; a gap split by packets that arrived in
     * its middle reports each part.
     *
     * @param fromSequence the gap's first sequence number
     * @param count how many messages it had
     * @param nanos from its detection to now, on the reactor's clock
     */
    default void onGapFilled(final long fromSequence, final long count, final long nanos) {
    }

    /**
     * A gap cannot be filled: the subscriber is {@link MoldUDP64SubscriberState#UNRECOVERABLE} from now on
     * and delivers nothing more ({@link MoldUDP64Subscriber#nextExpected()} is the first message not
     * delivered; lower gaps may still have been open). Called once, before {@link #onStateChange}.
     *
     * @param fromSequence the first message missing
     * @param count how many are missing from there, as far as the subscriber knows
     * @param reason why
     */
    default void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
    }
}
