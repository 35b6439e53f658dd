package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One channel of a {@link ShmTransport}: its rendezvous state, then its connection. Forwards polled messages
 * to the application's handler with the channel id, without allocating. A handler's exception travels up
 * through {@link ShmRingReader#poll} to {@link ShmTransport}, which closes this channel.
 */
final class ShmTransportChannel implements ShmMessageHandler {
    static final int RELEASED = 0;
    static final int CONNECTING = 1;
    static final int AWAITING_OFFER = 2;
    static final int AWAITING_ACK = 3;
    static final int CONNECTED = 4;

    final long id;
    final long serverId;
    final SocketChannel socket;
    final ByteBuffer handshake = ShmHandshake.newBuffer();
    final long deadlineNs;
    private final ChannelHandler handler;
    SelectionKey key;
    ShmConnection connection;
    int state;
    boolean backPressured;
    long inFlightAtBackPressure;
    long lastHeartbeatNs;
    boolean releasePending;
    /** {@code ShmTransport.pauseReading}: the inbound ring is not polled until resumed. */
    boolean readingPaused;
    /** Why an access to the channel's rings faulted outside a poll (in a send), for the next cycle to close it. */
    String faulted;
    /**
     * The peer's rendezvous socket ended: from now on the transport only drains the inbound ring, a bounded number
     * of batches per cycle, and closes the channel once it is empty; a send answers CLOSED. The reactor thread's own copy of what
     * {@link ShmConnection#peerGone()} records, read every cycle without that class's lock (its
     * {@code isPeerGone()} also reads the socket).
     */
    boolean peerGone;
    /** Messages the drain may still deliver before the channel is closed as one whose ring never stops filling. */
    long drainBudget;

    ShmTransportChannel(final long id, final long serverId, final SocketChannel socket, final int state,
        final ChannelHandler handler, final long deadlineNs) {
        this.id = id;
        this.serverId = serverId;
        this.socket = socket;
        this.state = state;
        this.handler = handler;
        this.deadlineNs = deadlineNs;
    }

    @Override
    public void onMessage(final MemorySegment buffer, final long offset, final int length) {
        handler.onMessage(id, buffer, offset, length);
    }
}
