package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.TcpFrameLayout;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server bootstrap on one event-loop thread (acceptor and connections share it) that echoes every whole
 * frame, header included (or answers it with a frame of the reply size carrying its sequence), and flushes
 * once per read; with a period above 1 it answers only every Nth frame and releases the others.
 */
final class NettyResponder implements Responder {
    private final EventLoopGroup group;
    private final Channel server;
    private final Echo echo;

    private NettyResponder(final EventLoopGroup group, final Channel server, final Echo echo) {
        this.group = group;
        this.server = server;
        this.echo = echo;
    }

    static NettyResponder start(final BenchConfig config) throws InterruptedException {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("netty-responder", true), NettyIo.handlerFactory(config.busySpin()));
        final Echo echo = new Echo(config.asymmetric() ? config.replySize() : -1, config.sequenceLength(),
            config.respondEvery());
        try {
            final Channel server = new ServerBootstrap()
                .group(group)
                .channel(NettyIo.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel channel) {
                        channel.pipeline().addLast(
                            new LengthFieldBasedFrameDecoder(
                                TcpFrameLayout.HEADER_LENGTH + TcpFrameLayout.MAX_PAYLOAD_LENGTH, 0, 4, 0, 0),
                            echo);
                    }
                })
                .bind(config.host(), config.port())
                .sync()
                .channel();
            return new NettyResponder(group, server, echo);
        } catch (final InterruptedException | RuntimeException ex) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw ex;
        }
    }

    @Override
    public long messages() {
        return echo.messages.get();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Writes each frame back as it came (the decoder keeps the length field) and flushes per read burst. */
    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        private final AtomicLong messages = new AtomicLong();
        /** Bytes of each answer, or -1 to echo each frame as it came. */
        private final int replySize;
        /** Bytes of the sequence field at the start of each message and answer. */
        private final int sequenceLength;
        /** Answer only the frames {@link BenchConfig#answers} picks with this period; 1 for all. */
        private final int respondEvery;

        Echo(final int replySize, final int sequenceLength, final int respondEvery) {
            this.replySize = replySize;
            this.sequenceLength = sequenceLength;
            this.respondEvery = respondEvery;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            messages.lazySet(messages.get() + 1);
            if (respondEvery > 1) {
                final ByteBuf frame = (ByteBuf) msg;
                if (!BenchConfig.answers(frame.getLongLE(frame.readerIndex() + TcpFrameLayout.SEQUENCE_OFFSET),
                    respondEvery)) {
                    frame.release(); // read, and left unanswered by design
                    return;
                }
            }
            if (replySize < 0) {
                ctx.write(msg, ctx.voidPromise());
                return;
            }
            final ByteBuf frame = (ByteBuf) msg;
            try {
                final long sequence = SequenceCollector.sequence(frame, frame.readerIndex() + TcpFrameLayout.SEQUENCE_OFFSET,
                    sequenceLength);
                final ByteBuf reply = ctx.alloc().directBuffer(TcpFrameLayout.HEADER_LENGTH + replySize);
                SequenceCollector.writeSequence(reply.writeInt(replySize), sequenceLength, sequence)
                    .writeZero(replySize - sequenceLength);
                ctx.write(reply, ctx.voidPromise());
            } finally {
                frame.release();
            }
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            // a bad frame or a reset ends that connection only
            ctx.close();
        }
    }
}
