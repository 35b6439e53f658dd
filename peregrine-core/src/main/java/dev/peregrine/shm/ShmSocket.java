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
 * first returns what was written before, then -1 (orderly close) or throws "connection reset" (the peer died). A
 * corrupt record in the ring, also one found after the peer closed, throws "connection reset" with the reason; so
 * does a ring that keeps filling after the peer went (a process still holding the mapping writes to it), once two
 * laps of it have been read. The output stream throws "broken pipe" once the peer is gone, since nobody reads the
 * ring any more: at the first write or flush after the peer closed, and within 1024 messages (or a full ring) after
 * it died, which is seen on the socket and so is looked for only that often.
 *
 * <p>Threading: one thread reads and one thread writes, as with a socket; {@link #close()} (or closing either
 * stream) is safe from any thread. A close while a read or a write is in progress only signals it: that call
 * ends with "socket closed" (a write that had already returned is delivered), and the last of them finishes the
 * close (the ring marked closed, the socket closed, the rings unmapped). The zero-copy {@link #reader()} and
 * {@link #writer()} are outside that protocol: use them from the threads that would otherwise read and write,
 * and not after {@link #close()}, which unmaps the rings (an access then throws {@link IllegalStateException}).
 */
public final class ShmSocket implements AutoCloseable {
    private final ShmConnection connection;
    private final ShmInputStream input;
    private final ShmOutputStream output;

    private ShmSocket(final ShmConnection connection, final ShmWaitStrategy wait) {
        this.connection = connection;
        this.input = new ShmInputStream(connection, wait);
        this.output = new ShmOutputStream(connection);
    }

    /** Wraps an established connection; closes it if that fails (a wait-strategy supplier that throws, say). */
    static ShmSocket open(final ShmConnection connection, final ShmOptions options) {
        try {
            final ShmWaitStrategy wait = options.waitStrategy().get();
            if (wait == null) {
                throw new IllegalArgumentException("waitStrategy supplier returned null");
            }
            return new ShmSocket(connection, wait);
        } catch (final RuntimeException | Error ex) {
            ShmRendezvous.release(connection.socket(), connection, ex);
            throw ex;
        }
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
            return open(ShmRendezvous.connect(address, options), options);
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
     * Bytes to the peer; a write waits while the ring is full, and throws "broken pipe" once the peer is gone.
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

    /**
     * Marks the outbound ring closed, closes the rendezvous socket (the peer sees end of stream) and unmaps the
     * rings; safe from any thread. If a stream's read or write is in progress this only signals it, and that
     * call finishes the close on its own thread when it returns. Idempotent.
     */
    @Override
    public void close() {
        connection.close();
    }

    static IOException reset(final String detail) {
        return new IOException("connection reset: " + detail);
    }

    static IOException brokenPipe(final String detail) {
        return new IOException("broken pipe: " + detail);
    }
}
