package dev.peregrine.peers.socket;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Blocking {@code java.net.Socket}: the baseline on the TCP path.
 */
public final class SocketBenchTransport implements BenchTransport {
    /** Size of the buffered input stream and of the socket buffers asked for. */
    static final int BUFFER_SIZE = 64 * 1024;
    /** Size of the stream sender's buffered output stream and of the stream receiver's read block. */
    static final int STREAM_BUFFER_SIZE = 256 * 1024;

    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public SocketBenchTransport() {
    }

    @Override
    public String name() {
        return "socket";
    }

    @Override
    public String description() {
        return "java.net.Socket/ServerSocket, blocking I/O, TCP_NODELAY, one thread per connection; "
            + "frames [int32 length][payload] read with DataInputStream(BufferedInputStream " + BUFFER_SIZE / 1024
            + " KiB).readInt + readFully into a reused byte[], written with one OutputStream.write per frame; "
            + "the client's poll() checks available() and receive() blocks in read(); stream: frames written into a "
            + "BufferedOutputStream of " + STREAM_BUFFER_SIZE / 1024 + " KiB flushed at the end of each batch, the receiver "
            + "reads blocks of " + STREAM_BUFFER_SIZE / 1024 + " KiB (when available() says bytes are there) and parses "
            + "frames in place; stream sockets keep the kernel's default (auto-tuned) buffer sizes";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws IOException {
        return SocketResponder.start(config);
    }

    @Override
    public PingClient connect(final BenchConfig config) throws IOException {
        return new SocketPingClient(open(config), config);
    }

    @Override
    public boolean sharedResponder() {
        return true; // blocking sockets: a thread per connection, which is what they need
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
        return SocketStreamReceiver.start(config);
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) throws IOException {
        return new SocketStreamSender(open(config, false), config.size());
    }

    static Socket open(final BenchConfig config) throws IOException {
        return open(config, true);
    }

    /**
     * Connects a socket.
     *
     * @param config where to connect
     * @param sized whether to set the socket buffers to {@link #BUFFER_SIZE}; a stream leaves them to the
     *     kernel, which auto-tunes them for bulk transfers as long as nobody sets them
     * @return the connected socket
     * @throws IOException if it cannot connect
     */
    private static Socket open(final BenchConfig config, final boolean sized) throws IOException {
        final Socket socket = new Socket();
        try {
            if (sized) {
                configure(socket);
            } else {
                socket.setTcpNoDelay(true);
            }
            socket.connect(new InetSocketAddress(config.host(), config.port()), 10_000);
            return socket;
        } catch (final IOException ex) {
            socket.close();
            throw new IOException("cannot connect to " + config.host() + ":" + config.port(), ex);
        }
    }

    static void configure(final Socket socket) throws IOException {
        socket.setTcpNoDelay(true);
        socket.setSendBufferSize(BUFFER_SIZE);
        socket.setReceiveBufferSize(BUFFER_SIZE);
    }
}
