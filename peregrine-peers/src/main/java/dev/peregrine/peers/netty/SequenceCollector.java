package dev.peregrine.peers.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Queues the sequence number of each decoded frame (the decoder has stripped the length) and releases it.
 */
final class SequenceCollector extends ChannelInboundHandlerAdapter {
    private final LongRing received;
    /** The length every frame must have, or -1 for any. */
    private final int expectedLength;
    private IllegalStateException failure;

    SequenceCollector(final LongRing received) {
        this(received, -1);
    }

    SequenceCollector(final LongRing received, final int expectedLength) {
        this.received = received;
        this.expectedLength = expectedLength;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            final long sequence = frame.getLongLE(frame.readerIndex());
            if (expectedLength >= 0 && frame.readableBytes() != expectedLength) {
                if (failure == null) {
                    failure = new IllegalStateException("reply of length=" + frame.readableBytes() + " to sequence="
                        + sequence + ", expected replySize=" + expectedLength);
                }
                return;
            }
            received.add(sequence);
        } finally {
            frame.release();
        }
    }

    /**
     * Throws the first frame of the wrong length, if one came.
     *
     * @throws IllegalStateException naming its length and sequence
     */
    void checkLengths() {
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        // a bad frame or a reset ends this connection only
        ctx.close();
    }
}
