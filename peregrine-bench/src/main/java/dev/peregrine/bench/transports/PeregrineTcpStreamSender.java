package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One-way sender: claim, write the sequence, commit; it drives its reactor whenever bytes wait in the
 * outbound buffer (so they are flushed when the socket is writable), when back-pressured, and at the end of
 * a batch ({@link #flush()}).
 */
final class PeregrineTcpStreamSender extends PeregrineTcpClientSide implements StreamSender {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private long pending;

    PeregrineTcpStreamSender(final BenchConfig config) throws IOException {
        super(config, "peregrine-tcp-sender");
    }

    @Override
    public boolean offer(final long sequence) {
        if (pending > 0) {
            reactor.doWork();
        }
        final long offset = transport.tryClaim(channelId, size);
        if (offset < 0) {
            if (offset != SendResult.BACK_PRESSURED) {
                checkConnected();
                throw new IllegalStateException("send failed: " + SendResult.describe(offset));
            }
            reactor.doWork();
            pending = transport.pendingBytes(channelId);
            return false;
        }
        transport.claimBuffer().set(SEQUENCE, offset, sequence);
        final long result = transport.commit();
        if (result < 0) {
            throw new IllegalStateException("send failed: " + SendResult.describe(result));
        }
        pending = result;
        return true;
    }

    /**
     * Drives the reactor while bytes wait, so that they leave when the socket takes them.
     *
     * @return true once nothing waits in the channel's outbound buffer
     */
    @Override
    public boolean flush() {
        if (pending > 0) {
            reactor.doWork();
            pending = transport.pendingBytes(channelId);
            if (pending < 0) {
                checkConnected();
                throw new IllegalStateException("send failed: " + SendResult.describe(pending));
            }
        }
        return pending == 0;
    }

    @Override
    public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
        // the receiving side sends nothing back
    }
}
