package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.util.List;

/**
 * Netty 4.2 over TCP, the framework most Java users would pick for a TCP service.
 */
public final class NettyBenchTransport implements BenchTransport {
    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public NettyBenchTransport() {
    }

    @Override
    public String name() {
        return "netty";
    }

    @Override
    public String description() {
        return "Netty 4.2.7 " + NettyIo.flavour() + " transport, TCP_NODELAY, PooledByteBufAllocator direct buffers, "
            + "LengthFieldBasedFrameDecoder(max " + (TcpFrameLayout.HEADER_LENGTH + TcpFrameLayout.MAX_PAYLOAD_LENGTH)
            + ", 0, 4) on [int32 length][payload]; responder: one event-loop thread echoing each frame, flushed at "
            + "channelReadComplete, polling epoll_wait with timeout 0 in a loop when busy-spinning (default select "
            + "otherwise); client: a ManualIoEventLoop driven by the calling thread (send = writeAndFlush with the void "
            + "promise on that thread, poll = runNow), so no thread hand-off on the client side; stream: the same client writing "
            + "every frame and flushing once per batch (refused while over the write high-water mark, after a flush), the "
            + "receiver's connection on a ManualIoEventLoop driven by the polling thread, reading up to "
            + NettyStreamReceiver.RECEIVE_BUFFER_MAX / 1024 + " KiB at a time (AdaptiveRecvByteBufAllocator)";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public List<String> jvmArguments() {
        // the epoll transport loads a JNI library, which JDK 25 warns about unless native access is enabled
        return NettyIo.EPOLL ? List.of("--enable-native-access=ALL-UNNAMED") : List.of();
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws InterruptedException {
        return NettyResponder.start(config);
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        return NettyPingClient.connect(config);
    }

    @Override
    public boolean sharedResponder() {
        return true; // one event-loop thread accepts and serves every connection
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    @Override
    public boolean supportsRespondEvery() {
        return true;
    }

    @Override
    public boolean supportsStream() {
        return true;
    }

    @Override
    public StreamReceiver startStreamReceiver(final BenchConfig config) throws InterruptedException {
        return NettyStreamReceiver.start(config);
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) {
        return NettyStreamSender.connect(config);
    }
}
