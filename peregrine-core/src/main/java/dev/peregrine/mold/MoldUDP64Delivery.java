package dev.peregrine.mold;

import dev.peregrine.internal.jfr.MoldGapFilledEvent;
import dev.peregrine.internal.jfr.MoldGapUnrecoverableEvent;

import java.lang.foreign.MemorySegment;

/**
 * What a {@link MoldUDP64Subscriber} tells its listener, in order: the messages of a packet that starts at or
 * before the next expected one, the messages held past a gap as they become contiguous (and the keeping of a
 * packet past a gap in the reorder buffer), filled and unrecoverable gaps, and state changes; and a listener
 * that throws from any of them ending the subscriber. The counts it keeps are the subscriber's fields, read by
 * its getters. Nothing allocates per packet or message. Not thread-safe: the subscriber's reactor thread.
 */
final class MoldUDP64Delivery {
    private final MoldUDP64Subscriber subscriber;

    MoldUDP64Delivery(final MoldUDP64Subscriber subscriber) {
        this.subscriber = subscriber;
    }

    /** Delivers a packet that starts at or before the next expected message. */
    int deliver(final MemorySegment buffer, final long offset, final long sequence, final int count, final boolean answer) {
        long position = offset + MoldUDP64Layout.HEADER_LENGTH;
        int deliveredNow = 0;
        for (int i = 0; i < count; i++) {
            final int messageLength = MoldUDP64Layout.messageLength(buffer, position);
            final long messageSequence = sequence + i;
            if (messageSequence < subscriber.nextExpected) {
                subscriber.duplicates++;
            } else {
                if (subscriber.reorder.contains(messageSequence)) {
                    subscriber.reorder.release(messageSequence); // delivered from this copy: the buffered one is a duplicate
                    subscriber.duplicates++;
                }
                subscriber.nextExpected = messageSequence + 1; // first, so a throwing listener cannot cause a redelivery
                subscriber.delivered++;
                deliveredNow++;
                if (answer) {
                    subscriber.recovered++;
                }
                if (!onMessage(messageSequence, buffer, position + MoldUDP64Layout.BLOCK_HEADER_LENGTH, messageLength)) {
                    break; // the listener failed or closed the subscriber: nothing more from this packet
                }
            }
            position += MoldUDP64Layout.BLOCK_HEADER_LENGTH + messageLength;
        }
        return deliveredNow;
    }

    /** Delivers the buffered messages that follow on from the next expected one. */
    int drain() {
        int deliveredNow = 0;
        while (subscriber.reorder.contains(subscriber.nextExpected)) {
            final long messageSequence = subscriber.nextExpected;
            subscriber.nextExpected = messageSequence + 1;
            subscriber.delivered++;
            deliveredNow++;
            if (subscriber.reorder.fromAnswer(messageSequence)) {
                subscriber.recovered++;
            }
            final boolean delivering = onMessage(messageSequence, subscriber.reorder.segment(), subscriber.reorder.dataOffset(messageSequence),
                subscriber.reorder.length(messageSequence));
            subscriber.reorder.release(messageSequence);
            if (!delivering) {
                break; // the listener failed or closed the subscriber: nothing more from the buffer
            }
        }
        return deliveredNow;
    }

    /** Hands one message to the listener; false if it threw (the subscriber has failed) or closed the subscriber. */
    private boolean onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
        try {
            subscriber.listener.onMessage(sequence, buffer, offset, length);
            return !subscriber.closed;
        } catch (final Throwable ex) {
            listenerFailed("onMessage for message " + sequence, ex);
            return false;
        }
    }

    /** Reports a filled gap to the listener; the gap list calls this. */
    void gapFilled(final long fromSequence, final long count, final long nanos) {
        if (subscriber.ended()) {
            return;
        }
        MoldGapFilledEvent.emit(subscriber.feedLabel, fromSequence, count, nanos);
        try {
            subscriber.listener.onGapFilled(fromSequence, count, nanos);
        } catch (final Throwable ex) {
            listenerFailed("onGapFilled for " + count + " messages from " + fromSequence, ex);
        }
    }

    /**
     * The listener threw: count and report it, and end the subscriber (the first time): release both sockets,
     * leave the reactor, become {@link MoldUDP64SubscriberState#FAILED} and say so to the listener.
     */
    private void listenerFailed(final String callback, final Throwable ex) {
        subscriber.handlerFailures++;
        final boolean first = subscriber.state != MoldUDP64SubscriberState.FAILED;
        final String detail = "listener failed in " + callback + ": " + ex;
        try {
            subscriber.errorHandler.onError(new IllegalStateException("MoldUDP64 " + detail
                + (first ? "; the subscriber is FAILED, its sockets closed" : "") + ", the reactor goes on", ex));
        } finally {
            if (first) {
                subscriber.fail(detail);
            }
        }
    }

    /**
     * Keeps a packet that starts past the next expected message in the reorder buffer, and takes the
     * messages it brings out of the gaps; without room, drops it and makes its new ground a gap.
     */
    void keep(final MemorySegment buffer, final long offset, final int length, final long sequence, final int count,
        final long known, final boolean answer, final long nowNs) {
        final long end = sequence + count;
        final int slot = subscriber.reorder.store(buffer, offset, length, answer);
        if (slot < 0) {
            overflow(Math.max(sequence, known), end, nowNs);
            return;
        }
        // near the top of the sequence space the sum would wrap: nothing past a gap would be kept
        final long limit = subscriber.nextExpected > Long.MAX_VALUE - subscriber.reorder.window() ? Long.MAX_VALUE : subscriber.nextExpected + subscriber.reorder.window();
        long position = offset + MoldUDP64Layout.HEADER_LENGTH;
        long runFrom = -1;
        long runTo = -1;
        long messageSequence = sequence;
        for (; messageSequence < end && messageSequence < limit; messageSequence++) {
            final int messageLength = MoldUDP64Layout.messageLength(buffer, position);
            if (subscriber.reorder.contains(messageSequence)) {
                subscriber.duplicates++;
            } else {
                subscriber.reorder.put(messageSequence, slot, (int)(position - offset) + MoldUDP64Layout.BLOCK_HEADER_LENGTH, messageLength);
            }
            // old ground leaves the gaps, a message held already included: a full gap list merges new ground into its
            // last gap over held messages, and a gap left on a held message alone would be asked for every round trip
            if (messageSequence < known) {
                if (runTo != messageSequence) {
                    if (runFrom >= 0) {
                        subscriber.gaps.subtract(runFrom, runTo, nowNs);
                    }
                    runFrom = messageSequence;
                }
                runTo = messageSequence + 1;
            }
            position += MoldUDP64Layout.BLOCK_HEADER_LENGTH + messageLength;
        }
        if (runFrom >= 0) {
            subscriber.gaps.subtract(runFrom, runTo, nowNs);
        }
        subscriber.reorder.seal(slot);
        if (messageSequence < end) { // past the index's reach
            overflow(Math.max(messageSequence, known), end, nowNs);
        }
    }

    private void overflow(final long from, final long end, final long nowNs) {
        subscriber.bufferOverflows++;
        if (from < end) {
            subscriber.gaps.add(from, end, nowNs);
        }
    }

    /** A gap cannot be filled: counted, reported to the listener, and the subscriber becomes UNRECOVERABLE. */
    void giveUp(final long from, final long count, final MoldUDP64GapReason reason) {
        subscriber.unrecoverable++;
        subscriber.unrecoverableReason = reason;
        MoldGapUnrecoverableEvent.emit(subscriber.feedLabel, from, count, reason);
        try {
            subscriber.listener.onUnrecoverable(from, count, reason);
        } catch (final Throwable ex) {
            listenerFailed("onUnrecoverable for " + count + " messages from " + from, ex);
            return;
        }
        changeState(MoldUDP64SubscriberState.UNRECOVERABLE);
    }

    void changeState(final MoldUDP64SubscriberState newState) {
        if (subscriber.state != newState) {
            subscriber.state = newState;
            try {
                subscriber.listener.onStateChange(newState, subscriber.nextExpected);
            } catch (final Throwable ex) {
                listenerFailed("onStateChange(" + newState + ")", ex);
            }
        }
    }
}
