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
 * Writes each frame from the calling thread's own event loop and flushes once per batch ({@link #flush()}), as a
 * Netty application with many messages at once does ({@code write} per message, one {@code flush}); when the
 * channel is over its write-buffer high-water mark it flushes, runs the loop once and, if still unwritable,
 * refuses the message.
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

    @Override // compiled in this class, the loop's call of offer(long) is this class's alone
    public int offer(final long firstSequence, final int count) {
        return StreamSender.offerEach(this, firstSequence, count);
    }

    @Override
    public boolean offer(final long sequence) {
        ManualIoEventLoop eventLoop = loop;
        if (eventLoop == null) {
            eventLoop = NettyChannels.bind(channel, factory);
            loop = eventLoop;
        }
        if (!channel.isWritable()) {
            channel.flush();
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
        channel.write(frame, channel.voidPromise());
        return true;
    }

    @Override
    public boolean flush() {
        final ManualIoEventLoop eventLoop = loop;
        if (eventLoop == null) {
            return true; // nothing was offered
        }
        channel.flush(); // on the loop's own thread: written to the socket now, as far as the kernel takes it
        if (hasPendingWrites()) {
            eventLoop.runNow(); // a socket that was full: the rest leaves when it is writable again
        }
        if (!channel.isActive()) {
            throw new IllegalStateException("channel closed: " + channel);
        }
        return !hasPendingWrites();
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
        channel.flush();
        final long deadline = System.nanoTime() + NettyChannels.TIMEOUT_NS;
        while (hasPendingWrites() && System.nanoTime() - deadline < 0) {
            eventLoop.runNow();
        }
        channel.close();
        NettyChannels.shutdown(eventLoop);
    }
}
