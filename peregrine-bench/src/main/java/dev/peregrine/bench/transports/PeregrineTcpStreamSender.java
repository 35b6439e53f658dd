package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * One-way sender: claim, write the sequence, commit. Commits only append: the transport writes on its own
 * once half the outbound buffer is taken, so the sender drives its reactor only when back-pressured (to
 * write what waits for a writable socket), and {@link #flush()} gets the last messages out.
 */
final class PeregrineTcpStreamSender extends PeregrineTcpClientSide implements StreamSender {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long FLUSH_LIMIT_NS = TimeUnit.SECONDS.toNanos(10);

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

    /** Runs duty cycles until the outbound buffer is empty, for at most ten seconds. */
    @Override
    public void flush() {
        final long deadline = System.nanoTime() + FLUSH_LIMIT_NS;
        while (transport.pendingBytes(channelId) > 0 && System.nanoTime() - deadline < 0) {
            reactor.doWork();
        }
    }

    @Override
    public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
        // the receiving side sends nothing back
    }
}
