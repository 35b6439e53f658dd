package dev.peregrine.shm;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/**
 * A {@code java.net.Socket}-like end of a shared-memory duplex: blocking streams for code written against
 * sockets ({@link #getInputStream()}, {@link #getOutputStream()}), and the rings themselves
 * ({@link #reader()}, {@link #writer()}) for zero-copy, non-blocking use.
 *
 * <p>The input stream reads the bytes of consecutive messages; the output stream writes each
 * {@code write} call as messages of at most the maximum length. When the peer closes, the input stream
 * first returns what was written before, then -1 (orderly close) or throws "connection reset" (the peer died).
 *
 * <p>Threading: one thread reads and one thread writes, as with a socket.
 */
public final class ShmSocket implements AutoCloseable {
    private final ShmConnection connection;
    private final ShmInputStream input;
    private final ShmOutputStream output;

    ShmSocket(final ShmConnection connection, final ShmOptions options) {
        this.connection = connection;
        this.input = new ShmInputStream(connection, options.waitStrategy().get());
        this.output = new ShmOutputStream(connection);
    }

    /**
     * Connects to a {@link ShmServerSocket} (or a listening {@link ShmTransport}) and maps the offered rings
     * after checking them.
     *
     * @param address the server's socket path
     * @param options the handshake timeout and the wait strategy (ring sizes are the server's)
     * @return the connected socket
     * @throws UncheckedIOException if the connection or the rendezvous fails, naming the path
     * @throws IllegalStateException if an offered ring file is refused, saying why
     */
    public static ShmSocket connect(final UnixDomainSocketAddress address, final ShmOptions options) {
        try {
            return new ShmSocket(ShmRendezvous.connect(address, options), options);
        } catch (final IOException ex) {
            throw ShmRendezvous.unchecked("cannot connect to " + address.getPath(), ex);
        }
    }

    /**
     * The bytes the peer writes.
     *
     * @return the stream (the same one on every call)
     */
    public InputStream getInputStream() {
        return input;
    }

    /**
     * Bytes to the peer; a write waits while the ring is full.
     *
     * @return the stream (the same one on every call)
     */
    public OutputStream getOutputStream() {
        return output;
    }

    /**
     * The inbound ring, for zero-copy polling instead of the input stream.
     *
     * @return the reader
     */
    public ShmRingReader reader() {
        return connection.reader();
    }

    /**
     * The outbound ring, for zero-copy writing instead of the output stream.
     *
     * @return the writer
     */
    public ShmRingWriter writer() {
        return connection.writer();
    }

    /**
     * Checks, without blocking, whether the peer closed or died (its end of the rendezvous socket closed).
     *
     * @return true once the peer is gone; what it wrote before may still wait in the reader
     */
    public boolean isPeerGone() {
        return connection.isPeerGone();
    }

    /**
     * Whether the peer closed in an orderly way rather than died.
     *
     * @return true if the peer's ring is marked closed
     */
    public boolean isPeerClosedOrderly() {
        return connection.peerClosedOrderly();
    }

    /**
     * The peer's address (the socket path), if known.
     *
     * @return the address or null
     */
    public SocketAddress remoteAddress() {
        return connection.remoteAddress();
    }

    /** Marks the outbound ring closed and closes the rendezvous socket; the peer sees end of stream. */
    @Override
    public void close() {
        connection.close();
    }

    static IOException reset(final String detail) {
        return new IOException("connection reset: " + detail);
    }
}
