package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.support.TcpFrameLayout;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * A Netty client whose event loop is run by the thread that uses it (see {@link NettyChannels}): a send is
 * written to the socket on that thread, and {@link #poll()} runs the loop once and returns the next echo
 * queued by the {@link SequenceCollector}. The first thread to send or poll is the only one that may use it.
 */
final class NettyPingClient implements PingClient {
    private final Channel channel;
    private final IoHandlerFactory factory;
    private final LongRing received;
    private final SequenceCollector collector;
    private final int size;
    private final int sequenceLength;
    private ManualIoEventLoop loop;
    private long lastSent;

    private NettyPingClient(final Channel channel, final IoHandlerFactory factory, final LongRing received,
        final SequenceCollector collector, final BenchConfig config) {
        this.channel = channel;
        this.factory = factory;
        this.received = received;
        this.collector = collector;
        this.size = config.size();
        this.sequenceLength = config.sequenceLength();
    }

    static NettyPingClient connect(final BenchConfig config) {
        final IoHandlerFactory factory = NettyIo.handlerFactory(false);
        final LongRing received = new LongRing();
        final SequenceCollector collector = new SequenceCollector(received, config.replySize(),
            config.sequenceLength());
        final Channel channel = NettyChannels.connect(config, factory, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(final Channel channel) {
                channel.pipeline().addLast(
                    new LengthFieldBasedFrameDecoder(TcpFrameLayout.HEADER_LENGTH + TcpFrameLayout.MAX_PAYLOAD_LENGTH,
                        0, 4, 0, TcpFrameLayout.HEADER_LENGTH),
                    collector);
            }
        });
        return new NettyPingClient(channel, factory, received, collector, config);
    }

    private ManualIoEventLoop loop() {
        ManualIoEventLoop current = loop;
        if (current == null) {
            current = NettyChannels.bind(channel, factory);
            loop = current;
        }
        return current;
    }

    @Override
    public void send(final long sequence) {
        final ManualIoEventLoop eventLoop = loop();
        final ByteBuf frame = channel.alloc().directBuffer(TcpFrameLayout.HEADER_LENGTH + size);
        SequenceCollector.writeSequence(frame.writeInt(size), sequenceLength, sequence).writeZero(size - sequenceLength);
        lastSent = sequence;
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
            collector.checkLengths();
            if (received.isEmpty()) {
                return -1;
            }
        }
        return BenchMessageLayout.widen(received.remove(), lastSent, sequenceLength);
    }

    @Override
    public void close() {
        final ManualIoEventLoop eventLoop = loop();
        channel.close();
        NettyChannels.shutdown(eventLoop);
    }
}
