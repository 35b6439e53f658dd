package dev.peregrine.tcp;

import dev.peregrine.reactor.SelectHandler;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * One listening socket of a {@link TcpTransport}; accepts every pending connection when selected.
 */
final class TcpServer implements SelectHandler {
    static final int FREE = 0;
    static final int PENDING = 1;
    static final int LISTENING = 2;
    static final int FAILED = 3;
    /** Most accepts per readiness event, so a connection storm does not starve established channels. */
    private static final int ACCEPTS_PER_EVENT = 64;

    private final TcpTransport transport;
    private final int index;
    private int generation;
    private long id;
    private int state = FREE;
    private ServerSocketChannel channel;
    private SelectionKey key;
    private SocketAddress localAddress;
    private String failure;

    TcpServer(final TcpTransport transport, final int index) {
        this.transport = transport;
        this.index = index;
    }

    long open(final ServerSocketChannel channel, final SocketAddress localAddress, final String failure) {
        generation = TcpIds.nextGeneration(generation);
        id = TcpIds.serverId(generation, index);
        this.channel = channel;
        this.localAddress = localAddress;
        this.failure = failure;
        this.state = failure == null ? PENDING : FAILED;
        return id;
    }

    int index() {
        return index;
    }

    long id() {
        return id;
    }

    int state() {
        return state;
    }

    String failure() {
        return failure;
    }

    SocketAddress localAddress() {
        return localAddress;
    }

    ServerSocketChannel channel() {
        return channel;
    }

    void listening(final SelectionKey key) {
        this.key = key;
        this.state = LISTENING;
    }

    @Override
    public void onSelected(final SelectionKey selected, final long nowNs) {
        if (selected != key) {
            return;
        }
        for (int i = 0; i < ACCEPTS_PER_EVENT && state == LISTENING; i++) {
            final SocketChannel accepted;
            try {
                accepted = channel.accept();
            } catch (final IOException ex) {
                transport.reportError(new IOException("accept on " + localAddress + " failed: " + ex.getMessage(), ex));
                return;
            }
            if (accepted == null) {
                return;
            }
            transport.accepted(this, accepted);
        }
    }

    /** Closes the listening socket; accepted connections stay open. */
    void close() {
        if (key != null) {
            key.cancel();
            key = null;
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ex) {
                transport.reportError(ex);
            }
            channel = null;
        }
        state = FREE;
        failure = null;
    }
}
