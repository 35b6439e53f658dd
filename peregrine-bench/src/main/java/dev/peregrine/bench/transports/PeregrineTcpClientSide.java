package dev.peregrine.bench.transports;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpTransport;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The connecting side of a benchmark run: a reactor that is never started (the caller's thread drives
 * it with {@link Reactor#doWork()}), a transport, and one connection.
 */
abstract class PeregrineTcpClientSide implements ChannelHandler {
    final Reactor reactor;
    final TcpTransport transport;
    final long channelId;
    final int size;
    private boolean connected;
    private String failure;

    PeregrineTcpClientSide(final BenchConfig config, final String name) throws IOException {
        this.size = config.size();
        this.reactor = new Reactor(PeregrineTcpBench.reactorOptions(config, name));
        this.transport = new TcpTransport(reactor, PeregrineTcpBench.options(config), this);
        this.channelId = transport.connect(PeregrineTcpBench.address(config));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!connected && failure == null && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        if (!connected) {
            close();
            throw new IOException(failure != null ? failure : "connect to " + PeregrineTcpBench.address(config)
                + " did not complete in 10 s");
        }
    }

    @Override
    public final void onConnected(final long id, final SocketAddress remoteAddress) {
        connected = true;
    }

    @Override
    public final void onConnectFailed(final long id, final String reason) {
        failure = reason;
    }

    @Override
    public final void onClosed(final long id, final CloseReason reason, final String detail) {
        failure = "connection closed, " + reason + ": " + detail;
        connected = false;
    }

    /** Throws if the connection is gone, so that a waiting caller does not spin forever. */
    final void checkConnected() {
        if (!connected) {
            throw new IllegalStateException(failure == null ? "not connected" : failure);
        }
    }

    /**
     * Closes the connection and the reactor; call on the thread that drives it.
     */
    public void close() {
        transport.close();
        reactor.close();
    }
}
