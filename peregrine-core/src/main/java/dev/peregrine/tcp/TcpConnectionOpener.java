package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.internal.jfr.ChannelOpenedEvent;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.SelectHandler;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * Opens the connections of a {@link TcpTransport}: the socket of a {@link TcpTransport#connect}, and one a
 * {@link TcpServer} accepted. Each takes a slot of the pool, gets the socket options, joins the reactor and opens
 * its slot. A connect that fails is reported by the deferred {@code onConnectFailed}; an accepted socket that cannot
 * be set up or registered is closed with its slot freed and reported to the reactor's error handler, and its server
 * goes on.
 *
 * <ul>
 *   <li>A connect uses the spare socket made ahead by {@link TcpTransport#prepareConnect()}, if there is one.</li>
 *   <li>An accepted socket is read once right after {@code onAccepted}: what the peer wrote at once is delivered in
 *       the accept's cycle.</li>
 * </ul>
 *
 * <p>Not thread-safe: the reactor's thread only. Runs once per connection, never per message.
 */
final class TcpConnectionOpener {
    /** The spare's handler until a connect attaches its connection; with no interest it is never selected. */
    private static final SelectHandler UNCONNECTED_SPARE = (key, nowNs) -> {
    };
    private final TcpTransport transport;
    private final Reactor reactor;
    private final TcpOptions options;
    private final ChannelHandler handler;
    private final TcpConnectionPool connections;
    private final TcpTimers timers;
    private TcpTransport.Registrar registrar;
    /** A socket opened and configured ahead for the next connect ({@link TcpTransport#prepareConnect()}), or null. */
    private SocketChannel spare;
    /** The spare's key, registered ahead with no interest; a connect attaches its connection and sets the interest. */
    private SelectionKey spareKey;
    private long connectsOnSpare;

    TcpConnectionOpener(final TcpTransport transport, final Reactor reactor, final TcpOptions options,
        final ChannelHandler handler, final TcpConnectionPool connections, final TcpTimers timers) {
        this.transport = transport;
        this.reactor = reactor;
        this.options = options;
        this.handler = handler;
        this.connections = connections;
        this.timers = timers;
        this.registrar = reactor::register;
    }

    void registrar(final TcpTransport.Registrar registrar) {
        this.registrar = registrar;
    }

    /** What {@link TcpTransport#connect} does once the transport is known to be open. */
    long connect(final SocketAddress remoteAddress) {
        final TcpConnection connection = connections.acquire();
        if (connection == null) {
            throw new IllegalStateException("maxConnections=" + options.maxConnections() + " reached; cannot connect to "
                + remoteAddress);
        }
        SocketChannel channel = null;
        SelectionKey key = null;
        long id = 0; // no id is 0: the slot is not open yet
        try {
            if (spare != null) {
                channel = spare;
                key = spareKey;
                spare = null;
                spareKey = null;
                connectsOnSpare++;
            } else {
                channel = SocketChannel.open();
                configure(channel);
            }
            final boolean connected = channel.connect(remoteAddress);
            id = connection.open(channel, remoteAddress, TcpConnection.CONNECTING);
            // an immediate connect still completes through the selector, so onConnected follows this call
            final int interest = connected ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT;
            if (key != null) {
                key.attach(connection);
                key.interestOps(interest);
            } else {
                key = reactor.register(channel, interest, connection);
            }
            connection.registered(key);
            connection.connectTimerId(timers.scheduleConnectTimeout(id));
            return id;
        } catch (final IOException | RuntimeException ex) {
            closeQuietly(channel);
            if (id == 0) {
                // opened only here, once: each open counts an open connection and makes its counters, which the
                // close that delivers the failure gives back once
                id = connection.open(null, remoteAddress, TcpConnection.CONNECTING);
            }
            connection.failBeforeSocket("connect to " + remoteAddress + " failed: " + ex);
            timers.deferEvent(id);
            return id;
        }
    }

    /** Opens and configures the next connect's socket now, if none waits. */
    boolean prepareSpare() {
        if (spare != null) {
            return true;
        }
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            configure(channel);
            // registered now with no interest (never selected) and no handler yet: the connect skips that step too
            spareKey = reactor.register(channel, 0, UNCONNECTED_SPARE);
            spare = channel;
            return true;
        } catch (final IOException | RuntimeException ex) {
            closeQuietly(channel); // the next connect opens its own and reports what fails then
            return false;
        }
    }

    boolean hasSpare() {
        return spare != null;
    }

    long connectsOnSpare() {
        return connectsOnSpare;
    }

    void closeSpare() {
        closeQuietly(spare); // cancels its key
        spare = null;
        spareKey = null;
    }

    /** A server accepted a socket: it becomes a connected channel, or is closed if the transport cannot take it. */
    void accepted(final TcpServer server, final SocketChannel channel, final boolean transportClosed) {
        final TcpConnection connection = transportClosed ? null : connections.acquire();
        if (connection == null) {
            closeQuietly(channel);
            transport.reportError(new IllegalStateException("maxConnections=" + options.maxConnections()
                + " reached; a connection to " + server.localAddress() + " was refused"));
            return;
        }
        SocketAddress remote = null;
        try {
            configure(channel);
            remote = channel.getRemoteAddress();
        } catch (final IOException ex) {
            closeQuietly(channel);
            connections.release(connection);
            transport.reportError(new IOException("cannot set up a connection accepted on " + server.localAddress()
                + ": " + ex, ex));
            return;
        }
        final SelectionKey key;
        try {
            key = registrar.register(channel, connection.readInterest(), connection);
        } catch (final RuntimeException ex) {
            // the accepted channel alone fails: it is closed, its slot freed, and the server goes on
            closeQuietly(channel);
            connections.release(connection);
            transport.reportError(new IllegalStateException("cannot register a connection from " + remote + " accepted on "
                + server.localAddress() + "; it is closed, the server goes on", ex));
            return;
        }
        final long id = connection.open(channel, remote, TcpConnection.CONNECTED);
        transport.counters().accepted.increment();
        connection.registered(key);
        ChannelOpenedEvent.emit("tcp", id, server.id(), remote);
        try {
            handler.onAccepted(server.id(), id, remote);
        } catch (final Throwable ex) {
            transport.handlerFailed(connection, ex);
            return;
        }
        // a peer that wrote at once (a login) is answered in this cycle, not after the next select: the read
        // readiness of a socket registered now would show only then. Nothing there costs one read that finds 0
        connection.pollRead();
    }

    private void configure(final SocketChannel channel) throws IOException {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, options.tcpNoDelay());
        if (options.socketSendBufferSize() > 0) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, options.socketSendBufferSize());
        }
        if (options.socketReceiveBufferSize() > 0) {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, options.socketReceiveBufferSize());
        }
    }

    private static void closeQuietly(final java.nio.channels.Channel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // already failing; the original failure is what gets reported
            }
        }
    }
}
