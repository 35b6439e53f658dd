package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One-way sender: claim, write the sequence, commit. A commit only appends: the transport writes on its own
 * once half the outbound buffer is taken, and at the end of a duty cycle. So the sender ends each batch with
 * an explicit flush ({@link #flush()}) and drives its reactor when back-pressured (to write what waits for a
 * writable socket), as an application that drives its own reactor would.
 */
final class PeregrineTcpStreamSender extends PeregrineTcpClientSide implements StreamSender {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    /** The longest run claimed at once: a quarter of the outbound buffer, so that a run rarely waits for room. */
    private final int maxRun;

    PeregrineTcpStreamSender(final BenchConfig config) throws IOException {
        super(config, "peregrine-tcp-sender");
        final TcpOptions options = transport.options();
        this.maxRun = Math.max(1, options.outboundBufferSize() / 4 / (size + options.framing().overhead()));
    }

    /**
     * A run of messages is one claimed run of frames ({@link TcpTransport#tryClaim(long, int, int)}): the
     * sequence of each written at its place, one commit for all.
     */
    @Override
    public int offer(final long firstSequence, final int count) {
        final int frames = Math.min(count, maxRun);
        final long first = transport.tryClaim(channelId, size, frames);
        if (first < 0) {
            backPressured(first);
            return 0;
        }
        final MemorySegment buffer = transport.claimBuffer();
        final long stride = transport.claimStride();
        for (int i = 0; i < frames; i++) {
            buffer.set(SEQUENCE, first + i * stride, firstSequence + i);
        }
        final long result = transport.commit();
        if (result < 0) {
            throw failed(result);
        }
        return frames;
    }

    @Override
    public boolean offer(final long sequence) {
        final long offset = transport.tryClaim(channelId, size);
        if (offset < 0) {
            return backPressured(offset);
        }
        transport.claimBuffer().set(SEQUENCE, offset, sequence);
        final long result = transport.commit();
        if (result < 0) {
            throw failed(result);
        }
        return true;
    }

    // the rare paths in methods of their own, so that offer stays small enough to be inlined into the send loop

    private boolean backPressured(final long result) {
        if (result != SendResult.BACK_PRESSURED) {
            checkConnected();
            throw failed(result);
        }
        reactor.doWork();
        return false;
    }

    private static IllegalStateException failed(final long result) {
        return new IllegalStateException("send failed: " + SendResult.describe(result));
    }

    /**
     * Ends a batch as the peers do, with one write of what it appended ({@link TcpTransport#flush(long)}); only
     * when bytes are left over (the socket was full) does it run a duty cycle, whose read poller writes them
     * as soon as the socket has room. A duty cycle per batch would also read the socket, which in a one-way
     * stream never has anything to read.
     *
     * @return true once nothing waits in the channel's outbound buffer
     */
    @Override
    public boolean flush() {
        long pending = transport.flush(channelId);
        if (pending > 0) {
            reactor.doWork();
            pending = transport.pendingBytes(channelId);
        }
        if (pending < 0) {
            checkConnected();
            throw failed(pending);
        }
        return pending == 0;
    }

    @Override
    public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
        // the receiving side sends nothing back
    }
}
