package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.handoff.ReadPausable;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * TCP servers and clients on a {@link Reactor}, framed as {@link TcpOptions#framing(Framing)} says.
 *
 * <p>Commands ({@link #listen}, {@link #connect}, {@link #send}, {@link #tryClaim}, {@link #close(long)})
 * return at once; outcomes arrive as {@link ChannelHandler} events on the reactor thread. Events that
 * complete a command (listening, listen failed, connect failed before the socket existed) are delivered
 * on a later duty cycle, never from inside the command, so the caller always knows the id first.
 *
 * <p>Sending: {@link #send} assembles the frame (header, payload, trailer) in the connection's off-heap
 * outbound buffer, one copy of the payload; the zero-copy path is {@link #tryClaim(long, int)}/{@link #commit},
 * where the payload is written straight into the outbound buffer ({@link #tryClaim(long, int, int)} claims a
 * run of frames of one length at once, for a sender with many messages at hand). Either way the frame is only
 * appended: sends are batched, and what a duty cycle asks a channel to send reaches the socket in as few
 * writes as possible. When the bytes are written:
 * <ul>
 *   <li>sent on a channel from inside its own {@code onMessage}: once the last frame of that read has been
 *       handled, one write for all the answers to the read;</li>
 *   <li>sent from anywhere else (another channel's callback, a timer, a command handed to the reactor, or
 *       the application's own code between two {@link Reactor#doWork()} calls when it drives the reactor
 *       itself): at the end of the current duty cycle, or of the next one when sent between cycles, one
 *       write per channel for all of it (the transport polls a {@link dev.peregrine.reactor.Pollable} it
 *       adds to the reactor on the first send, or when made if reads are polled; a send from a pollable
 *       that the reactor polls after that one is written at the end of the next cycle, so such a pollable
 *       should count a send as work); what was sent between two cycles, or by a command handed to the
 *       reactor, is written at the start of the next cycle instead, before the selector, the timers and the
 *       reads, so that a request does not wait behind a read that cannot yet hold its answer;</li>
 *   <li>at once, whatever the caller, when half the outbound buffer is taken (so a sender that does not
 *       run duty cycles still keeps the pipe full), when the channel is closed, or when the application
 *       calls {@link #flush(long)}.</li>
 * </ul>
 * A lone message therefore does not wait for company: it is written in the cycle it was sent in (or the
 * next one, sent between cycles). Whatever the socket does not take waits, in order, in the connection's
 * bounded outbound buffer and is written when the socket is writable ({@link ChannelHandler#onSent}
 * reports progress). A frame that does not fit is refused whole with {@link SendResult#BACK_PRESSURED}.
 *
 * <p>Closing: {@link #close(long)} writes what is buffered for the channel and then closes it, within
 * {@link TcpOptions#lingerTimeout}; {@link #abort(long)} discards it at once. When the peer ends its stream
 * (a half-close), the frames it sent are delivered, the replies already sent are written, and then the
 * channel closes with {@link CloseReason#BY_PEER}. A closing channel is not read and takes no sends;
 * {@link ChannelHandler#onClosed} is its next and last event, its detail ending with the count of bytes
 * discarded, if any. Whenever a close discards unsent bytes (the linger timeout, {@link #abort(long)},
 * {@link #close()}, a handler failure, a malformed frame) the connection is reset rather than ended in order,
 * so that the peer does not take the cut stream for a whole one.
 *
 * <p>Receiving: each connection decodes frames in place in an off-heap receive buffer and delivers
 * views with {@link ChannelHandler#onMessage}; a frame over the maximum or a malformed length field
 * closes that connection with {@link CloseReason#ERROR} and the reason, and nothing else.
 *
 * <p>With {@link TcpOptions#readPolling(boolean)} connections are read by a non-blocking read on every
 * duty cycle instead of on selector readiness (lower latency for a few connections, a syscall per
 * connection per cycle); the transport then adds a {@link dev.peregrine.reactor.Pollable} to the reactor,
 * so it must be made on the reactor's thread or before the reactor starts.
 *
 * <p>Ids encode a slot and its generation: a stale id gets {@link SendResult#NOT_CONNECTED}, never
 * another connection. Not thread-safe: use it on the reactor's thread only.
 */
public final class TcpTransport implements Transport, ReadPausable {
    /** The detail of a server's {@code onClosed} when the application closed it. */
    static final String SERVER_CLOSED = "server closed by the application";

    private final Reactor reactor;
    private final TcpOptions options;
    private final ChannelHandler handler;
    private final Arena arena = Arena.ofShared();
    private final TcpReadPoller readPoller;
    private final TcpConnectionPool connections;
    private final TcpWriteFlusher flusher;
    private final Pollable flusherAtCycleStart;
    private final TcpCounters counters;
    private final TcpTimers timers;
    private final TcpServers servers;
    private final TcpConnectionOpener opener;
    private final Runnable releaseCounters = this::releaseCounters;
    private boolean flusherAdded;
    private final TcpClaim claim;
    private boolean closed;

    /**
     * Creates a transport; it does nothing until told to listen or connect.
     *
     * @param reactor the reactor whose thread runs every command and event
     * @param options settings shared by all connections
     * @param handler receives every event
     */
    public TcpTransport(final Reactor reactor, final TcpOptions options, final ChannelHandler handler) {
        if (reactor == null || options == null || handler == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " options=" + options + " handler=" + handler);
        }
        this.reactor = reactor;
        this.options = options;
        this.handler = handler;
        this.readPoller = options.readPolling() ? new TcpReadPoller() : null;
        this.connections = new TcpConnectionPool(this, options, arena);
        this.flusher = new TcpWriteFlusher(this, connections);
        this.flusherAtCycleStart = flusher::doWorkAtCycleStart;
        this.claim = new TcpClaim(this, connections);
        options.framing().newCodec(options.maxFrameLength()); // fail now, not on the first connection
        this.counters = new TcpCounters(reactor.counters());
        this.timers = new TcpTimers(this, reactor, options);
        this.servers = new TcpServers(this, reactor, handler);
        this.opener = new TcpConnectionOpener(this, reactor, options, handler, connections, timers);
        reactor.addReleaseHook(releaseCounters); // a reactor closed first still gets the slots back
        if (readPoller != null) {
            reactor.add(readPoller);
            // behind the read poller, so that answers to what it read are written in the same cycle (a
            // pollable added while the reactor walks its pollables is first polled on the next cycle)
            addFlusher();
        }
    }

    @Override
    public long listen(final SocketAddress localAddress) {
        checkOpen();
        final long id = servers.newServer().open(localAddress, options);
        timers.deferEvent(id);
        return id;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A socket made ahead by {@link #prepareConnect()} is used if there is one: the attempt then skips opening,
     * configuring and registering it.
     */
    @Override
    public long connect(final SocketAddress remoteAddress) {
        checkOpen();
        return opener.connect(remoteAddress);
    }

    /**
     * Opens, configures and registers with the reactor (with no interest), now, the socket the next
     * {@link #connect} will use, so that a reconnect does not pay for it: call it off the critical path (after a
     * connection is up and working). At most one is kept; it
     * holds a file descriptor until used or {@link #close()}. Allocates (a socket); never per message.
     *
     * @return true if a spare socket is ready (made now, or already there); false if opening one failed (the next
     *     connect opens its own, and reports a failure as usual)
     */
    public boolean prepareConnect() {
        checkOpen();
        return opener.prepareSpare();
    }

    /**
     * Whether a socket made by {@link #prepareConnect()} waits for the next connect.
     *
     * @return true if so
     */
    public boolean hasSpareSocket() {
        return opener.hasSpare();
    }

    /**
     * Connects that used a socket made ahead by {@link #prepareConnect()}, since the transport was made.
     *
     * @return the count
     */
    public long connectsOnSpareSocket() {
        return opener.connectsOnSpare();
    }

    /**
     * {@inheritDoc}
     *
     * <p>The frame is appended to the channel's outbound buffer and written as the class comment says: with
     * the other answers to the read when sent from the channel's own {@code onMessage}, else at the end of
     * the duty cycle, or at once when half the buffer is taken.
     *
     * @return bytes waiting in the channel's outbound buffer after this send (including this frame unless
     *     it was written at once), or a negative {@link SendResult} code
     * @throws IllegalArgumentException if the length is negative, or the framing is fixed and the length
     *     differs from it
     * @throws IllegalStateException if a claim is open ({@link #tryClaim})
     */
    @Override
    public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final TcpConnection connection = connections.connected(channelId);
        if (connection == null) {
            return connections.notConnected(channelId);
        }
        final long refused = claim.refusal(connection, length);
        if (refused < 0) {
            return refused;
        }
        return connection.sender().send(buffer, offset, length);
    }

    /**
     * Claims room for one frame of exactly {@code length} payload bytes in the channel's outbound buffer,
     * for the payload to be written in place: write it into {@link #claimBuffer()} at the returned
     * offset, then {@link #commit()} (or {@link #abortClaim()}). The framing header and trailer are the
     * transport's business. Only one claim may be open at a time, and it must not outlive the callback or
     * duty cycle that opened it (for code between cycles: commit or abort before the next
     * {@link Reactor#doWork()}): a claim still open at the end of a duty cycle is aborted, nothing of it is
     * sent, the reactor's {@link dev.peregrine.reactor.ErrorHandler} is told, and the late {@link #commit()}
     * throws. Bytes buffered before the claim are written meanwhile without disturbing it.
     *
     * @param channelId the channel
     * @param length the payload length
     * @return the offset in {@link #claimBuffer()} where the payload goes, or a negative
     *     {@link SendResult} code (nothing claimed)
     */
    public long tryClaim(final long channelId, final int length) {
        return claim.tryClaim(channelId, length);
    }

    /**
     * Claims room for a run of {@code count} frames of {@code length} payload bytes each, one after another in
     * the channel's outbound buffer, for payloads to be written in place: payload {@code i} (from 0) goes at the
     * returned offset plus {@code i *} {@link #claimStride()} of {@link #claimBuffer()}. The transport writes
     * every frame's header and trailer now; one {@link #commit()} appends the whole run, in order, and
     * {@link #abortClaim()} gives it all up. It is the {@link #tryClaim(long, int)} of a sender with many messages of
     * one length at once (a market-data burst, a stream): the bookkeeping of a claim is paid once per run, not
     * once per frame. Everything else is as for a claim of one frame: one claim open at a time, within the
     * callback or duty cycle that opened it.
     *
     * @param channelId the channel
     * @param length the payload length of every frame of the run
     * @param count how many frames, at least 1
     * @return the offset in {@link #claimBuffer()} where the first payload goes, or a negative
     *     {@link SendResult} code (nothing claimed): {@link SendResult#MESSAGE_TOO_LARGE} also when the run
     *     is larger than the whole outbound buffer ({@link TcpOptions#outboundBufferSize(int)}), so could never
     *     be claimed, and {@link SendResult#BACK_PRESSURED} when it does not fit now
     * @throws IllegalArgumentException if {@code count} is less than 1, or the length is negative or not one
     *     the framing can carry
     */
    public long tryClaim(final long channelId, final int length, final int count) {
        return claim.tryClaim(channelId, length, count);
    }

    /**
     * Claims {@code bytes} of the channel's outbound buffer for {@code frames} whole frames that the caller writes
     * itself, each header and trailer included, in this transport's framing: write them into {@link #claimBuffer()}
     * from the returned offset, then {@link #commit()} (or {@link #abortClaim()}). It is for a protocol whose packets
     * are already framed as the transport frames them (SoupBinTCP's packets under {@code length:2be}), serving a run
     * of messages of different lengths with one claim. The transport does not read the frames back: a wrong header
     * breaks the stream for the peer. Everything else is as for {@link #tryClaim(long, int)}.
     *
     * @param channelId the channel
     * @param bytes the framed length of the whole run, at least 1
     * @param frames how many frames the run holds (for the channel's counters), at least 1
     * @return the offset in {@link #claimBuffer()} where the first frame's header goes, or a negative
     *     {@link SendResult} code (nothing claimed): {@link SendResult#MESSAGE_TOO_LARGE} when the run is larger than
     *     the whole outbound buffer, {@link SendResult#BACK_PRESSURED} when it does not fit now
     * @throws IllegalArgumentException if {@code bytes} or {@code frames} is less than 1
     */
    public long tryClaimFramed(final long channelId, final int bytes, final int frames) {
        return claim.tryClaimFramed(channelId, bytes, frames);
    }

    /**
     * The distance from one payload of the open claim to the next: the framed length of one frame (header,
     * payload and trailer). Only a run ({@link #tryClaim(long, int, int)}) has a next payload, but the answer
     * holds for a claim of one frame too.
     *
     * @return bytes
     * @throws IllegalStateException if no claim is open
     */
    public int claimStride() {
        return claim.stride();
    }

    /**
     * The memory of the open claim: the outbound buffer of the claimed channel.
     *
     * @return the buffer to write the payload into
     * @throws IllegalStateException if no claim is open
     */
    public MemorySegment claimBuffer() {
        return claim.buffer();
    }

    /**
     * Sends the claimed frame. Like {@link #send} it is only appended: it is written with the other answers
     * to the read when committed from the channel's own {@code onMessage}, else at the end of the duty cycle,
     * or at once when half the buffer is taken (see the class comment). The bytes are not copied.
     *
     * @return bytes left in the channel's outbound buffer, or {@link SendResult#CLOSED} if the channel
     *     closed since the claim (or failed on this write)
     * @throws IllegalStateException if no claim is open, also when the claim was aborted because it was
     *     left open past the end of its duty cycle (the message says so)
     */
    public long commit() {
        return claim.commit();
    }

    /**
     * Gives up the open claim (of one frame or a run); nothing of it is sent. Does nothing if no claim is open.
     * Not to be mistaken for {@link #abort(long)}, which resets a connection.
     */
    public void abortClaim() {
        claim.abort();
    }

    /**
     * {@inheritDoc}
     *
     * <p>A connected channel is closed gracefully: what is buffered for it is written first. If the socket
     * takes it all at once, the channel closes inside this call; otherwise it stops reading, takes no more
     * sends ({@link SendResult#CLOSED}) and closes once the rest is written, or when
     * {@link TcpOptions#lingerTimeout} expires, discarding what is left and resetting the connection. Either
     * way the next and last event for the channel is {@link ChannelHandler#onClosed} with
     * {@link CloseReason#LOCAL}, its detail ending with the count of bytes discarded, if any.
     * {@link #abort(long)} discards at once. Closing a channel that is already closing does nothing.
     */
    @Override
    public void close(final long id) {
        if (TcpIds.isServer(id)) {
            closeServer(id);
            return;
        }
        final TcpConnection connection = connection(id);
        if (connection != null && connection.state() != TcpConnection.CLOSING && connection.isOpen()) {
            connection.closeGracefully(CloseReason.LOCAL, "closed by the application");
        }
    }

    /**
     * Closes a channel at once, discarding what is buffered for it, also when it is closing gracefully
     * ({@link #close(long)}); the peer sees a reset. {@link ChannelHandler#onClosed} follows inside this call
     * with {@link CloseReason#LOCAL}, its detail ending with the count of bytes discarded, if any. A server
     * id is closed as by {@link #close(long)}; unknown ids are ignored.
     *
     * @param id a channel or server id
     */
    @Override
    public void abort(final long id) {
        if (TcpIds.isServer(id)) {
            closeServer(id);
            return;
        }
        final TcpConnection connection = connection(id);
        if (connection != null && connection.isOpen()) {
            connection.abort("aborted by the application");
        }
    }

    private void closeServer(final long id) {
        servers.close(id, CloseReason.LOCAL, SERVER_CLOSED);
    }

    /**
     * Closes every server and connection (each reported with {@link CloseReason#LOCAL}; a connection with
     * unsent bytes is reset) and frees the buffers. Call on the reactor thread, before the reactor closes.
     * From the {@link ChannelHandler#onClosed} events it delivers, {@link #listen} and {@link #connect} throw
     * {@link IllegalStateException} and this method returns at once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        // closed before the loops, whose onClosed events may call back in: a connect or listen would otherwise
        // take a slot the loops have passed and outlive the arena freed below, and a nested close() would free
        // the arena twice. The loops' close(id) paths do not check the flag
        closed = true;
        opener.closeSpare();
        servers.closeAll();
        for (int i = 0; i < connections.slotCount(); i++) {
            final TcpConnection connection = connections.slot(i);
            if (connection.isOpen()) {
                connection.close(CloseReason.LOCAL, "transport closed");
            }
        }
        if (readPoller != null) {
            reactor.remove(readPoller);
        }
        if (flusherAdded) {
            reactor.remove(flusher);
            reactor.remove(flusherAtCycleStart);
        }
        reactor.removeReleaseHook(releaseCounters);
        counters.close();
        arena.close();
    }

    /** The reactor is released before this transport was closed: its counter slots and its channels' go back. */
    private void releaseCounters() {
        counters.close();
        for (int i = 0; i < connections.slotCount(); i++) {
            connections.slot(i).releaseCounters();
        }
    }

    /**
     * Writes what a channel has buffered now, without waiting for the end of the duty cycle: for an
     * application that wants the bytes on the wire before it goes on. One write; what the socket does not
     * take is written when it is writable, as usual. Does nothing when nothing is buffered or bytes already
     * wait for the socket to become writable.
     *
     * @param channelId the channel
     * @return bytes still waiting in the channel's outbound buffer, or a negative {@link SendResult} code
     *     ({@link SendResult#NOT_CONNECTED}, {@link SendResult#CLOSED}, also when this write failed)
     */
    public long flush(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        if (connection == null) {
            return connections.notConnected(channelId);
        }
        return connection.sender().flushNow();
    }

    /**
     * Writes a channel before the others in this duty cycle's end-of-cycle write, without writing it now: for a
     * channel whose latency matters more than the others' (a caught-up subscriber among replaying ones), with
     * sends still batched into one write per cycle. Channels moved so keep the order they were moved in, ahead of
     * every channel that was not. Does nothing when the channel has nothing waiting for that write (nothing sent
     * since its last write, bytes already waiting for the socket to become writable, or written at once).
     * Allocates nothing, and searches nothing.
     *
     * @param channelId the channel
     * @return 0, or a negative {@link SendResult} code ({@link SendResult#NOT_CONNECTED}) for an unknown id
     */
    public long writeFirst(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        if (connection == null) {
            return connections.notConnected(channelId);
        }
        if (connection.sender().dirty()) {
            flusher.writeFirst(connection);
        }
        return 0;
    }

    /**
     * Whether a channel is connected and can send.
     *
     * @param channelId the channel
     * @return true if the id names a current, connected channel
     */
    public boolean isConnected(final long channelId) {
        return connections.connected(channelId) != null;
    }

    /**
     * Bytes waiting in a channel's outbound buffer.
     *
     * @param channelId the channel
     * @return the count, or a negative {@link SendResult} code for an unknown id
     */
    public long pendingBytes(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        return connection == null ? SendResult.NOT_CONNECTED : connection.sender().pendingBytes();
    }

    /**
     * Bytes of a channel handed to its socket since it connected. With {@link #pendingBytes} added, it is the
     * position in the channel's outbound stream just past the last frame sent: once {@code bytesWritten} reaches
     * that position, the frame is in the kernel. Allocates nothing.
     *
     * @param channelId the channel
     * @return the count, or a negative {@link SendResult} code for an unknown id
     */
    public long bytesWritten(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        return connection == null ? SendResult.NOT_CONNECTED : connection.sender().bytesWritten();
    }

    /**
     * Stops reading a channel, to pass back-pressure on to its peer: no {@link ChannelHandler#onMessage} for
     * it follows until {@link #resumeReading}, not even for frames already read (when called from
     * {@code onMessage}, the frame being delivered is the last). What the peer sends waits in the kernel's
     * socket buffers, and once they are full TCP's flow control stops the peer: its writes back up, where
     * they are bounded by its own buffers. Sending on the channel goes on. A paused channel notices that its
     * peer closed only once resumed. Pausing a paused channel does nothing.
     *
     * <p>The usual use: an application that answers every message pauses the channel when
     * {@link #send} returns more pending bytes than it wants to hold, and resumes it when
     * {@link ChannelHandler#onSent} reports the outbound buffer drained below a lower mark.
     *
     * @param channelId the channel
     * @return 0, or a negative {@link SendResult} code ({@link SendResult#NOT_CONNECTED},
     *     {@link SendResult#CLOSED}) if the id names no connected channel
     */
    public long pauseReading(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        if (connection == null) {
            return connections.notConnected(channelId);
        }
        connection.pauseReading();
        return 0;
    }

    /**
     * Reads a paused channel again. Frames read before the pause are delivered on a later duty cycle, never
     * from inside this call, and before anything read after it. Resuming a channel that is not paused does
     * nothing.
     *
     * @param channelId the channel
     * @return 0, or a negative {@link SendResult} code if the id names no connected channel
     */
    public long resumeReading(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        if (connection == null) {
            return connections.notConnected(channelId);
        }
        if (connection.resumeReading()) {
            timers.deferEvent(channelId);
        }
        return 0;
    }

    /**
     * Whether a channel's reading is paused ({@link #pauseReading}).
     *
     * @param channelId the channel
     * @return true if it names a connected channel whose reading is paused
     */
    public boolean isReadingPaused(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        return connection != null && connection.readingPaused();
    }

    /**
     * The address a server is bound to (with the real port when port 0 was asked).
     *
     * @param serverId a server id
     * @return the address, or null if the id names no listening server
     */
    public SocketAddress localAddress(final long serverId) {
        return servers.localAddress(serverId);
    }

    /**
     * The options this transport was made with.
     *
     * @return the options
     */
    public TcpOptions options() {
        return options;
    }

    /** Writes to the socket by the slot holding this channel so far, or -1 if it names none (for tests). */
    long socketWrites(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        return connection == null ? -1 : connection.sender().socketWrites();
    }

    /** Decode passes that delivered a frame, by the slot holding this channel so far, or -1 if it names none (for tests). */
    long deliveringDecodes(final long channelId) {
        final TcpConnection connection = connections.connected(channelId);
        return connection == null ? -1 : connection.deliveringDecodes();
    }

    /** How accepted channels join the reactor; replaced by tests that need a registration to fail. */
    @FunctionalInterface
    interface Registrar {
        SelectionKey register(SocketChannel channel, int interestOps, TcpConnection connection);
    }

    void registrar(final Registrar registrar) {
        opener.registrar(registrar);
    }

    /** The poller that reads connections each cycle, or null when reads wait for the selector. */
    TcpReadPoller readPoller() {
        return readPoller;
    }

    ChannelHandler handler() {
        return handler;
    }

    TcpCounters counters() {
        return counters;
    }

    Reactor reactor() {
        return reactor;
    }

    void accepted(final TcpServer server, final SocketChannel channel) {
        opener.accepted(server, channel, closed);
    }

    TcpTimers timers() {
        return timers;
    }

    TcpServers servers() {
        return servers;
    }

    void handlerFailed(final TcpConnection connection, final Throwable ex) {
        reportError(new IllegalStateException("channel handler failed"
            + (connection == null ? "" : " on channel " + connection.id() + "; the channel is closed") + ", the reactor goes on", ex));
        if (connection != null && connection.isOpen()) {
            try {
                connection.close(CloseReason.ERROR, "handler failed: " + ex);
            } catch (final Throwable again) {
                reportError(again);
            }
        }
    }

    void reportError(final Throwable error) {
        reactor.errorHandler().onError(error);
    }

    /** The transport's one claim: the flusher ends it when left open, a closing connection abandons it. */
    TcpClaim claim() {
        return claim;
    }

    /** Adds the flusher unless it is on the reactor already: a claim's first, which it ends if left open. */
    void addFlusherOnce() {
        if (!flusherAdded) {
            addFlusher();
        }
    }

    /** Lists a connection for the end-of-cycle write; the flusher joins the reactor on the first one. */
    void markDirty(final TcpConnection connection) {
        if (!flusherAdded) {
            // here, on the reactor thread, not in the constructor, which may run on another thread (unless
            // reads are polled); sends before the pollables run, the usual case, are written this cycle
            addFlusher();
        }
        flusher.add(connection);
    }

    private void addFlusher() {
        flusherAdded = true;
        reactor.add(flusher);
        reactor.addAtCycleStart(flusherAtCycleStart);
    }

    void release(final TcpConnection connection) {
        connections.release(connection);
    }

    TcpConnection connection(final long id) {
        return connections.find(id);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("transport is closed");
        }
    }
}
