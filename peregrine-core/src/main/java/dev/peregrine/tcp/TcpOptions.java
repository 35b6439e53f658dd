package dev.peregrine.tcp;

import java.util.concurrent.TimeUnit;

/**
 * Settings of a {@link TcpTransport}, shared by all its connections; fluent, validated on each setter.
 *
 * <p>Memory per connection is made once, when a connection slot is first used, and reused by later
 * connections in that slot: a receive buffer of {@link #receiveBufferSize(int)} bytes and an outbound
 * buffer of {@link #outboundBufferSize(int)} bytes, each raised if needed to hold one maximum frame with
 * its framing overhead.
 */
public final class TcpOptions {
    private Framing framing = Framing.lengthPrefixed(4, java.nio.ByteOrder.BIG_ENDIAN, false);
    private int maxFrameLength = 64 * 1024;
    private int receiveBufferSize = 64 * 1024;
    private int outboundBufferSize = 256 * 1024;
    private int socketSendBufferSize;
    private int socketReceiveBufferSize;
    private boolean tcpNoDelay = true;
    private long connectTimeoutNs = TimeUnit.SECONDS.toNanos(10);
    private long lingerTimeoutNs = TimeUnit.SECONDS.toNanos(5);
    private int acceptBacklog = 1024;
    private int maxConnections = 16 * 1024;
    private boolean readPolling;
    private TcpWriteListener writeListener;

    /** Creates options with the defaults: {@code length:4be} framing, 64 KiB frames, TCP_NODELAY on. */
    public TcpOptions() {
    }

    /**
     * How messages are delimited on the stream; default {@code length:4be}.
     *
     * @param framing the framing
     * @return this
     */
    public TcpOptions framing(final Framing framing) {
        if (framing == null) {
            throw new IllegalArgumentException("framing=null");
        }
        this.framing = framing;
        return this;
    }

    /**
     * Longest payload sent or accepted; a peer announcing or sending more has its connection closed.
     * Default 65536. A length field that cannot express it caps it; fixed framing uses its own length.
     *
     * @param maxFrameLength at least 1
     * @return this
     */
    public TcpOptions maxFrameLength(final int maxFrameLength) {
        if (maxFrameLength < 1 || maxFrameLength > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("maxFrameLength=" + maxFrameLength);
        }
        this.maxFrameLength = maxFrameLength;
        return this;
    }

    /**
     * Off-heap receive buffer per connection (raised to hold one maximum frame); default 64 KiB.
     *
     * @param bytes at least 64
     * @return this
     */
    public TcpOptions receiveBufferSize(final int bytes) {
        if (bytes < 64) {
            throw new IllegalArgumentException("receiveBufferSize=" + bytes + " must be at least 64");
        }
        this.receiveBufferSize = bytes;
        return this;
    }

    /**
     * Bounded off-heap outbound buffer per connection, holding what the socket has not taken yet
     * (raised to hold one maximum frame); a send that does not fit is back-pressured. Default 256 KiB.
     *
     * @param bytes at least 64
     * @return this
     */
    public TcpOptions outboundBufferSize(final int bytes) {
        if (bytes < 64) {
            throw new IllegalArgumentException("outboundBufferSize=" + bytes + " must be at least 64");
        }
        this.outboundBufferSize = bytes;
        return this;
    }

    /**
     * The kernel's send buffer, SO_SNDBUF; 0 (the default) leaves the system's choice.
     *
     * @param bytes 0 or more
     * @return this
     */
    public TcpOptions socketSendBufferSize(final int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("socketSendBufferSize=" + bytes);
        }
        this.socketSendBufferSize = bytes;
        return this;
    }

    /**
     * The kernel's receive buffer, SO_RCVBUF; 0 (the default) leaves the system's choice.
     *
     * @param bytes 0 or more
     * @return this
     */
    public TcpOptions socketReceiveBufferSize(final int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("socketReceiveBufferSize=" + bytes);
        }
        this.socketReceiveBufferSize = bytes;
        return this;
    }

    /**
     * TCP_NODELAY (Nagle's algorithm off); default on, which is what low latency needs.
     *
     * @param tcpNoDelay whether to disable Nagle's algorithm
     * @return this
     */
    public TcpOptions tcpNoDelay(final boolean tcpNoDelay) {
        this.tcpNoDelay = tcpNoDelay;
        return this;
    }

    /**
     * How long a connect may take before it fails with a timeout; default 10 s.
     *
     * @param timeout at least 1 ns
     * @param unit its unit
     * @return this
     */
    public TcpOptions connectTimeout(final long timeout, final TimeUnit unit) {
        if (timeout < 1 || unit == null) {
            throw new IllegalArgumentException("connectTimeout=" + timeout + " " + unit);
        }
        this.connectTimeoutNs = unit.toNanos(timeout);
        return this;
    }

    /**
     * How long a channel closed with {@link TcpTransport#close(long)}, or half-closed by its peer, may take
     * to write what is buffered for it before it is closed anyway and the rest discarded (its
     * {@code onClosed} detail then says how many bytes, and the peer sees a reset, not an end of stream).
     * Default 5 seconds; 0 writes what the socket takes at once and discards the rest.
     *
     * @param timeout at least 0
     * @param unit its unit
     * @return this
     */
    public TcpOptions lingerTimeout(final long timeout, final TimeUnit unit) {
        if (timeout < 0 || unit == null) {
            throw new IllegalArgumentException("lingerTimeout=" + timeout + " " + unit);
        }
        this.lingerTimeoutNs = unit.toNanos(timeout);
        return this;
    }

    /**
     * Pending-connection queue of a server socket; default 1024 (the kernel may cap it).
     *
     * @param backlog at least 1
     * @return this
     */
    public TcpOptions acceptBacklog(final int backlog) {
        if (backlog < 1) {
            throw new IllegalArgumentException("acceptBacklog=" + backlog);
        }
        this.acceptBacklog = backlog;
        return this;
    }

    /**
     * Most connections open at once; further accepts are closed at once and reported. Default 16384.
     *
     * @param maxConnections between 1 and 2^30
     * @return this
     */
    public TcpOptions maxConnections(final int maxConnections) {
        if (maxConnections < 1 || maxConnections > TcpIds.MAX_INDEX + 1) {
            throw new IllegalArgumentException("maxConnections=" + maxConnections);
        }
        this.maxConnections = maxConnections;
        return this;
    }

    /**
     * Read polling: each duty cycle tries a non-blocking read on every connection instead of waiting for
     * the selector to report it readable. Lowest latency for a few connections (no {@code epoll_wait}
     * between a byte's arrival and its read), but costs a syscall per connection per cycle, so it suits
     * a busy-spinning reactor with a handful of connections, not thousands. A connection whose bytes wait
     * for a full socket is written by polling too: a write attempt each cycle until the socket has taken
     * them. The selector is still used for accept, connect and OP_WRITE; with {@link dev.peregrine.reactor.ReactorOptions#selectInterval(int)}
     * the reactor can also skip most of its {@code selectNow} calls. Framing, back-pressure and close
     * reasons are the same in both modes. Default off. The transport must be made on the reactor's thread
     * or before the reactor starts, as it adds itself to the reactor as a {@link dev.peregrine.reactor.Pollable}.
     *
     * @param readPolling whether connections are read by polling
     * @return this
     */
    public TcpOptions readPolling(final boolean readPolling) {
        this.readPolling = readPolling;
        return this;
    }

    /**
     * Whether connections are read by polling each cycle rather than on selector readiness.
     *
     * @return the flag
     */
    public boolean readPolling() {
        return readPolling;
    }

    /**
     * Sets what is told of every write to a connection's socket, as it happens ({@link TcpWriteListener}). Default
     * none: the write path then pays one null check per write.
     *
     * @param listener the listener, or null for none
     * @return this
     */
    public TcpOptions writeListener(final TcpWriteListener listener) {
        this.writeListener = listener;
        return this;
    }

    /**
     * What is told of every write to a connection's socket.
     *
     * @return the listener, or null
     */
    public TcpWriteListener writeListener() {
        return writeListener;
    }

    /**
     * The framing.
     *
     * @return the framing
     */
    public Framing framing() {
        return framing;
    }

    /**
     * The configured maximum frame length (before any cap by the framing).
     *
     * @return bytes
     */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    /**
     * The configured receive buffer size.
     *
     * @return bytes
     */
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /**
     * The configured outbound buffer size.
     *
     * @return bytes
     */
    public int outboundBufferSize() {
        return outboundBufferSize;
    }

    /**
     * SO_SNDBUF, 0 for the system's choice.
     *
     * @return bytes
     */
    public int socketSendBufferSize() {
        return socketSendBufferSize;
    }

    /**
     * SO_RCVBUF, 0 for the system's choice.
     *
     * @return bytes
     */
    public int socketReceiveBufferSize() {
        return socketReceiveBufferSize;
    }

    /**
     * Whether TCP_NODELAY is set.
     *
     * @return the flag
     */
    public boolean tcpNoDelay() {
        return tcpNoDelay;
    }

    /**
     * The connect timeout.
     *
     * @return nanoseconds
     */
    public long connectTimeoutNs() {
        return connectTimeoutNs;
    }

    /**
     * The linger timeout of a closing channel.
     *
     * @return nanoseconds
     */
    public long lingerTimeoutNs() {
        return lingerTimeoutNs;
    }

    /**
     * The accept backlog.
     *
     * @return the backlog
     */
    public int acceptBacklog() {
        return acceptBacklog;
    }

    /**
     * The connection limit.
     *
     * @return the count
     */
    public int maxConnections() {
        return maxConnections;
    }
}
