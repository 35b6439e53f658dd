package dev.peregrine.bench.transports;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpTransport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The echo side: a reactor on its own thread (busy-spinning when the run asks for it) that sends every
 * message back on the channel it came from, for any number of clients.
 */
final class PeregrineTcpResponder implements Responder, ChannelHandler {
    private final Reactor reactor;
    private final TcpTransport transport;
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile long messages;
    private volatile String failure;

    private PeregrineTcpResponder(final BenchConfig config) {
        this.reactor = new Reactor(PeregrineTcpBench.reactorOptions(config, "peregrine-tcp-responder"));
        this.transport = new TcpTransport(reactor, PeregrineTcpBench.options(config), this);
    }

    static PeregrineTcpResponder start(final BenchConfig config) throws IOException, InterruptedException {
        final PeregrineTcpResponder responder = new PeregrineTcpResponder(config);
        responder.transport.listen(PeregrineTcpBench.address(config)); // before start(): the thread start publishes it
        responder.reactor.start();
        if (!responder.ready.await(10, TimeUnit.SECONDS) || responder.failure != null) {
            responder.close();
            throw new IOException(responder.failure != null ? responder.failure : "responder did not listen in 10 s");
        }
        return responder;
    }

    @Override
    public long messages() {
        return messages;
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        ready.countDown();
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        failure = reason;
        ready.countDown();
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final long result = transport.send(channelId, buffer, offset, length);
        if (result == SendResult.BACK_PRESSURED) {
            // an echo is never dropped silently: a client that does not read loses its connection, loudly
            reactor.errorHandler().onError(new IllegalStateException("client on channel " + channelId
                + " does not read its echoes; closing it"));
            transport.close(channelId);
            return;
        }
        messages++; // single writer: the reactor thread
    }

    @Override
    public void close() {
        final CountDownLatch closed = new CountDownLatch(1);
        if (!reactor.isClosed() && reactor.execute(() -> {
            transport.close();
            closed.countDown();
        })) {
            try {
                closed.await(5, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        reactor.close();
    }
}
