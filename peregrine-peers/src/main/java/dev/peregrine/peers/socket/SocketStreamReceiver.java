package dev.peregrine.peers.socket;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.support.PeerSupport;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.function.LongConsumer;

/**
 * Accepts one sender on a thread of its own; the caller's {@link #poll} reads a block of up to
 * {@value SocketBenchTransport#STREAM_BUFFER_SIZE} bytes when the kernel has bytes ({@code available()}, so
 * it never blocks on an empty socket) and delivers every whole frame in it, parsed in place.
 */
final class SocketStreamReceiver implements StreamReceiver {
    private final ServerSocket server;
    private final Thread acceptor;
    private final byte[] block = new byte[SocketBenchTransport.STREAM_BUFFER_SIZE];
    private volatile Socket socket;
    private InputStream in;
    private int readIndex;
    private int writeIndex;

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
            accepted.setTcpNoDelay(true);
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
            if (in == null) {
                in = current.getInputStream();
            }
            if (in.available() > 0) {
                fill();
            }
            int count = 0;
            while (writeIndex - readIndex >= TcpFrameLayout.HEADER_LENGTH) {
                final int length = TcpFrameLayout.checkPayloadLength(length(block, readIndex));
                if (TcpFrameLayout.HEADER_LENGTH + length > block.length) {
                    throw new IllegalStateException("payloadLength=" + length + " does not fit the receive block of "
                        + block.length + " bytes");
                }
                if (writeIndex - readIndex < TcpFrameLayout.HEADER_LENGTH + length) {
                    break;
                }
                sequences.accept(TcpFrameLayout.sequence(block, readIndex + TcpFrameLayout.SEQUENCE_OFFSET));
                readIndex += TcpFrameLayout.HEADER_LENGTH + length;
                count++;
            }
            return count;
        } catch (final IOException ex) {
            throw new UncheckedIOException("receive from " + current.getRemoteSocketAddress(), ex);
        }
    }

    /** One read into the free end of the block, after moving a partial frame to its front. */
    private void fill() throws IOException {
        if (readIndex == writeIndex) {
            readIndex = 0;
            writeIndex = 0;
        } else if (readIndex > 0) {
            System.arraycopy(block, readIndex, block, 0, writeIndex - readIndex);
            writeIndex -= readIndex;
            readIndex = 0;
        }
        final int read = in.read(block, writeIndex, block.length - writeIndex);
        if (read > 0) {
            writeIndex += read;
        }
    }

    private static int length(final byte[] bytes, final int offset) {
        return (bytes[offset] & 0xFF) << 24 | (bytes[offset + 1] & 0xFF) << 16 | (bytes[offset + 2] & 0xFF) << 8
            | bytes[offset + 3] & 0xFF;
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
