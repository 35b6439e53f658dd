package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.reactor.Reactor;

import java.net.SocketAddress;
import java.util.Arrays;

/**
 * The listening sockets of a {@link TcpTransport}, by id: slots reused once free (a new generation each time, so a
 * stale id finds nothing), closing with the single {@link ChannelHandler#onClosed} event, and a handler's failure on
 * a server's event, which closes that server alone. The table grows only when more servers are open than ever before.
 *
 * <p>Not thread-safe: the reactor's thread only.
 */
final class TcpServers {
    private static final TcpServer[] NO_SERVERS = new TcpServer[0];

    private final TcpTransport transport;
    private final Reactor reactor;
    private final ChannelHandler handler;
    private TcpServer[] servers = NO_SERVERS;

    TcpServers(final TcpTransport transport, final Reactor reactor, final ChannelHandler handler) {
        this.transport = transport;
        this.reactor = reactor;
        this.handler = handler;
    }

    /** A free slot for a new server, or a new one. */
    TcpServer newServer() {
        for (final TcpServer server : servers) {
            if (server.state() == TcpServer.FREE) {
                return server;
            }
        }
        if (servers.length > TcpIds.MAX_INDEX) {
            throw new IllegalStateException("too many servers: " + servers.length);
        }
        final TcpServer server = new TcpServer(transport, servers.length);
        servers = Arrays.copyOf(servers, servers.length + 1);
        servers[server.index()] = server;
        return server;
    }

    /** The server this id names now, or null. */
    TcpServer find(final long id) {
        final int index = TcpIds.index(id);
        if (id <= 0 || index >= servers.length) {
            return null;
        }
        final TcpServer server = servers[index];
        return server.id() == id ? server : null;
    }

    /** The address a listening server is bound to, or null if the id names none. */
    SocketAddress localAddress(final long serverId) {
        final TcpServer server = TcpIds.isServer(serverId) ? find(serverId) : null;
        return server == null || server.state() != TcpServer.LISTENING ? null : server.localAddress();
    }

    /** A server's timer is due ({@link TcpTimers#scheduleServerTimer}). */
    void onTimer(final long id) {
        final TcpServer server = find(id);
        if (server != null) {
            server.onTimer(reactor, handler);
        }
    }

    void close(final long id, final CloseReason reason, final String detail) {
        final TcpServer server = find(id);
        if (server != null && server.state() != TcpServer.FREE) {
            server.close();
            try {
                handler.onClosed(id, reason, detail);
            } catch (final Throwable ex) {
                transport.reportError(new IllegalStateException("channel handler failed on closed server " + id
                    + ", the reactor goes on", ex));
            }
        }
    }

    /** Closes every open server, each reported with {@link CloseReason#LOCAL}, as the application's close would. */
    void closeAll() {
        for (final TcpServer server : servers) {
            if (server.state() != TcpServer.FREE) {
                close(server.id(), CloseReason.LOCAL, TcpTransport.SERVER_CLOSED);
            }
        }
    }

    /** A handler threw from a server's event: the server alone is closed, with the reason. */
    void handlerFailed(final long serverId, final Throwable ex) {
        transport.reportError(new IllegalStateException("channel handler failed on server " + serverId
            + "; the server is closed, the reactor goes on", ex));
        close(serverId, CloseReason.ERROR, "handler failed: " + ex);
    }
}
