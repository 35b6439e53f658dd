package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One-way sender: claim, write the sequence, commit. A commit only appends: the transport writes on its own
 * once half the outbound buffer is taken, and at the end of a duty cycle. So the sender drives its reactor
 * when back-pressured (to write what waits for a writable socket) and at the end of each batch
 * ({@link #flush()}), as an application that drives its own reactor would.
 */
final class PeregrineTcpStreamSender extends PeregrineTcpClientSide implements StreamSender {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    PeregrineTcpStreamSender(final BenchConfig config) throws IOException {
        super(config, "peregrine-tcp-sender");
    }

    @Override
    public boolean offer(final long sequence) {
        final long offset = transport.tryClaim(channelId, size);
        if (offset < 0) {
            if (offset != SendResult.BACK_PRESSURED) {
                checkConnected();
                throw new IllegalStateException("send failed: " + SendResult.describe(offset));
            }
            reactor.doWork();
            return false;
        }
        transport.claimBuffer().set(SEQUENCE, offset, sequence);
        final long result = transport.commit();
        if (result < 0) {
            throw new IllegalStateException("send failed: " + SendResult.describe(result));
        }
        return true;
    }

    /**
     * Runs one duty cycle, which writes what the batch appended (as much as the socket takes).
     *
     * @return true once nothing waits in the channel's outbound buffer
     */
    @Override
    public boolean flush() {
        reactor.doWork();
        final long pending = transport.pendingBytes(channelId);
        if (pending < 0) {
            checkConnected();
            throw new IllegalStateException("send failed: " + SendResult.describe(pending));
        }
        return pending == 0;
    }

    @Override
    public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
        // the receiving side sends nothing back
    }
}
