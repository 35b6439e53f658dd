package dev.peregrine.peers.socket;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.support.PeerSupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.function.LongConsumer;

/**
 * Accepts one sender on a thread of its own; the caller's {@link #poll} reads whatever whole frames are
 * available without blocking on an empty socket.
 */
final class SocketStreamReceiver implements StreamReceiver {
    /** At most this many messages per poll, so a caller keeps control of its loop. */
    private static final int BATCH = 4096;

    private final ServerSocket server;
    private final Thread acceptor;
    private volatile Socket socket;
    private SocketFrameReader reader;

    private SocketStreamReceiver(final ServerSocket server) {
        this.server = server;
        this.acceptor = PeerSupport.start("socket-stream-acceptor", this::acceptOne);
    }

    static SocketStreamReceiver start(final BenchConfig config) throws IOException {
        final ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(config.host(), config.port()));
        } catch (final IOException ex) {
            server.close();
            throw new IOException("cannot listen on " + config.host() + ":" + config.port(), ex);
        }
        return new SocketStreamReceiver(server);
    }

    private void acceptOne() {
        try {
            final Socket accepted = server.accept();
            SocketBenchTransport.configure(accepted);
            socket = accepted;
        } catch (final IOException ex) {
            if (!server.isClosed()) {
                System.err.println("socket stream receiver: accept failed: " + ex);
            }
        }
    }

    @Override
    public int poll(final LongConsumer sequences) {
        final Socket current = socket;
        if (current == null) {
            return 0;
        }
        try {
            if (reader == null) {
                reader = new SocketFrameReader(current.getInputStream());
            }
            int count = 0;
            while (count < BATCH && reader.ready()) {
                sequences.accept(reader.read());
                count++;
            }
            return count;
        } catch (final IOException ex) {
            throw new UncheckedIOException("receive from " + current.getRemoteSocketAddress(), ex);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
            final Socket current = socket;
            if (current != null) {
                current.close();
            }
        } catch (final IOException ignored) {
            // best effort
        }
        PeerSupport.join(acceptor);
    }
}
