package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.support.TcpFrameLayout;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.Future;

import java.util.concurrent.TimeUnit;

/**
 * A Netty client whose event loop is run by the thread that uses it.
 *
 * <p>{@link #connect} connects on a {@link ManualIoEventLoop} driven by the connecting thread, then deregisters
 * the channel; the first {@link #send} or {@link #poll} registers it with a loop owned by the calling thread,
 * which from then on is the only thread that may use this client (the SPI's one-thread contract). Echoes read
 * by the loop are queued in a {@link LongRing} that {@link #poll} drains.
 */
final class NettyPingClient implements PingClient {
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private final Channel channel;
    private final IoHandlerFactory factory;
    private final LongRing received;
    private final int size;
    private ManualIoEventLoop loop;

    private NettyPingClient(final Channel channel, final IoHandlerFactory factory, final LongRing received,
        final int size) {
        this.channel = channel;
        this.factory = factory;
        this.received = received;
        this.size = size;
    }

    static NettyPingClient connect(final BenchConfig config) {
        final IoHandlerFactory factory = NettyIo.handlerFactory(false);
        final ManualIoEventLoop connectLoop = new ManualIoEventLoop(Thread.currentThread(), factory);
        final LongRing received = new LongRing();
        try {
            final ChannelFuture connected = new Bootstrap()
                .group(connectLoop)
                .channel(NettyIo.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel channel) {
                        channel.pipeline().addLast(
                            new LengthFieldBasedFrameDecoder(TcpFrameLayout.HEADER_LENGTH
                                + TcpFrameLayout.MAX_PAYLOAD_LENGTH, 0, 4, 0, TcpFrameLayout.HEADER_LENGTH),
                            new Receiver(received));
                    }
                })
                .connect(config.host(), config.port());
            await(connectLoop, connected, "connect to " + config.host() + ":" + config.port());
            final Channel channel = connected.channel();
            await(connectLoop, channel.deregister(), "deregister " + channel);
            return new NettyPingClient(channel, factory, received, config.size());
        } finally {
            shutdown(connectLoop);
        }
    }

    private static void await(final ManualIoEventLoop loop, final Future<?> future, final String what) {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!future.isDone()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + ": not done after " + TIMEOUT_NS / 1_000_000 + " ms");
            }
            loop.run(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (!future.isSuccess()) {
            throw new IllegalStateException(what + " failed: " + future.cause(), future.cause());
        }
    }

    private static void shutdown(final ManualIoEventLoop loop) {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!loop.isTerminated() && System.nanoTime() - deadline < 0) {
            loop.runNow();
        }
    }

    private ManualIoEventLoop loop() {
        final ManualIoEventLoop current = loop;
        if (current != null) {
            return current;
        }
        final ManualIoEventLoop created = new ManualIoEventLoop(Thread.currentThread(), factory);
        // what Bootstrap does to register a channel; EventLoop.register(Channel) is deprecated in Netty 4.2
        final ChannelPromise registered = channel.newPromise();
        channel.unsafe().register(created, registered);
        await(created, registered, "register " + channel);
        loop = created;
        return created;
    }

    @Override
    public void send(final long sequence) {
        final ManualIoEventLoop eventLoop = loop();
        final ByteBuf frame = channel.alloc().directBuffer(TcpFrameLayout.HEADER_LENGTH + size);
        frame.writeInt(size).writeLongLE(sequence).writeZero(size - Long.BYTES);
        // on the loop's own thread this writes to the socket now; a full socket buffer leaves the rest queued
        channel.writeAndFlush(frame, channel.voidPromise());
        if (!channel.isActive()) {
            throw new IllegalStateException("channel closed: " + channel);
        }
        if (!channel.isWritable()) {
            eventLoop.runNow();
        }
    }

    @Override
    public long poll() {
        if (received.isEmpty()) {
            loop().runNow();
            if (received.isEmpty()) {
                return -1;
            }
        }
        return received.remove();
    }

    @Override
    public void close() {
        final ManualIoEventLoop eventLoop = loop();
        channel.close();
        shutdown(eventLoop);
    }

    /** Queues the sequence of each echoed frame (the decoder has stripped the length). */
    private static final class Receiver extends ChannelInboundHandlerAdapter {
        private final LongRing received;

        Receiver(final LongRing received) {
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
            ctx.close();
        }
    }
}
