package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.TcpFrameLayout;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;

/**
 * Writes and flushes each frame from the calling thread's own event loop, running the loop until a frame the
 * kernel took only in part has left; when the channel is over its write-buffer high-water mark it runs the loop
 * once and, if still unwritable, refuses the message.
 */
final class NettyStreamSender implements StreamSender {
    private final Channel channel;
    private final IoHandlerFactory factory;
    private final int size;
    private ManualIoEventLoop loop;

    private NettyStreamSender(final Channel channel, final IoHandlerFactory factory, final int size) {
        this.channel = channel;
        this.factory = factory;
        this.size = size;
    }

    static NettyStreamSender connect(final BenchConfig config) {
        final IoHandlerFactory factory = NettyIo.handlerFactory(false);
        return new NettyStreamSender(NettyChannels.connect(config, factory, new ChannelInboundHandlerAdapter()),
            factory, config.size());
    }

    @Override
    public boolean offer(final long sequence) {
        ManualIoEventLoop eventLoop = loop;
        if (eventLoop == null) {
            eventLoop = NettyChannels.bind(channel, factory);
            loop = eventLoop;
        }
        if (!channel.isWritable()) {
            eventLoop.runNow();
            if (!channel.isWritable()) {
                if (!channel.isActive()) {
                    throw new IllegalStateException("channel closed: " + channel);
                }
                return false;
            }
        }
        final ByteBuf frame = channel.alloc().directBuffer(TcpFrameLayout.HEADER_LENGTH + size);
        frame.writeInt(size).writeLongLE(sequence).writeZero(size - Long.BYTES);
        channel.writeAndFlush(frame, channel.voidPromise());
        // finish a frame the kernel took only in part, as the NIO peer does: the SPI has no flush, so a tail
        // left queued here would never leave if the caller stops offering
        while (hasPendingWrites()) {
            eventLoop.runNow();
        }
        return true;
    }

    private boolean hasPendingWrites() {
        final ChannelOutboundBuffer pending = channel.unsafe().outboundBuffer();
        return channel.isActive() && pending != null && !pending.isEmpty();
    }

    @Override
    public void close() {
        ManualIoEventLoop eventLoop = loop;
        if (eventLoop == null) {
            eventLoop = NettyChannels.bind(channel, factory);
        }
        // flush what the kernel has not taken yet before closing, within the bound
        final long deadline = System.nanoTime() + NettyChannels.TIMEOUT_NS;
        while (hasPendingWrites() && System.nanoTime() - deadline < 0) {
            eventLoop.runNow();
        }
        channel.close();
        NettyChannels.shutdown(eventLoop);
    }
}
