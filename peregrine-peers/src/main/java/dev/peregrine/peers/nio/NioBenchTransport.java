package dev.peregrine.peers.nio;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A hand-written non-blocking NIO busy-spin loop: the second baseline on the TCP path.
 */
public final class NioBenchTransport implements BenchTransport {
    /** Capacity of each direct read and write buffer. */
    static final int BUFFER_SIZE = 256 * 1024;

    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public NioBenchTransport() {
    }

    @Override
    public String name() {
        return "nio";
    }

    @Override
    public String description() {
        return "hand-written java.nio loop: non-blocking SocketChannel, no Selector (spins on read), direct ByteBuffers of "
            + BUFFER_SIZE / 1024 + " KiB, TCP_NODELAY, frames [int32 length][payload]; the responder serves all "
            + "connections from one spinning thread and echoes every whole frame read in one write (replies of another size "
            + "are gathered in a buffer of their own, written once per read); stream: frames gathered "
            + "in one " + BUFFER_SIZE / 1024 + " KiB direct buffer written when full or at the end of each batch, the "
            + "receiver reads blocks of up to " + BUFFER_SIZE / 1024 + " KiB";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws IOException {
        return NioResponder.start(config);
    }

    @Override
    public PingClient connect(final BenchConfig config) throws IOException {
        return new NioPingClient(open(config), config);
    }

    @Override
    public boolean sharedResponder() {
        return true; // one thread polls the listening channel and every connection
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
    public StreamReceiver startStreamReceiver(final BenchConfig config) throws IOException {
        return new NioStreamReceiver(listen(config));
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) throws IOException {
        return new NioStreamSender(open(config), config.size());
    }

    static ServerSocketChannel listen(final BenchConfig config) throws IOException {
        final ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(config.host(), config.port()));
            server.configureBlocking(false);
            return server;
        } catch (final IOException ex) {
            server.close();
            throw new IOException("cannot listen on " + config.host() + ":" + config.port(), ex);
        }
    }

    static SocketChannel open(final BenchConfig config) throws IOException {
        final SocketChannel channel = SocketChannel.open();
        try {
            channel.connect(new InetSocketAddress(config.host(), config.port()));
            configure(channel);
            return channel;
        } catch (final IOException ex) {
            channel.close();
            throw new IOException("cannot connect to " + config.host() + ":" + config.port(), ex);
        }
    }

    static void configure(final SocketChannel channel) throws IOException {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }
}
