package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Sends with {@code tryClaim}/{@code commit} (the sequence written straight into the outbound buffer)
 * and drives its reactor inside {@link #poll()}; echoes wait in a small ring of sequence numbers, so
 * that several arriving in one cycle (with {@code --rate}) are all returned, one per poll.
 */
final class PeregrineTcpPingClient extends PeregrineTcpClientSide implements PingClient {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final int RING_CAPACITY = 1 << 16;

    private final long[] ring = new long[RING_CAPACITY];
    private final int replySize;
    private long head;
    private long tail;
    private IllegalStateException replyFailure;

    PeregrineTcpPingClient(final BenchConfig config) throws IOException {
        super(config, "peregrine-tcp-client");
        this.replySize = config.replySize();
    }

    @Override
    public void send(final long sequence) {
        while (true) {
            final long offset = transport.tryClaim(channelId, size);
            if (offset >= 0) {
                transport.claimBuffer().set(SEQUENCE, offset, sequence);
                final long result = transport.commit();
                if (result < 0) {
                    reactor.doWork();
                    checkConnected();
                    throw new IllegalStateException("send failed: " + SendResult.describe(result));
                }
                return;
            }
            if (offset != SendResult.BACK_PRESSURED) {
                reactor.doWork(); // delivers the close event, with its reason, if the connection is gone
                checkConnected();
                throw new IllegalStateException("send failed: " + SendResult.describe(offset));
            }
            reactor.doWork();
        }
    }

    @Override
    public long poll() {
        if (head == tail) {
            reactor.doWork();
            if (replyFailure != null) {
                throw replyFailure;
            }
            if (head == tail) {
                checkConnected();
                return -1;
            }
        }
        return ring[(int)(head++ & (RING_CAPACITY - 1))];
    }

    @Override
    public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
        if (replyFailure != null) {
            return;
        }
        if (tail - head == RING_CAPACITY) {
            replyFailure = new IllegalStateException("more than " + RING_CAPACITY + " echoes waiting to be polled");
            return;
        }
        final long sequence = length >= Long.BYTES ? buffer.get(SEQUENCE, offset) : -1;
        if (length != replySize) {
            // kept for poll() to throw: an exception here would only close the channel
            replyFailure = new IllegalStateException("reply of length=" + length + " to sequence=" + sequence
                + ", expected replySize=" + replySize);
            return;
        }
        ring[(int)(tail++ & (RING_CAPACITY - 1))] = sequence;
    }
}
