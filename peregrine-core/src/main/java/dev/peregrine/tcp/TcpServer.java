package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.SelectHandler;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
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
    /**
     * How long a server stops accepting after an accept failed. The pending connection stays in the backlog and
     * the socket stays readable: without a pause a failure that lasts (no file descriptor left, EMFILE) would be
     * met, and reported, on every cycle of a spinning reactor. Netty's acceptor waits the same second.
     */
    static final long ACCEPT_PAUSE_NS = 1_000_000_000L;

    private final TcpTransport transport;
    private final int index;
    private int generation;
    private long id;
    private int state = FREE;
    private ServerSocketChannel channel;
    private SelectionKey key;
    private SocketAddress localAddress;
    private String failure;
    private boolean acceptPaused;

    TcpServer(final TcpTransport transport, final int index) {
        this.transport = transport;
        this.index = index;
    }

    /**
     * Takes the slot for a new server and binds it; a failure is kept for the deferred event.
     *
     * @return the server id
     */
    long open(final SocketAddress requested, final TcpOptions options) {
        generation = TcpIds.nextGeneration(generation);
        id = TcpIds.serverId(generation, index);
        localAddress = requested;
        failure = null;
        acceptPaused = false;
        try {
            channel = ServerSocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            if (options.socketReceiveBufferSize() > 0) {
                channel.setOption(StandardSocketOptions.SO_RCVBUF, options.socketReceiveBufferSize());
            }
            channel.bind(requested, options.acceptBacklog());
            localAddress = channel.getLocalAddress();
            state = PENDING;
        } catch (final IOException | RuntimeException ex) {
            failure = "cannot listen on " + requested + ": " + ex;
            closeChannel();
            state = FAILED;
        }
        return id;
    }

    private void pauseAccepting() {
        acceptPaused = true;
        key.interestOps(0);
        transport.timers().scheduleServerTimer(id, ACCEPT_PAUSE_NS);
    }

    /**
     * The server's timer: the deferred outcome of {@link #open}, or the end of an accept pause.
     *
     * @param reactor the reactor
     * @param handler the transport's handler
     */
    void onTimer(final Reactor reactor, final ChannelHandler handler) {
        if (state == LISTENING && acceptPaused) {
            acceptPaused = false;
            key.interestOps(SelectionKey.OP_ACCEPT);
            return;
        }
        completeListen(reactor, handler);
    }

    /**
     * Whether accepting is paused after a failed accept.
     *
     * @return true during the pause
     */
    boolean acceptPaused() {
        return acceptPaused;
    }

    /** Delivers the outcome of {@link #open} on a cycle after it, and starts accepting if it bound. */
    void completeListen(final Reactor reactor, final ChannelHandler handler) {
        if (state == FAILED) {
            final String reason = failure;
            close();
            handler.onListenFailed(id, reason);
        } else if (state == PENDING) {
            key = reactor.register(channel, SelectionKey.OP_ACCEPT, this);
            state = LISTENING;
            handler.onListening(id, localAddress);
        }
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

    SocketAddress localAddress() {
        return localAddress;
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
                pauseAccepting();
                transport.reportError(new IOException("accept on " + localAddress + " failed: " + ex.getMessage()
                    + "; accepting again in " + ACCEPT_PAUSE_NS / 1_000_000 + " ms", ex));
                return;
            }
            if (accepted == null) {
                return;
            }
            try {
                transport.accepted(this, accepted);
            } catch (final RuntimeException ex) {
                // never up into the reactor, which would close the listening socket with the key's channel
                closeAccepted(accepted);
                transport.reportError(new IllegalStateException("a connection accepted on " + localAddress
                    + " could not be set up; it is closed, the server goes on", ex));
            }
        }
    }

    private static void closeAccepted(final SocketChannel accepted) {
        try {
            accepted.close();
        } catch (final IOException ignored) {
            // already failing; the original failure is what gets reported
        }
    }

    /** Closes the listening socket; accepted connections stay open. */
    void close() {
        if (key != null) {
            key.cancel();
            key = null;
        }
        closeChannel();
        state = FREE;
        failure = null;
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ex) {
                transport.reportError(ex);
            }
            channel = null;
        }
    }
}
