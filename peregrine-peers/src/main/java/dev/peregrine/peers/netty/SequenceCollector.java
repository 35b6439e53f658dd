package dev.peregrine.peers.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Queues the sequence number of each decoded frame (the decoder has stripped the length) and releases it.
 */
final class SequenceCollector extends ChannelInboundHandlerAdapter {
    private final LongRing received;

    SequenceCollector(final LongRing received) {
        this.received = received;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            received.add(frame.getLongLE(frame.readerIndex()));
        } finally {
            frame.release();
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        // a bad frame or a reset ends this connection only
        ctx.close();
    }
}
