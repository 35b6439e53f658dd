package dev.peregrine.bench.transports;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpTransport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * One-way receiver: a listening transport on a reactor that the caller drives inside {@link #poll}.
 */
final class PeregrineTcpStreamReceiver implements StreamReceiver, ChannelHandler {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final Reactor reactor;
    private final TcpTransport transport;
    private LongConsumer sequences;
    private int delivered;
    private boolean listening;
    private String failure;

    PeregrineTcpStreamReceiver(final BenchConfig config) throws IOException {
        // the reactor options of every Peregrine TCP side: busy-spinning, reads are polled and the selector is
        // consulted only now and then (it has nothing to say to a connection that is read every cycle)
        this.reactor = new Reactor(PeregrineTcpBench.reactorOptions(config, "peregrine-tcp-receiver"));
        this.transport = new TcpTransport(reactor, PeregrineTcpBench.options(config), this);
        transport.listen(PeregrineTcpBench.address(config));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!listening && failure == null && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        if (!listening) {
            close();
            throw new IOException(failure != null ? failure : "listen did not complete in 10 s");
        }
    }

    @Override
    public int poll(final LongConsumer sequences) {
        this.sequences = sequences;
        delivered = 0;
        reactor.doWork();
        this.sequences = null;
        return delivered;
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        listening = true;
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        failure = reason;
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        delivered++;
        sequences.accept(buffer.get(SEQUENCE, offset));
    }

    @Override
    public void close() {
        transport.close();
        reactor.close();
    }
}
