package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.support.TcpFrameLayout;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Accepts on a small event-loop thread of its own (blocking in epoll, off the data path) and hands the
 * accepted connection to a {@link ManualIoEventLoop} that the thread calling {@link #poll} drives.
 */
final class NettyStreamReceiver implements StreamReceiver {
    /** The largest buffer one read fills. */
    static final int RECEIVE_BUFFER_MAX = 256 * 1024;

    private final EventLoopGroup acceptor;
    private final ManualIoEventLoop loop;
    private final Channel server;
    private final LongRing received;
    private boolean owned;

    private NettyStreamReceiver(final EventLoopGroup acceptor, final ManualIoEventLoop loop, final Channel server,
        final LongRing received) {
        this.acceptor = acceptor;
        this.loop = loop;
        this.server = server;
        this.received = received;
    }

    static NettyStreamReceiver start(final BenchConfig config) throws InterruptedException {
        final IoHandlerFactory factory = NettyIo.handlerFactory(false);
        final EventLoopGroup acceptor = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("netty-stream-acceptor", true), factory);
        // owner left unset: the first thread to poll becomes it
        final ManualIoEventLoop loop = new ManualIoEventLoop(null, null, factory);
        final LongRing received = new LongRing();
        try {
            final Channel server = new ServerBootstrap()
                .group(acceptor, loop)
                .channel(NettyIo.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                // large reads for a stream: start at 64 KiB, grow to 256 KiB while reads fill the buffer
                .childOption(ChannelOption.RECVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(4096, 64 * 1024,
                    RECEIVE_BUFFER_MAX))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel channel) {
                        channel.pipeline().addLast(new LengthFieldBasedFrameDecoder(
                            TcpFrameLayout.HEADER_LENGTH + TcpFrameLayout.MAX_PAYLOAD_LENGTH, 0, 4, 0,
                            TcpFrameLayout.HEADER_LENGTH), new SequenceCollector(received));
                    }
                })
                .bind(config.host(), config.port())
                .sync()
                .channel();
            return new NettyStreamReceiver(acceptor, loop, server, received);
        } catch (final InterruptedException | RuntimeException ex) {
            acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw ex;
        }
    }

    private void own() {
        if (!owned) {
            loop.setOwningThread(Thread.currentThread());
            owned = true;
        }
    }

    @Override
    public int poll(final LongConsumer sequences) {
        own();
        if (received.isEmpty()) {
            loop.runNow();
        }
        int count = 0;
        while (!received.isEmpty()) {
            sequences.accept(received.remove());
            count++;
        }
        return count;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        own();
        NettyChannels.shutdown(loop);
    }
}
