package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.internal.jfr.ChannelClosedEvent;
import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.handoff.ReadPausable;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.Arrays;

/**
 * Shared-memory channels on a {@link Reactor}, with the same events as TCP: the rendezvous sockets are
 * registered with the reactor (accept, handshake, and afterwards end-of-stream as the liveness signal) and
 * the inbound rings are polled every cycle ({@link Pollable}). When a peer closes or dies the messages it
 * wrote before are delivered first, then {@code onClosed} with {@link CloseReason#BY_PEER} (orderly) or
 * {@link CloseReason#RESET} (the process died, e.g. {@code kill -9}). That goodbye is drained a bounded number of
 * batches per cycle, so the other channels, timers and heartbeats go on meanwhile; a ring that keeps filling after its
 * peer went (a process still holding the mapping writes to it) is drained for at most one lap more than it can hold,
 * then the channel is closed with {@link CloseReason#ERROR} as a fault of the peer (below).
 *
 * <p>{@link #send} copies the message into the outbound ring: it returns 0 (the ring is the wire), or
 * {@link SendResult#BACK_PRESSURED} when the ring is full by bytes or by messages, followed by
 * {@link ChannelHandler#onSent} once the peer has read some. Once the peer has gone (its rendezvous socket ended)
 * nobody reads the ring any more: while what the peer wrote before is still being delivered, before
 * {@code onClosed}, the channel is closing and a send answers {@link SendResult#CLOSED} and takes nothing, as a TCP
 * channel that is closing does. Addresses are {@link UnixDomainSocketAddress}es.
 *
 * <p>The rings are polled, not selected: give the reactor a polling idle strategy (busy-spin, yielding or
 * back-off). With {@code BlockingSelectIdleStrategy} a message waits until the selector wakes up for another
 * reason or its maximum wait passes.
 *
 * <p>A handler that throws closes only its own channel ({@code onClosed} with {@link CloseReason#ERROR} and the
 * exception in the detail), is counted ({@link #handlerFailures()}) and reported to the reactor's error handler;
 * every other channel goes on. After {@code onClosed} no further event arrives for that channel, even from the
 * batch of messages being delivered when the handler closed it. Completions of {@link #listen} and
 * {@link #connect} that are known at once are delivered through the reactor's timer wheel on a later cycle:
 * never lost, never from inside the call.
 *
 * <p>Each channel's rings are mapped in an arena of its own, unmapped when the channel closes (after the
 * delivery in progress on it has returned); {@link #close()} the transport to release every channel's.
 * A peer that corrupts its ring gets its channel closed with {@link CloseReason#ERROR} and the reason; so does one
 * that shrinks a ring file under the mapping (any process of the same user holding the file can truncate it), whose
 * every access then faults: only that channel is closed, and a {@link #send} to it answers
 * {@link SendResult#CLOSED} rather than throwing the fault. Each such fault of a peer is also reported to the
 * reactor's error handler with the channel and the reason, and counted ({@link #peerFaults()}, and the counter
 * {@code peregrine_shm_peer_faults_total}).
 *
 * <p>Not thread-safe: the reactor's thread only.
 */
public final class ShmTransport implements Transport, Pollable, ReadPausable {
    private static final long HEARTBEAT_INTERVAL_NS = 100_000_000L;
    private static final int POLL_LIMIT = 256;
    /**
     * Batches of {@link #POLL_LIMIT} a channel whose peer went may deliver per cycle: more than a live channel's one,
     * to finish the goodbye quickly, but bounded, so a process that still holds the mapping and keeps writing cannot
     * hold the reactor inside one cycle.
     */
    private static final int DRAIN_BATCHES_PER_CYCLE = 16;

    private final Reactor reactor;
    private final ChannelHandler handler;
    private final ShmOptions options;
    private ShmTransportChannel[] channels = new ShmTransportChannel[0];
    private ShmTransportServer[] servers = new ShmTransportServer[0];
    private final ShmTransportRendezvous rendezvous;
    private final ShmTransportCompletions completions;
    private ShmTransportChannel lastFound;
    private ShmTransportChannel polling;
    private long nextId = 1;
    private long handlerFailures;
    private final ShmTransportCounters counters;
    private final Runnable releaseCounters;
    private long countersPublishedNs;

    /** A listening socket. */
    record ShmTransportServer(long id, UnixDomainSocketAddress address, ServerSocketChannel channel, SelectionKey[] key) {
    }

    /**
     * Creates the transport and adds it to the reactor's pollables; reactor thread (or before it starts).
     *
     * @param reactor the event loop
     * @param options ring sizes and folder (as a server), handshake timeout
     * @param handler receives every event
     */
    public ShmTransport(final Reactor reactor, final ShmOptions options, final ChannelHandler handler) {
        if (reactor == null || handler == null || options == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " handler=" + handler + " options=" + options);
        }
        this.reactor = reactor;
        this.handler = handler;
        this.options = options;
        this.counters = new ShmTransportCounters(reactor.counters());
        this.rendezvous = new ShmTransportRendezvous(this, reactor, handler, options);
        this.completions = new ShmTransportCompletions(this, reactor, handler);
        this.releaseCounters = counters::close;
        reactor.addReleaseHook(releaseCounters); // a reactor closed first still gets the slots back
        reactor.add(this);
    }

    @Override
    public long listen(final SocketAddress localAddress) {
        final long id = nextId++;
        if (!(localAddress instanceof UnixDomainSocketAddress address)) {
            completions.defer(id, true, "shared memory listens on a UnixDomainSocketAddress, not " + localAddress);
            return id;
        }
        try {
            ShmRingFile.cleanLeftovers(options.ringDirectory());
            final ServerSocketChannel channel = ShmRendezvous.bind(address);
            final ShmTransportServer server = new ShmTransportServer(id, address, channel, new SelectionKey[1]);
            server.key()[0] = reactor.register(channel, SelectionKey.OP_ACCEPT, (key, nowNs) -> rendezvous.onAcceptable(server, nowNs));
            servers = append(servers, server);
            completions.defer(id, true, null);
        } catch (final IOException | RuntimeException ex) {
            completions.defer(id, true, "cannot listen on " + address.getPath() + ": " + ex.getMessage());
        }
        return id;
    }

    @Override
    public long connect(final SocketAddress remoteAddress) {
        final long id = nextId++;
        if (!(remoteAddress instanceof UnixDomainSocketAddress address)) {
            completions.defer(id, false, "shared memory connects to a UnixDomainSocketAddress, not " + remoteAddress);
            return id;
        }
        SocketChannel socket = null;
        try {
            socket = SocketChannel.open(StandardProtocolFamily.UNIX);
            socket.configureBlocking(false);
            final boolean connected = socket.connect(address);
            final ShmTransportChannel channel = new ShmTransportChannel(id, 0, socket,
                connected ? ShmTransportChannel.AWAITING_OFFER : ShmTransportChannel.CONNECTING, handler,
                reactor.clock().nanoTime() + options.handshakeTimeoutNs());
            channel.key = reactor.register(socket, connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT,
                (key, nowNs) -> rendezvous.onReady(channel, key));
            channels = append(channels, channel);
        } catch (final IOException | RuntimeException ex) {
            closeQuietly(socket);
            completions.defer(id, false, "cannot connect to " + address.getPath() + ": " + ex.getMessage());
        }
        return id;
    }

    @Override
    public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final ShmTransportChannel channel = find(channelId);
        if (channel == null || channel.state != ShmTransportChannel.CONNECTED) {
            return SendResult.NOT_CONNECTED;
        }
        final ShmRingWriter writer = channel.connection.writer();
        if (length < 0 || length > writer.maxMessageLength()) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        // a peer that went reads nothing more: the channel is closing while its goodbye is delivered. One load of a
        // field of the channel already in hand, and a branch never taken for a live peer
        if (channel.faulted != null || channel.peerGone) {
            return SendResult.CLOSED;
        }
        try {
            final long index = writer.tryClaim(length);
            if (index == ShmRingWriter.BACK_PRESSURED) {
                if (!channel.backPressured) {
                    channel.backPressured = true;
                    channel.inFlightAtBackPressure = writer.bytesInFlight();
                }
                return SendResult.BACK_PRESSURED;
            }
            if (index < 0) {
                return SendResult.CLOSED;
            }
            ShmRingWriter.copyOrAbort(buffer, offset, writer.buffer(), index, length, writer);
            writer.commit(index);
            return 0;
        } catch (final InternalError ex) {
            // the outbound ring's memory faulted (its file shrank under the mapping): nothing more goes to this
            // channel, which the next cycle closes, not this call (it may come from another channel's handler)
            channel.faulted = String.valueOf(ex.getMessage());
            return SendResult.CLOSED;
        }
    }

    @Override
    public void close(final long id) {
        final ShmTransportChannel channel = find(id);
        if (channel != null) {
            close(channel, CloseReason.LOCAL, "closed by the application");
            return;
        }
        for (final ShmTransportServer server : servers) {
            if (server.id() == id) {
                closeServer(server);
                try {
                    handler.onClosed(id, CloseReason.LOCAL, "server on " + server.address().getPath() + " closed by the application");
                } catch (final Throwable ex) {
                    handlerFailed(null, ex);
                }
                return;
            }
        }
    }

    @Override
    public void close() {
        for (final ShmTransportServer server : servers) {
            closeServer(server);
        }
        for (final ShmTransportChannel channel : channels) {
            close(channel, CloseReason.LOCAL, "transport closed");
        }
        reactor.remove(this);
        reactor.removeReleaseHook(releaseCounters);
        counters.close();
    }

    /**
     * Stops delivering a channel's messages: its inbound ring is not read, so the peer's writes back up once it is
     * full ({@link SendResult#BACK_PRESSURED} there). From {@code onMessage}, the message being delivered is the last.
     * A paused channel whose peer went is closed only once resumed; heartbeats and sends go on.
     *
     * @param channelId the channel
     * @return 0, or {@link SendResult#NOT_CONNECTED}
     */
    @Override
    public long pauseReading(final long channelId) {
        final ShmTransportChannel channel = find(channelId);
        if (channel == null || channel.state != ShmTransportChannel.CONNECTED) {
            return SendResult.NOT_CONNECTED;
        }
        channel.readingPaused = true;
        if (polling == channel) {
            channel.connection.reader().stopPoll();
        }
        return 0;
    }

    /**
     * Reads a paused channel again, from the next poll of this transport (never from inside this call).
     *
     * @param channelId the channel
     * @return 0, or {@link SendResult#NOT_CONNECTED}
     */
    @Override
    public long resumeReading(final long channelId) {
        final ShmTransportChannel channel = find(channelId);
        if (channel == null || channel.state != ShmTransportChannel.CONNECTED) {
            return SendResult.NOT_CONNECTED;
        }
        channel.readingPaused = false;
        return 0;
    }

    /**
     * How many times a handler of this transport threw; each time its channel was closed and the exception went
     * to the reactor's error handler.
     *
     * @return the count since creation
     */
    public long handlerFailures() {
        return handlerFailures;
    }

    /**
     * How many channels were closed for a fault of their peer: a corrupt ring, a ring file shrunk under the mapping,
     * a ring that kept filling after its peer went. Each was closed with {@link CloseReason#ERROR} and reported to
     * the reactor's error handler with the channel and the reason.
     *
     * @return the count since creation
     */
    public long peerFaults() {
        return counters.peerFaults();
    }

    /**
     * Polls every connected channel's inbound ring; the reactor calls this once per cycle.
     *
     * @param nowNs the cycle's clock
     * @return messages delivered
     */
    @Override
    public int doWork(final long nowNs) {
        int work = 0;
        final ShmTransportChannel[] channels = this.channels;
        for (final ShmTransportChannel channel : channels) {
            if (channel.state == ShmTransportChannel.CONNECTED) {
                if (channel.faulted != null) {
                    ringFaulted(channel, channel.faulted);
                    work++;
                    continue;
                }
                try {
                    work += channel.peerGone ? drain(channel) : pollChannel(channel, nowNs);
                } catch (final InternalError ex) {
                    ringFaulted(channel, String.valueOf(ex.getMessage()));
                    work++;
                }
            } else if (channel.state != ShmTransportChannel.RELEASED && nowNs - channel.deadlineNs > 0) {
                failHandshake(channel, "rendezvous timed out after " + options.handshakeTimeoutNs() + " ns");
            }
        }
        if (nowNs - countersPublishedNs > HEARTBEAT_INTERVAL_NS) {
            // the ring's occupancy reads the peer's head: a cache miss, paid with the heartbeat, not each cycle
            countersPublishedNs = nowNs;
            try {
                counters.publish(channels);
            } catch (final InternalError ex) {
                // a ring's memory faulted: that channel's own next access closes it, with the reason
            }
        }
        return work;
    }

    private int pollChannel(final ShmTransportChannel channel, final long nowNs) {
        final ShmConnection connection = channel.connection;
        final int polled = channel.readingPaused ? 0 : deliver(channel);
        if (polled < 0) {
            peerFault(channel, "inbound ring corrupt: " + connection.reader().corruption());
            return 1;
        }
        if (channel.backPressured && channel.state == ShmTransportChannel.CONNECTED) {
            final long inFlight = connection.writer().bytesInFlight();
            if (inFlight < channel.inFlightAtBackPressure || inFlight == 0) {
                channel.backPressured = false;
                try {
                    handler.onSent(channel.id, 0, 0);
                } catch (final Throwable ex) {
                    handlerFailed(channel, ex);
                }
            }
        }
        if (nowNs - channel.lastHeartbeatNs > HEARTBEAT_INTERVAL_NS && channel.state == ShmTransportChannel.CONNECTED) {
            channel.lastHeartbeatNs = nowNs;
            connection.writer().heartbeat(nowNs);
        }
        return polled;
    }

    /**
     * Delivers a batch of the channel's messages. A handler that throws closes the channel (the messages up to
     * the failing one count as consumed); one that closes it stops the batch there. The rings stay mapped until
     * the batch has returned: the transport's use of the connection ends here if the channel was released.
     *
     * @return messages delivered, or {@link ShmRingReader#CORRUPT}
     */
    private int deliver(final ShmTransportChannel channel) {
        final ShmConnection connection = channel.connection;
        polling = channel;
        try {
            return connection.reader().poll(channel, POLL_LIMIT);
        } catch (final InternalError ex) {
            throw ex; // the ring's memory faulted, not the handler: pollChannel's caller closes the channel
        } catch (final Throwable ex) {
            handlerFailed(channel, ex);
            return 1;
        } finally {
            polling = null;
            if (channel.releasePending) {
                channel.releasePending = false;
                exitConnection(connection);
            }
        }
    }

    /**
     * Delivers what is left in the ring of a channel whose peer went, at most {@link #DRAIN_BATCHES_PER_CYCLE}
     * batches per cycle, then reports how the peer went once the ring is empty: {@link CloseReason#BY_PEER} if it
     * closed its ring, {@link CloseReason#RESET} if it died. A ring that is corrupt, or that keeps filling past
     * {@link ShmTransportChannel#drainBudget}, is a fault of the peer ({@link #peerFault}).
     *
     * @return messages delivered, or 1 if the channel was closed
     */
    private int drain(final ShmTransportChannel channel) {
        final ShmConnection connection = channel.connection;
        if (channel.readingPaused) {
            return 0; // as TCP: a paused channel learns that its peer went once resumed
        }
        int delivered = 0;
        for (int batch = 0; batch < DRAIN_BATCHES_PER_CYCLE; batch++) {
            final int polled = deliver(channel);
            if (channel.state != ShmTransportChannel.CONNECTED) {
                return delivered + 1; // the application closed it from a handler, or a handler failed
            }
            if (polled < 0) {
                peerFault(channel, "inbound ring corrupt: " + connection.reader().corruption());
                return delivered + 1;
            }
            if (polled == 0) {
                if (connection.peerClosedOrderly()) {
                    close(channel, CloseReason.BY_PEER, "peer closed the shared-memory channel");
                } else {
                    close(channel, CloseReason.RESET,
                        "peer process died or dropped the rendezvous socket without closing its ring");
                }
                return delivered + 1;
            }
            delivered += polled;
            channel.drainBudget -= polled;
            if (channel.drainBudget <= 0) {
                peerFault(channel, ShmRingReader.KEPT_FILLING);
                return delivered + 1;
            }
        }
        return delivered;
    }

    void failHandshake(final ShmTransportChannel channel, final String reason) {
        release(channel);
        if (channel.serverId == 0) {
            try {
                handler.onConnectFailed(channel.id, reason);
            } catch (final Throwable ex) {
                handlerFailed(null, ex);
            }
        } else {
            reactor.errorHandler().onError(new IOException("rendezvous with a client failed: " + reason));
        }
    }

    void close(final ShmTransportChannel channel, final CloseReason reason, final String detail) {
        if (channel.state == ShmTransportChannel.CONNECTED) {
            ChannelClosedEvent.emit("shm", channel.id, channel.connection.remoteAddress(), reason, detail, 0);
            release(channel);
            try {
                handler.onClosed(channel.id, reason, detail);
            } catch (final Throwable ex) {
                handlerFailed(null, ex); // the channel is closed already
            }
        } else if (channel.state != ShmTransportChannel.RELEASED) {
            failHandshake(channel, detail);
        }
    }

    /**
     * An access to a channel's rings faulted: another process shrank a ring file under the mapping (a file of the
     * same user can be truncated by any process that holds it open). Only that channel is closed, with the reason,
     * and its rings are unmapped without another write to them.
     */
    private void ringFaulted(final ShmTransportChannel channel, final String fault) {
        channel.connection.markFaulted();
        peerFault(channel, "its shared memory faulted (a ring file shrank under the mapping?): " + fault);
    }

    /**
     * The peer broke the ring's contract (a corrupt record, a file shrunk under the mapping, a ring that kept filling
     * after the peer went): counted, reported to the reactor's error handler naming the channel, and only that channel
     * is closed with {@link CloseReason#ERROR} and the reason.
     */
    private void peerFault(final ShmTransportChannel channel, final String detail) {
        counters.peerFault();
        reactor.errorHandler().onError(new IllegalStateException("shared-memory channel " + channel.id + ": " + detail
            + "; the channel is closed, the reactor goes on"));
        close(channel, CloseReason.ERROR, detail);
    }

    /** A handler threw: count it, report it, and close only that handler's channel (if it is still open). */
    void handlerFailed(final ShmTransportChannel channel, final Throwable ex) {
        handlerFailures++;
        final boolean open = channel != null && channel.state != ShmTransportChannel.RELEASED;
        try {
            reactor.errorHandler().onError(new IllegalStateException("shared-memory channel handler failed"
                + (open ? " on channel " + channel.id + "; the channel is closed" : "") + ", the reactor goes on", ex));
        } finally {
            if (open) {
                close(channel, CloseReason.ERROR, "handler failed: " + ex);
            }
        }
    }

    private void release(final ShmTransportChannel channel) {
        channel.state = ShmTransportChannel.RELEASED;
        if (channel.key != null) {
            channel.key.cancel();
        }
        final ShmConnection connection = channel.connection;
        if (connection != null) {
            counters.retire(connection);
            // signals only (the transport holds a use); finishing closes the socket after marking the ring closed
            connection.close();
            if (polling == channel) {
                // a handler closed its channel while its messages are being delivered: stop the batch, and unmap
                // only once the reader has returned
                connection.reader().stopPoll();
                channel.releasePending = true;
            } else {
                exitConnection(connection);
            }
        }
        closeQuietly(channel.socket);
        channels = remove(channels, channel);
        if (lastFound == channel) {
            lastFound = null;
        }
    }

    private void closeServer(final ShmTransportServer server) {
        if (server.key()[0] != null) {
            server.key()[0].cancel();
        }
        closeQuietly(server.channel());
        try {
            Files.deleteIfExists(server.address().getPath());
        } catch (final IOException ex) {
            reactor.errorHandler().onError(ex);
        }
        final ShmTransportServer[] kept = new ShmTransportServer[servers.length];
        int count = 0;
        for (final ShmTransportServer other : servers) {
            if (other != server) {
                kept[count++] = other;
            }
        }
        servers = Arrays.copyOf(kept, count);
    }

    /** The next id of a channel or a server. */
    long nextId() {
        return nextId++;
    }

    /** A channel whose rendezvous has begun joins the list. */
    void add(final ShmTransportChannel channel) {
        channels = append(channels, channel);
    }

    /** The address of the server with this id, or null if there is none (any more). */
    UnixDomainSocketAddress listeningAddress(final long id) {
        for (final ShmTransportServer server : servers) {
            if (server.id() == id) {
                return server.address();
            }
        }
        return null;
    }

    private ShmTransportChannel find(final long id) {
        final ShmTransportChannel last = lastFound;
        if (last != null && last.id == id) {
            return last;
        }
        for (final ShmTransportChannel channel : channels) {
            if (channel.id == id) {
                lastFound = channel;
                return channel;
            }
        }
        return null;
    }

    /** Ends the transport's use of a closed connection: it finishes closing (ring closed, socket closed, unmapped). */
    void exitConnection(final ShmConnection connection) {
        try {
            connection.exit();
        } catch (final RuntimeException | InternalError ex) { // a fault too: the channel must still leave the list
            reactor.errorHandler().onError(ex);
        }
    }

    static void closeQuietly(final java.nio.channels.Channel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // closing is best effort here; the channel is being discarded
            }
        }
    }

    private static <T> T[] append(final T[] array, final T element) {
        final T[] grown = Arrays.copyOf(array, array.length + 1);
        grown[array.length] = element;
        return grown;
    }

    private static ShmTransportChannel[] remove(final ShmTransportChannel[] array, final ShmTransportChannel element) {
        final ShmTransportChannel[] kept = new ShmTransportChannel[array.length];
        int count = 0;
        for (final ShmTransportChannel other : array) {
            if (other != element) {
                kept[count++] = other;
            }
        }
        return Arrays.copyOf(kept, count);
    }
}
