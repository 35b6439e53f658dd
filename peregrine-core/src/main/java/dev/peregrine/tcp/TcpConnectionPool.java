package dev.peregrine.tcp;

import dev.peregrine.channel.SendResult;

import java.lang.foreign.Arena;
import java.util.Arrays;

/**
 * The connection slots of a {@link TcpTransport}: made on first need (with their buffers), reused after
 * a close (last freed, first reused, while its buffers are warm), and found by id in constant time.
 * Never more than {@link TcpOptions#maxConnections()}. Not thread-safe: the reactor's thread only.
 */
final class TcpConnectionPool {
    private final TcpTransport transport;
    private final TcpOptions options;
    private final Arena arena;
    private TcpConnection[] slots = new TcpConnection[16];
    private int slotCount;
    private int[] free = new int[16];
    private int freeCount;

    TcpConnectionPool(final TcpTransport transport, final TcpOptions options, final Arena arena) {
        this.transport = transport;
        this.options = options;
        this.arena = arena;
    }

    /**
     * A free slot for a new connection.
     *
     * @return the slot, or null if {@code maxConnections} are open
     */
    TcpConnection acquire() {
        if (freeCount > 0) {
            return slots[free[--freeCount]];
        }
        if (slotCount >= options.maxConnections()) {
            return null;
        }
        if (slotCount == slots.length) {
            slots = Arrays.copyOf(slots, slotCount * 2);
        }
        final TcpConnection connection = new TcpConnection(transport, slotCount,
            options.framing().newCodec(options.maxFrameLength()), arena, options.receiveBufferSize(),
            options.outboundBufferSize(), transport.readPoller());
        slots[slotCount++] = connection;
        return connection;
    }

    /** Returns a slot; its connection's id is stale from now on. */
    void release(final TcpConnection connection) {
        connection.free();
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = connection.index();
    }

    /**
     * The connection an id names, if it is current.
     *
     * @return the connection, or null for an unknown, stale or server id
     */
    TcpConnection find(final long id) {
        if (id <= 0 || TcpIds.isServer(id)) {
            return null;
        }
        final int index = TcpIds.index(id);
        if (index >= slotCount) {
            return null;
        }
        final TcpConnection connection = slots[index];
        return connection.id() == id && connection.state() != TcpConnection.FREE ? connection : null;
    }

    /** The connection an id names, if it is current and connected; else null. */
    TcpConnection connected(final long id) {
        final TcpConnection connection = find(id);
        return connection != null && connection.state() == TcpConnection.CONNECTED ? connection : null;
    }

    /** Why an id names no connected channel: {@code CLOSED} for one closed or closing, else {@code NOT_CONNECTED}. */
    long notConnected(final long channelId) {
        final TcpConnection connection = find(channelId);
        return connection != null && (connection.state() == TcpConnection.CLOSED || connection.state() == TcpConnection.CLOSING)
            ? SendResult.CLOSED : SendResult.NOT_CONNECTED;
    }

    int slotCount() {
        return slotCount;
    }

    TcpConnection slot(final int index) {
        return slots[index];
    }
}
