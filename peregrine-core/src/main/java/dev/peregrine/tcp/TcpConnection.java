package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.internal.jfr.ChannelClosedEvent;
import dev.peregrine.internal.jfr.ChannelOpenedEvent;
import dev.peregrine.internal.jfr.FrameRejectedEvent;
import dev.peregrine.reactor.SelectHandler;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One pooled connection slot: its socket and its life (connect, pause, graceful close, abort, reset), an
 * off-heap receive buffer that the codec decodes in place, and its sending side ({@link TcpFrameSender}, with
 * the bounded outbound buffer). The buffers are made once per slot and reused by every connection the slot
 * later holds; nothing here allocates per message.
 */
final class TcpConnection implements SelectHandler, FrameSink {
    static final int FREE = 0;
    static final int CONNECTING = 1;
    static final int CONNECTED = 2;
    static final int CLOSED = 3;
    /** Closed by the application or half-closed by the peer: writing what is buffered, then closing. */
    static final int CLOSING = 4;

    private final TcpTransport transport;
    private final ChannelHandler handler;
    private final int index;
    private final FrameCodec codec;
    private final MemorySegment inbound;
    private final ByteBuffer inboundView;
    private final int inboundCapacity;
    private final TcpFrameSender sender;
    private final TcpReadPoller poller;
    private final int readInterest;
    private int pollIndex = -1;
    private int generation;
    private long id;
    private int state = FREE;
    private SocketChannel channel;
    private SelectionKey key;
    private SocketAddress remoteAddress;
    private long connectTimerId = -1;
    private int readStart;
    private int readEnd;
    private boolean readingPaused;
    private boolean dispatching;
    private long deliveringDecodes;
    private boolean releaseAfterDispatch;
    private String failureBeforeSocket;
    private CloseReason closingReason;
    private String closingDetail;
    private long lingerTimerId = -1;
    // bytes read before a pause wait in the receive buffer since the resume: decoded before the next read
    private boolean remainderDue;
    private TcpChannelCounters counters;
    private long pausedAtNs;
    // messages are counted in a plain field and published to the counters once per read, not per message: a
    // release store to the counters file per frame cost a stream of small frames ~15%
    private int framesDecoded;

    TcpConnection(final TcpTransport transport, final int index, final FrameCodec codec, final Arena arena,
        final int receiveBufferSize, final int outboundBufferSize, final TcpReadPoller poller) {
        this.transport = transport;
        this.handler = transport.handler();
        this.index = index;
        this.codec = codec;
        final int frameSpace = codec.headerLength() + codec.maxFrameLength() + codec.trailerLength();
        this.inboundCapacity = Math.max(receiveBufferSize, frameSpace);
        this.inbound = arena.allocate(inboundCapacity, 64);
        this.inboundView = inbound.asByteBuffer();
        this.sender = new TcpFrameSender(this, transport, codec, arena, outboundBufferSize, frameSpace);
        this.poller = poller;
        // a polled connection never asks the selector for reads: the poller reads it every cycle
        this.readInterest = poller == null ? SelectionKey.OP_READ : 0;
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

    boolean isOpen() {
        return state == CONNECTING || state == CONNECTED || state == CLOSING;
    }

    /** The sending side: its buffer, the frames into it and the writes out of it. */
    TcpFrameSender sender() {
        return sender;
    }

    SocketChannel channel() {
        return channel;
    }

    TcpChannelCounters counters() {
        return counters;
    }

    /** Whether this connection's frames are being delivered now: what the handlers send waits for the read's end. */
    boolean dispatching() {
        return dispatching;
    }

    /**
     * Decode passes that delivered at least one frame since the slot was made: a read, or the frames a pause left
     * behind (for tests of write coalescing: the answers to each go out in one write).
     */
    long deliveringDecodes() {
        return deliveringDecodes;
    }


    SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** Takes the slot for a new connection and returns its id. */
    long open(final SocketChannel channel, final SocketAddress remoteAddress, final int state) {
        generation = TcpIds.nextGeneration(generation);
        id = TcpIds.connectionId(generation, index);
        this.channel = channel;
        this.remoteAddress = remoteAddress;
        this.state = state;
        codec.reset();
        readStart = 0;
        readEnd = 0;
        readingPaused = false;
        releaseAfterDispatch = false;
        sender.open();
        connectTimerId = -1;
        failureBeforeSocket = null;
        closingReason = null;
        closingDetail = null;
        lingerTimerId = -1;
        remainderDue = false;
        framesDecoded = 0;
        final TcpCounters totals = transport.counters();
        counters = new TcpChannelCounters(transport.reactor().counters(), totals, id, remoteAddress);
        totals.open.increment();
        return id;
    }

    /** Remembers why a connect failed before it had a socket; the event follows on a later cycle. */
    void failBeforeSocket(final String reason) {
        failureBeforeSocket = reason;
    }

    boolean hasFailedBeforeSocket() {
        return failureBeforeSocket != null;
    }

    void deliverFailureBeforeSocket() {
        close(CloseReason.ERROR, failureBeforeSocket);
    }

    /** The interest of a connected socket with nothing waiting to be written. */
    int readInterest() {
        return readInterest;
    }

    /** Takes the connection's key; a connection already connected starts being read. */
    void registered(final SelectionKey key) {
        this.key = key;
        if (state == CONNECTED) {
            startReading();
        }
    }

    private void startReading() {
        if (poller != null) {
            poller.add(this);
        }
    }

    boolean readingPaused() {
        return readingPaused;
    }

    /**
     * Stops reading: the socket is no longer read (no read interest, out of the poller), and a frame being
     * delivered is the last until {@link #resumeReading()}; what was read past it waits in the receive buffer.
     */
    void pauseReading() {
        if (!readingPaused) {
            readingPaused = true;
            pausedAtNs = transport.reactor().nowNs();
            if (poller != null) {
                poller.remove(this);
            }
            updateInterest();
        }
    }

    /**
     * Starts reading again.
     *
     * @return true if bytes read before the pause wait in the receive buffer and are not being decoded now:
     *     the caller has them decoded on a later cycle ({@link #decodeRemainder()})
     */
    boolean resumeReading() {
        if (!readingPaused) {
            return false;
        }
        readingPaused = false;
        counters.pausedReading(transport.reactor().nowNs() - pausedAtNs);
        startReading();
        updateInterest();
        remainderDue = !dispatching && readEnd > readStart;
        return remainderDue;
    }

    /**
     * Decodes frames left in the receive buffer by a pause, if reading is on again and they were not decoded
     * yet: the next read decodes them first ({@link #onReadable()}), so that a read in the same cycle, the
     * peer's end of stream included, never overtakes them.
     */
    void decodeRemainder() {
        if (remainderDue && state == CONNECTED && !readingPaused && !dispatching) {
            remainderDue = false;
            decode();
        }
    }

    int pollIndex() {
        return pollIndex;
    }

    void pollIndex(final int pollIndex) {
        this.pollIndex = pollIndex;
    }

    /**
     * The {@link TcpReadPoller}'s turn, every cycle: a write attempt if bytes wait for the socket, then one
     * non-blocking read. The write does not wait for the selector to report OP_WRITE: a reactor that polls
     * reads may consult its selector only every few cycles ({@code ReactorOptions.selectInterval}), and a
     * sender held back by a full socket would idle until then while the kernel already has room.
     *
     * @return 1 if bytes were written, or arrived (or the end of the stream), else 0
     */
    int pollRead() {
        if (state != CONNECTED || readingPaused) {
            return 0;
        }
        try {
            int work = 0;
            if (sender.writePending()) {
                work = sender.onWritable() > 0 ? 1 : 0;
                if (state != CONNECTED) {
                    return 1;
                }
                if (readingPaused) {
                    return work; // paused from onSent: nothing more is read
                }
            }
            return work | onReadable();
        } catch (final Throwable ex) {
            transport.handlerFailed(this, ex);
            return 1;
        }
    }

    void connectTimerId(final long timerId) {
        this.connectTimerId = timerId;
    }

    @Override
    public void onSelected(final SelectionKey selected, final long nowNs) {
        if (selected != key) {
            return; // a key of an earlier connection in this slot, selected in the same cycle it closed
        }
        try {
            if (state == CONNECTING) {
                finishConnect();
                return;
            }
            final int ready = selected.readyOps();
            if (state == CONNECTED && (ready & SelectionKey.OP_READ) != 0 && !readingPaused) { // paused earlier this cycle
                onReadable();
            }
            if ((state == CONNECTED || state == CLOSING) && (ready & SelectionKey.OP_WRITE) != 0) {
                sender.onWritable();
            }
        } catch (final Throwable ex) {
            transport.handlerFailed(this, ex);
        }
    }

    private void finishConnect() {
        final boolean connected;
        try {
            connected = channel.finishConnect();
        } catch (final IOException | RuntimeException ex) {
            close(CloseReason.ERROR, "connect to " + remoteAddress + " failed: " + ex.getMessage());
            return;
        }
        if (connected) {
            transport.timers().cancel(connectTimerId);
            connectTimerId = -1;
            state = CONNECTED;
            key.interestOps(readInterest);
            startReading();
            ChannelOpenedEvent.emit("tcp", id, 0, remoteAddress);
            handler.onConnected(id, remoteAddress);
        }
    }

    void connectTimedOut(final long timeoutNs) {
        connectTimerId = -1;
        close(CloseReason.ERROR, "connect to " + remoteAddress + " timed out after " + (timeoutNs / 1_000_000) + " ms");
    }

    /**
     * Reads what the socket has and delivers every whole frame; returns 1 if anything happened, else 0. Frames a
     * pause left in the receive buffer are delivered first: the selector (and the read poller) may come to this
     * channel in the cycle after its resume before the deferred decode does, and what the read finds, an end of
     * stream or an error that closes the channel included, must come after them.
     */
    private int onReadable() {
        if (remainderDue) {
            decodeRemainder();
            if (state != CONNECTED || readingPaused) {
                return 1;
            }
        }
        final ByteBuffer view = inboundView;
        view.limit(inboundCapacity).position(readEnd);
        final int read;
        try {
            read = channel.read(view);
        } catch (final IOException ex) {
            closeOnFailure("read", ex);
            return 1;
        }
        if (read < 0) {
            // a half-close: the peer may still read, so the replies to what it sent go out before the close
            final int partial = readEnd - readStart;
            closeGracefully(CloseReason.BY_PEER, partial == 0 ? "end of stream"
                : "end of stream inside a frame (" + partial + " bytes of it received)");
            return 1;
        }
        if (read == 0) {
            return 0;
        }
        readEnd += read;
        counters.bytesIn(read);
        decode();
        return 1;
    }

    private void decode() {
        final int consumed;
        dispatching = true;
        try {
            consumed = codec.decode(inbound, readStart, readEnd - readStart, this);
        } finally {
            dispatching = false;
            if (framesDecoded > 0) {
                deliveringDecodes++;
            }
            counters.messagesIn(framesDecoded); // also when a handler threw: the frames it got were delivered
            framesDecoded = 0;
            if (releaseAfterDispatch && state != CONNECTED) {
                // also when a handler closed this channel and then threw: the slot must come back
                releaseAfterDispatch = false;
                transport.release(this);
            }
        }
        sender.flushAfterDispatch();
        if (state != CONNECTED) {
            return;
        }
        if (consumed == FrameCodec.MALFORMED) {
            transport.counters().rejectedMalformed.increment();
            reject(codec.failure());
            return;
        }
        readStart += consumed;
        if (readStart == readEnd) {
            readStart = 0;
            readEnd = 0;
        } else if (readStart > 0) {
            // keep the partial frame at the front so the rest of it fits behind it
            MemorySegment.copy(inbound, readStart, inbound, 0, readEnd - readStart);
            readEnd -= readStart;
            readStart = 0;
        } else if (readEnd == inboundCapacity) {
            transport.counters().rejectedReceiveBufferFull.increment();
            reject("receive buffer of " + inboundCapacity + " bytes is full without a whole frame");
        }
    }

    private void reject(final String reason) {
        FrameRejectedEvent.emit("tcp", id, remoteAddress, null, reason);
        close(CloseReason.ERROR, reason);
    }

    @Override
    public boolean onFrame(final MemorySegment buffer, final long offset, final int length) {
        framesDecoded++;
        handler.onMessage(id, buffer, offset, length);
        return state == CONNECTED && !readingPaused;
    }

    void updateInterest() {
        key.interestOps((readingPaused || state != CONNECTED ? 0 : readInterest) | sender.writeInterest());
    }

    /**
     * Writes what is buffered, then closes: at once if the socket takes it all now, else once OP_WRITE has
     * written the rest, or when the linger timeout expires (the rest discarded, and {@code onClosed} says how
     * many bytes). Nothing is read meanwhile, and no event but the final {@code onClosed} is delivered.
     */
    void closeGracefully(final CloseReason reason, final String detail) {
        if (state != CONNECTED) {
            close(reason, detail); // connecting: nothing to write; closing already: abort() ends it at once
            return;
        }
        transport.claim().abandon(this);
        sender.closing();
        if (!sender.writePending() && sender.pendingBytes() > 0 && !sender.flush()) {
            return; // the write failed and closed the channel
        }
        final long lingerNs = transport.options().lingerTimeoutNs();
        if (sender.pendingBytes() == 0 || lingerNs == 0) {
            close(reason, detail);
            return;
        }
        state = CLOSING;
        closingReason = reason;
        closingDetail = detail;
        if (poller != null) {
            poller.remove(this);
        }
        sender.writePending(true);
        lingerTimerId = transport.timers().scheduleLinger(id, lingerNs);
    }

    /** A closing connection's buffer is written: the close that was waiting for it. */
    void closeWhenWritten() {
        close(closingReason, closingDetail);
    }

    /** The linger timer of a closing connection: what is still buffered is discarded. */
    void lingerExpired(final long timerId) {
        if (state == CLOSING && timerId == lingerTimerId) {
            lingerTimerId = -1;
            close(closingReason, closingDetail + "; the linger timeout of "
                + (transport.options().lingerTimeoutNs() / 1_000_000) + " ms expired");
        }
    }

    /** Closes at once, without writing what is buffered: it is discarded, and {@code onClosed} says how much. */
    void abort(final String detail) {
        if (state == CONNECTED || state == CLOSING) {
            resetOnClose();
            sender.stopWriting(); // nothing more is written
        }
        close(CloseReason.LOCAL, detail);
    }

    /**
     * Makes the socket's close a reset rather than an orderly end (SO_LINGER 0), so that a peer whose stream is
     * cut short does not take it for a whole one: after a FIN it would read the frames it got and a clean end
     * of stream, and could not tell that more were sent. The JDK closes a registered socket when the selector
     * drops its cancelled key, so the reset goes out on the reactor's next select (with SO_LINGER 0 it skips
     * the FIN it would otherwise send at once).
     */
    private void resetOnClose() {
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (final IOException | RuntimeException ex) {
            // closing anyway
        }
    }

    void closeOnFailure(final String operation, final IOException ex) {
        final String message = String.valueOf(ex.getMessage());
        final boolean reset = message.contains("reset") || message.contains("Broken pipe");
        close(reset ? CloseReason.RESET : CloseReason.ERROR, operation + " failed: " + message);
    }

    /**
     * Closes the socket now, discards pending bytes (after one last write attempt unless bytes already wait
     * for the socket) and tells the handler: {@code onConnectFailed} if the connection never completed for a
     * reason other than a local close, {@code onClosed} otherwise, its detail ending with how many bytes were
     * discarded, if any. When bytes are discarded the peer sees a reset, not an orderly end of stream.
     */
    void close(final CloseReason reason, final String detail) {
        if (!isOpen()) {
            return;
        }
        final boolean wasConnecting = state == CONNECTING;
        final int pendingAtClose = sender.close(state == CONNECTED); // after a last write, if connected
        final int discarded = wasConnecting ? 0 : pendingAtClose;
        if (readingPaused) {
            counters.pausedReading(transport.reactor().nowNs() - pausedAtNs);
        }
        final TcpCounters totals = transport.counters();
        totals.closed(reason).increment();
        totals.open.add(-1);
        counters.close();
        state = CLOSED;
        final boolean connectFailed = wasConnecting && reason != CloseReason.LOCAL;
        final String closedDetail = connectFailed || discarded == 0 ? detail : detail + "; " + discarded + " unsent bytes discarded";
        if (!connectFailed) {
            ChannelClosedEvent.emit("tcp", id, remoteAddress, reason, closedDetail, discarded);
        }
        transport.timers().cancel(connectTimerId);
        connectTimerId = -1;
        transport.timers().cancel(lingerTimerId);
        lingerTimerId = -1;
        closingReason = null;
        closingDetail = null;
        if (poller != null) {
            poller.remove(this);
        }
        if (key != null) {
            key.cancel();
            key = null;
        }
        if (channel != null) {
            if (discarded > 0) {
                resetOnClose(); // the peer would otherwise read whole frames, then a clean end, and never know
            }
            try {
                channel.close();
            } catch (final IOException ex) {
                transport.reportError(ex);
            }
            channel = null;
        }
        sender.closed();
        readStart = 0;
        readEnd = 0;
        transport.claim().abandon(this);
        final long closedId = id;
        if (dispatching) {
            releaseAfterDispatch = true; // the receive buffer is still being decoded; free the slot after
        } else {
            transport.release(this);
        }
        try {
            if (connectFailed) {
                handler.onConnectFailed(closedId, detail);
            } else {
                handler.onClosed(closedId, reason, closedDetail);
            }
        } catch (final Throwable ex) {
            // the channel is closed already; the failure must not reach whoever closed it (say, close(id))
            transport.reportError(new IllegalStateException("channel handler failed on closed channel " + closedId
                + ", the reactor goes on", ex));
        }
    }

    /** Gives the channel's counter slots back (its reactor was released); a later close finds them closed. */
    void releaseCounters() {
        if (counters != null) {
            counters.close();
        }
    }

    void free() {
        state = FREE;
        remoteAddress = null;
    }
}
