package dev.peregrine.handoff;

import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.internal.CacheLinePadding;
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
 * What the reactor writes as it dispatches (per command: the delivered count; per batch: its place in it), on a
 * cache-line pair of its own: the object is made right after the ring's memory segment, whose fields every producer
 * reads on every access, and would otherwise share its line.
 */
abstract class CommandRingDispatcherFields extends CacheLinePadding {
    /** The next message to hand over of the batch at the head: where a refusal or the drain limit stopped it. */
    int batchNext;
    /**
     * The transports whose back-pressure flag this dispatcher set, one bit each ({@code MAX_TRANSPORTS} is 32): it
     * is the flags' only writer, so it need not load a flag per command to know whether to clear it.
     */
    int flagsSet;
    /**
     * Commands delivered, published to the ring's counter once per drain
     * ({@link CommandRingDispatcher#publishDelivered}).
     */
    long delivered;
    long deliveredPublished;
    long unreportedDiscards;
    long lastReportNs;
    boolean reportedOnce;
}

abstract class CommandRingDispatcherPad extends CommandRingDispatcherFields {
    byte p1_00, p1_01, p1_02, p1_03, p1_04, p1_05, p1_06, p1_07, p1_08, p1_09, p1_0a, p1_0b, p1_0c, p1_0d, p1_0e, p1_0f;
    byte p1_10, p1_11, p1_12, p1_13, p1_14, p1_15, p1_16, p1_17, p1_18, p1_19, p1_1a, p1_1b, p1_1c, p1_1d, p1_1e, p1_1f;
    byte p1_20, p1_21, p1_22, p1_23, p1_24, p1_25, p1_26, p1_27, p1_28, p1_29, p1_2a, p1_2b, p1_2c, p1_2d, p1_2e, p1_2f;
    byte p1_30, p1_31, p1_32, p1_33, p1_34, p1_35, p1_36, p1_37, p1_38, p1_39, p1_3a, p1_3b, p1_3c, p1_3d, p1_3e, p1_3f;
    byte p1_40, p1_41, p1_42, p1_43, p1_44, p1_45, p1_46, p1_47, p1_48, p1_49, p1_4a, p1_4b, p1_4c, p1_4d, p1_4e, p1_4f;
    byte p1_50, p1_51, p1_52, p1_53, p1_54, p1_55, p1_56, p1_57, p1_58, p1_59, p1_5a, p1_5b, p1_5c, p1_5d, p1_5e, p1_5f;
    byte p1_60, p1_61, p1_62, p1_63, p1_64, p1_65, p1_66, p1_67, p1_68, p1_69, p1_6a, p1_6b, p1_6c, p1_6d, p1_6e, p1_6f;
    byte p1_70, p1_71, p1_72, p1_73, p1_74, p1_75, p1_76, p1_77, p1_78, p1_79, p1_7a, p1_7b, p1_7c, p1_7d, p1_7e, p1_7f;
    byte p1_80, p1_81, p1_82, p1_83, p1_84, p1_85, p1_86, p1_87;
}

/**
 * The reactor's side of a {@link ReactorCommandRing}: hands the commands its drain takes to their transports, keeps
 * its place in a batch that a back-pressured transport or the drain limit cut short, and counts and reports what it
 * discards. Reactor thread only; a separate object, so that what it writes per command is on lines of its own, away
 * from the ring's fields that producers read per claim, and padded ({@link CommandRingDispatcherFields}).
 */
final class CommandRingDispatcher extends CommandRingDispatcherPad {
    private static final long REPORT_INTERVAL_NS = 1_000_000_000L;

    private final Reactor reactor;
    private final MemorySegment segment;
    private final Transport[] transports = new Transport[MAX_TRANSPORTS];

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
