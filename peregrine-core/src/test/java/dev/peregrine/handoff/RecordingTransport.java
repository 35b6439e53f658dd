package dev.peregrine.handoff;

import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A transport that takes sends on the reactor thread and checks them as they come, allocating nothing: each payload
 * starts with a producer number (int) and that producer's sequence (long), and each producer's sequence must rise by
 * one. Channels in {@link #closedChannel} answer {@code CLOSED}; {@link #refuseNext} sends answer
 * {@code BACK_PRESSURED}. Reads from other threads go through the volatile {@link #taken}.
 */
class RecordingTransport implements Transport {
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    final long[] nextSequence;
    final long[] takenPerProducer;
    final List<String> controls = new ArrayList<>();
    long closedChannel = -1;
    int refuseNext;
    long outOfOrder;
    long wrongLength;
    long refusals;
    volatile long taken;

    RecordingTransport(final int producers) {
        this.nextSequence = new long[producers];
        this.takenPerProducer = new long[producers];
    }

    @Override
    public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        if (refuseNext > 0) {
            refuseNext--;
            refusals++;
            return SendResult.BACK_PRESSURED;
        }
        if (channelId == closedChannel) {
            return SendResult.CLOSED;
        }
        if (length < 12) {
            wrongLength++;
            return 0;
        }
        final int producer = buffer.get(INT, offset);
        final long sequence = buffer.get(LONG, offset + 4);
        if (sequence != nextSequence[producer] || channelId != producer) {
            outOfOrder++;
        }
        nextSequence[producer] = sequence + 1;
        takenPerProducer[producer]++;
        taken = taken + 1;
        return 0;
    }

    @Override
    public void close(final long id) {
        controls.add("close " + id);
    }

    @Override
    public void abort(final long id) {
        controls.add("abort " + id);
    }

    @Override
    public long listen(final SocketAddress localAddress) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long connect(final SocketAddress remoteAddress) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }

    /** Claims, writes producer and sequence (and {@code extra} bytes of filler), commits; a code if refused. */
    static long offer(final ReactorCommandRing ring, final int transport, final int producer, final long sequence,
                      final int extra) {
        final long claim = ring.tryClaim(transport, producer, 12 + extra);
        if (claim < 0) {
            return claim;
        }
        final long offset = ring.offset(claim);
        ring.buffer().set(INT, offset, producer);
        ring.buffer().set(LONG, offset + 4, sequence);
        return ring.commit(claim);
    }
}
