package dev.peregrine.handoff;

import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.reactor.Reactor;

import java.lang.foreign.MemorySegment;

import static dev.peregrine.handoff.CommandRingDescriptor.BATCH_COUNT_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.BATCH_HEADER_LENGTH;
import static dev.peregrine.handoff.CommandRingDescriptor.BATCH_MESSAGE_LENGTH_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.CHANNEL_ID_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.DELIVERED_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.DISCARDED_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.FLAGS_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.INT;
import static dev.peregrine.handoff.CommandRingDescriptor.LONG;
import static dev.peregrine.handoff.CommandRingDescriptor.MAX_TRANSPORTS;
import static dev.peregrine.handoff.CommandRingDescriptor.MISUSE_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.handoff.CommandRingDescriptor.TRANSPORT_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_ABORT;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_CLOSE;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_SEND;
import static dev.peregrine.handoff.CommandRingDescriptor.aligned;
import static dev.peregrine.handoff.CommandRingDescriptor.batchRecordLength;

/**
 * The reactor's side of a {@link ReactorCommandRing}: hands the commands its drain takes to their transports, keeps
 * its place in a batch that a back-pressured transport or the drain limit cut short, and counts and reports what it
 * discards. Reactor thread only; a separate object, so that what it writes per command is on lines of its own, away
 * from the ring's fields that producers read per claim.
 */
final class CommandRingDispatcher {
    private static final long REPORT_INTERVAL_NS = 1_000_000_000L;

    private final Reactor reactor;
    private final MemorySegment segment;
    private final Transport[] transports = new Transport[MAX_TRANSPORTS];
    /** The next message to hand over of the batch at the head: where a refusal or the drain limit stopped it. */
    private int batchNext;
    /**
     * The transports whose back-pressure flag this dispatcher set, one bit each ({@code MAX_TRANSPORTS} is 32): it
     * is the flags' only writer, so it need not load a flag per command to know whether to clear it.
     */
    private int flagsSet;
    /** Commands delivered, published to the ring's counter once per drain ({@link #publishDelivered}). */
    private long delivered;
    private long deliveredPublished;
    private long unreportedDiscards;
    private long lastReportNs;
    private boolean reportedOnce;

    CommandRingDispatcher(final Reactor reactor, final MemorySegment segment) {
        this.reactor = reactor;
        this.segment = segment;
    }

    void register(final int index, final Transport transport) {
        transports[index] = transport;
    }

    /**
     * Publishes the delivered count to the ring's counter, once per drain rather than once per command; reactor
     * thread, at the end of each drain.
     */
    void publishDelivered() {
        if (delivered != deliveredPublished) {
            deliveredPublished = delivered;
            LONG.setRelease(segment, (long)DELIVERED_OFFSET, delivered); // pairs with delivered()'s volatile read
        }
    }

    /** The batch at the head is all handed over: the next one starts from its first message. */
    void batchDone() {
        batchNext = 0;
    }

    /**
     * Messages of the batch at the head still to hand over; none, counted as misuse, when its header does not add up
     * to the record's length (a producer wrote over it): nothing of it is sent.
     */
    int batchRemaining(final long offset, final int recordLength) {
        final int count = (int)INT.get(segment, offset + BATCH_COUNT_OFFSET);
        final int length = (int)INT.get(segment, offset + BATCH_MESSAGE_LENGTH_OFFSET);
        if (count < 1 || length < 0 || batchRecordLength(length, count) != recordLength) {
            LONG.getAndAdd(segment, (long)MISUSE_OFFSET, 1L);
            return 0;
        }
        return count - batchNext;
    }

    /**
     * Hands up to {@code budget} messages of the batch at the head to its transport, from {@link #batchNext}; stops
     * early at a back-pressured transport (then fewer than {@code budget}: the batch stays at the head).
     *
     * @param budget at most {@link #batchRemaining}
     * @return the messages handed over (delivered or discarded)
     */
    int dispatchBatch(final long offset, final int budget, final long nowNs) {
        if (budget <= 0) {
            return 0;
        }
        final int transportIndex = (int)INT.get(segment, offset + TRANSPORT_OFFSET);
        final long channelId = (long)LONG.get(segment, offset + CHANNEL_ID_OFFSET);
        final int length = (int)INT.get(segment, offset + BATCH_MESSAGE_LENGTH_OFFSET);
        final long stride = aligned(length);
        final int first = batchNext;
        int next = first;
        while (next - first < budget) {
            if (!dispatch(TYPE_SEND, transportIndex, channelId, offset + BATCH_HEADER_LENGTH + next * stride, length,
                nowNs)) {
                break;
            }
            next++;
        }
        batchNext = next;
        return next - first;
    }

    /** Hands one record to its transport; false when the transport is back-pressured (the record stays). */
    boolean dispatch(final int type, final long offset, final int recordLength, final long nowNs) {
        return dispatch(type, (int)INT.get(segment, offset + TRANSPORT_OFFSET),
            (long)LONG.get(segment, offset + CHANNEL_ID_OFFSET), offset + RECORD_HEADER_LENGTH,
            recordLength - RECORD_HEADER_LENGTH, nowNs);
    }

    /** Hands one command to its transport; false when the transport is back-pressured (the command stays). */
    private boolean dispatch(final int type, final int transportIndex, final long channelId, final long payloadOffset,
                             final int payloadLength, final long nowNs) {
        final Transport transport = transports[transportIndex];
        long result = 0;
        try {
            if (type == TYPE_SEND) {
                result = transport.send(channelId, segment, payloadOffset, payloadLength);
            } else if (type == TYPE_CLOSE) {
                transport.close(channelId);
            } else if (type == TYPE_ABORT) {
                transport.abort(channelId);
            } else {
                result = Long.MIN_VALUE;
            }
        } catch (final RuntimeException ex) {
            discard(transportIndex, channelId, Long.MIN_VALUE, ex, nowNs);
            return true;
        }
        final int flagBit = 1 << transportIndex;
        if (result == SendResult.BACK_PRESSURED) {
            flagsSet |= flagBit;
            INT.setRelease(segment, (long)FLAGS_OFFSET + 4L * transportIndex, 1); // pairs with tryClaim's acquire
            return false;
        }
        if ((flagsSet & flagBit) != 0) { // a bit of our own, not a load of the flag per command
            flagsSet &= ~flagBit;
            INT.setRelease(segment, (long)FLAGS_OFFSET + 4L * transportIndex, 0);
        }
        if (result < 0) {
            discard(transportIndex, channelId, result, null, nowNs);
        } else {
            delivered++;
        }
        return true;
    }

    private void discard(final int transportIndex, final long channelId, final long result, final Throwable cause,
                         final long nowNs) {
        LONG.setRelease(segment, (long)DISCARDED_OFFSET, (long)LONG.get(segment, (long)DISCARDED_OFFSET) + 1);
        unreportedDiscards++;
        if (reportedOnce && nowNs - lastReportNs < REPORT_INTERVAL_NS) {
            return;
        }
        reportedOnce = true;
        lastReportNs = nowNs;
        final String outcome = cause != null ? "the transport threw" : SendResult.describe(result);
        reactor.errorHandler().onError(new IllegalStateException("command ring of reactor " + reactor.name() + ": discarded "
            + unreportedDiscards + " committed command(s) since the last report; the last: transport=" + transportIndex
            + ", channelId=" + channelId + ", result=" + outcome, cause));
        unreportedDiscards = 0;
    }
}
