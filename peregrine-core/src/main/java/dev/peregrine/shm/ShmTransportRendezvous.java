package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.internal.jfr.ChannelOpenedEvent;
import dev.peregrine.internal.jfr.ShmPeerLostEvent;
import dev.peregrine.reactor.Reactor;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The non-blocking rendezvous of a {@link ShmTransport} ({@link ShmHandshake}, version 1), driven by the reactor's
 * selector, and the liveness of a connected peer afterwards:
 * <ul>
 *   <li>a server accepts a client, creates the ring pair and sends the offer, then waits for the acknowledgement;</li>
 *   <li>a client finishes connecting, reads the offer, maps the rings and acknowledges;</li>
 *   <li>once connected, the end of the rendezvous socket means the peer went: its ring is then drained by the
 *   transport before {@code onClosed}.</li>
 * </ul>
 * A channel's state lives in its {@link ShmTransportChannel}; closing and failing a channel, and its list, stay with
 * the transport. A failure closes that channel only and goes to the reactor's error handler.
 *
 * <p>Not thread-safe: the reactor's thread only. Runs once per readiness event of a rendezvous socket, never per
 * message.
 */
final class ShmTransportRendezvous {
    private final ShmTransport transport;
    private final Reactor reactor;
    private final ChannelHandler handler;
    private final ShmOptions options;
    private final ByteBuffer probe = ByteBuffer.allocateDirect(64);
    private final ByteBuffer ack = ByteBuffer.allocateDirect(1);

    ShmTransportRendezvous(final ShmTransport transport, final Reactor reactor, final ChannelHandler handler,
        final ShmOptions options) {
        this.transport = transport;
        this.reactor = reactor;
        this.handler = handler;
        this.options = options;
    }

    /** A listening socket is readable: accept every waiting client and send each its offer. */
    void onAcceptable(final ShmTransport.ShmTransportServer server, final long nowNs) {
        while (true) {
            final SocketChannel socket;
            try {
                socket = server.channel().accept();
            } catch (final IOException ex) {
                reactor.errorHandler().onError(new IOException("accept on " + server.address().getPath() + " failed", ex));
                return;
            }
            if (socket == null) {
                return;
            }
            final long id = transport.nextId();
            final ShmTransportChannel channel = new ShmTransportChannel(id, server.id(), socket,
                ShmTransportChannel.AWAITING_ACK, handler, nowNs + options.handshakeTimeoutNs());
            try {
                channel.connection = ShmConnection.createForClient(socket, options, channel.handshake, Arena.ofShared());
                channel.connection.enter(); // the transport's use, for the channel's whole life
                socket.configureBlocking(false);
                socket.write(channel.handshake);
                if (channel.handshake.hasRemaining()) {
                    throw new IOException("offer of " + channel.handshake.limit() + " bytes did not fit the socket buffer");
                }
                channel.key = reactor.register(socket, SelectionKey.OP_READ, (key, now) -> onReady(channel, key));
                transport.add(channel);
            } catch (final IOException | RuntimeException ex) {
                if (channel.connection != null) {
                    channel.connection.close();
                    transport.exitConnection(channel.connection);
                }
                ShmTransport.closeQuietly(socket);
                reactor.errorHandler().onError(new IOException("rendezvous with a client of "
                    + server.address().getPath() + " failed: " + ex.getMessage(), ex));
            }
        }
    }

    /** A channel's socket is ready: the next step of its rendezvous, or, once connected, the peer's liveness. */
    void onReady(final ShmTransportChannel channel, final SelectionKey key) {
        try {
            switch (channel.state) {
                case ShmTransportChannel.CONNECTING -> {
                    if (channel.socket.finishConnect()) {
                        channel.state = ShmTransportChannel.AWAITING_OFFER;
                        key.interestOps(SelectionKey.OP_READ);
                    }
                }
                case ShmTransportChannel.AWAITING_OFFER -> readOffer(channel);
                case ShmTransportChannel.AWAITING_ACK -> readAck(channel);
                case ShmTransportChannel.CONNECTED -> checkLiveness(channel);
                default -> key.cancel();
            }
        } catch (final IOException | RuntimeException ex) {
            if (channel.state == ShmTransportChannel.RELEASED) {
                reactor.errorHandler().onError(ex); // the channel was closed (and reported) before this failure
            } else if (channel.state == ShmTransportChannel.CONNECTED) {
                transport.close(channel, CloseReason.ERROR, ex.toString());
            } else {
                transport.failHandshake(channel, ex.getMessage());
            }
        }
    }

    private void readOffer(final ShmTransportChannel channel) throws IOException {
        if (channel.socket.read(channel.handshake) < 0) {
            transport.failHandshake(channel, "server closed the socket during the rendezvous");
            return;
        }
        final ShmHandshake.Offer offer = ShmHandshake.readOffer(channel.handshake);
        if (offer == null) {
            if (!channel.handshake.hasRemaining()) {
                transport.failHandshake(channel, "offer longer than " + channel.handshake.capacity() + " bytes");
            }
            return;
        }
        channel.connection = ShmConnection.mapOffer(channel.socket, offer, Arena.ofShared());
        channel.connection.enter(); // the transport's use, for the channel's whole life
        ack.clear();
        ack.put(ShmHandshake.ACK).flip();
        if (channel.socket.write(ack) != 1) {
            throw new IOException("acknowledgement did not fit the socket buffer");
        }
        final SocketAddress remote = channel.socket.getRemoteAddress();
        channel.state = ShmTransportChannel.CONNECTED;
        ChannelOpenedEvent.emit("shm", channel.id, 0, remote);
        try {
            handler.onConnected(channel.id, remote);
        } catch (final Throwable ex) {
            transport.handlerFailed(channel, ex);
        }
    }

    private void readAck(final ShmTransportChannel channel) throws IOException {
        probe.clear().limit(1);
        final int read = channel.socket.read(probe);
        if (read < 0) {
            transport.failHandshake(channel, "client closed the socket during the rendezvous");
            return;
        }
        if (read == 0) {
            return;
        }
        if (probe.get(0) != ShmHandshake.ACK) {
            transport.failHandshake(channel, "client sent byte=" + probe.get(0) + " instead of the acknowledgement");
            return;
        }
        channel.connection.removeFiles();
        channel.state = ShmTransportChannel.CONNECTED;
        ChannelOpenedEvent.emit("shm", channel.id, channel.serverId, channel.connection.remoteAddress());
        try {
            handler.onAccepted(channel.serverId, channel.id, channel.connection.remoteAddress());
        } catch (final Throwable ex) {
            transport.handlerFailed(channel, ex);
        }
    }

    private void checkLiveness(final ShmTransportChannel channel) throws IOException {
        probe.clear();
        if (channel.socket.read(probe) >= 0) {
            return; // nothing is expected after the rendezvous; stray bytes are ignored
        }
        final ShmConnection connection = channel.connection;
        connection.peerGone();
        ShmPeerLostEvent.emit(channel.id, connection.remoteAddress(), connection.peerClosedOrderly());
        // what the peer wrote before it went is delivered by doWork, later in this cycle and on the next ones if
        // there is much (drain); the socket stays readable at its end, so it is not selected any more
        channel.key.interestOps(0);
        channel.peerGone = true;
        channel.drainBudget = connection.reader().goneWriterDrainBound();
    }
}
