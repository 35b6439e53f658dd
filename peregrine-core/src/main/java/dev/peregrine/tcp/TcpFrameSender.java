package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.SendResult;
import dev.peregrine.internal.jfr.BackPressureEvent;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SelectionKey;

/**
 * The sending side of one pooled connection slot ({@link TcpConnection}): frames copied or claimed into its
 * bounded outbound buffer, the decision when they are written (after the read's last frame, at the end of the
 * duty cycle, or at once), the writes themselves, OP_WRITE while bytes wait for the socket, and back-pressure
 * with the {@code onSent} a refused send is owed. Made once per slot with its buffer and reused by every
 * connection the slot later holds; nothing here allocates per message. Not thread-safe: the reactor's thread.
 */
final class TcpFrameSender {
    private final TcpConnection connection;
    private final TcpTransport transport;
    private final ChannelHandler handler;
    private final FrameCodec codec;
    // the codec's fixed lengths, read once: the send path adds them for every frame
    private final int headerLength;
    private final int trailerLength;
    private final int maxFrameLength;
    private final TcpOutboundBuffer outbound;
    private final MemorySegment outboundSegment;
    // what a claim or send may carry without a closer look: payload lengths from minPayloadLength on, up to
    // payloadLengthRange more (one unsigned compare on the claim path; checkLength says why anything else fails)
    private final int minPayloadLength;
    private final int payloadLengthRange;
    private final int halfOutbound;
    private boolean writePending;
    private boolean flushAfterDispatch;
    private boolean dirty; // listed by the transport's TcpWriteFlusher for a write at the end of the cycle
    private int listedAt; // while dirty: its index in the flusher's list, for TcpTransport.writeFirst
    private final TcpWriteListener writeListener; // null when none: one null check per write
    private long socketWrites;
    private BackPressureEvent backPressure; // a JFR recording's open back-pressured period, else null
    // a send or claim was refused since the outbound buffer last emptied: its emptying owes the handler an onSent
    private boolean refusedSinceDrained;
    // a write outside OP_WRITE emptied the buffer after a refusal: the end-of-cycle flusher tells the handler
    private boolean drainedEventDue;
    private int drainedBytes;
    // messages are counted in a plain field and published to the counters once per write, not per message: a
    // release store to the counters file per frame cost a stream of small frames ~15%
    private int framesQueued;
    // bytes handed to the socket since the connection opened: with the pending bytes, a position in its stream
    private long bytesWritten;

    TcpFrameSender(final TcpConnection connection, final TcpTransport transport, final FrameCodec codec,
        final Arena arena, final int outboundBufferSize, final int frameSpace) {
        this.connection = connection;
        this.transport = transport;
        this.handler = transport.handler();
        this.writeListener = transport.options().writeListener();
        this.codec = codec;
        this.headerLength = codec.headerLength();
        this.trailerLength = codec.trailerLength();
        this.maxFrameLength = codec.maxFrameLength();
        this.outbound = new TcpOutboundBuffer(arena, Math.max(outboundBufferSize, frameSpace));
        this.outboundSegment = outbound.segment();
        this.minPayloadLength = codec.minPayloadLength();
        this.payloadLengthRange = maxFrameLength - minPayloadLength;
        this.halfOutbound = outbound.capacity() / 2;
    }

    /** Forgets the previous connection of the slot: an empty buffer, nothing pending, no refusal owed. */
    void open() {
        writePending = false;
        flushAfterDispatch = false;
        outbound.clear();
        backPressure = null;
        refusedSinceDrained = false;
        drainedEventDue = false;
        framesQueued = 0;
        bytesWritten = 0;
    }

    /** Bytes handed to the socket since the connection opened. */
    long bytesWritten() {
        return bytesWritten;
    }

    /** Writes to the socket since the slot was made (for tests of write coalescing). */
    long socketWrites() {
        return socketWrites;
    }

    int pendingBytes() {
        return outbound.pending();
    }

    int outboundCapacity() {
        return outbound.capacity();
    }

    MemorySegment outboundSegment() {
        return outboundSegment;
    }

    boolean writePending() {
        return writePending;
    }

    int maxFrameLength() {
        return maxFrameLength;
    }

    void checkPayloadLength(final int length) {
        codec.checkPayloadLength(length);
    }

    /**
     * Whether a payload of this length needs no closer look: the common case of a claim or send, in one
     * unsigned compare. Anything else goes through the full check, which says what is wrong with it.
     */
    boolean fitsPayload(final int length) {
        return Integer.compareUnsigned(length - minPayloadLength, payloadLengthRange) <= 0;
    }

    /** The handlers' answers to a read are written after its last frame, in one write: the read says when. */
    void flushAfterDispatch() {
        if (flushAfterDispatch) {
            flushAfterDispatch = false;
            if (connection.state() == TcpConnection.CONNECTED) {
                flush(); // what the handlers answered to this read, in one write
            }
        }
    }

    /**
     * Writes what waits for the socket, on OP_WRITE or when polled.
     *
     * @return the bytes written; 0 also when the write failed and closed the channel
     */
    int onWritable() {
        final int written;
        socketWrites++;
        try {
            written = outbound.writeTo(connection.channel(), transport.claim().isOpenOn(connection));
        } catch (final IOException ex) {
            connection.closeOnFailure("write", ex);
            return 0;
        }
        countWritten(written);
        if (!tellWritten(written)) {
            return 0;
        }
        final int pending = outbound.pending();
        if (pending == 0) {
            refusedSinceDrained = false; // the onSent below says so
            if (backPressure != null) {
                leaveBackPressure("drained");
            }
        }
        if (connection.state() == TcpConnection.CLOSING) {
            if (pending == 0) {
                connection.closeWhenWritten(); // all written: the close that was waiting for it
            }
            return written;
        }
        if (pending == 0) {
            writePending(false);
        }
        if (written > 0) { // a polled attempt may find the socket still full: no progress, no event
            handler.onSent(connection.id(), written, pending);
        }
        return written;
    }

    /** Copies one frame into the outbound buffer and writes it at once unless bytes are already waiting. */
    long send(final MemorySegment buffer, final long offset, final int length) {
        final int frameLength = headerLength + length + trailerLength;
        if (!outbound.reserve(frameLength)) {
            return backPressured();
        }
        final MemorySegment out = outboundSegment;
        final long at = outbound.tail();
        codec.writeHeader(out, at, length);
        MemorySegment.copy(buffer, offset, out, at + headerLength, length);
        if (trailerLength != 0) {
            codec.writeTrailer(out, at + headerLength + length);
        }
        outbound.advance(frameLength);
        framesQueued++;
        return flushAfterAppend();
    }

    /**
     * Reserves room for one frame, writes its header, and returns where the payload goes. The bytes stay behind
     * the tail until {@link #commit}; the transport knows that a claim is open ({@link TcpClaim#isOpenOn}),
     * so that a write meanwhile does not move them.
     */
    long claim(final int length) {
        final TcpOutboundBuffer out = outbound;
        if (!out.reserve(headerLength + length + trailerLength)) {
            return backPressured();
        }
        final long at = out.tail();
        codec.writeHeader(outboundSegment, at, length);
        return at + headerLength;
    }

    /**
     * Reserves room for a run of {@code count} frames of one payload length (its whole length checked against the
     * buffer's capacity by the caller), writes every header and trailer, and returns where the first payload goes.
     */
    long claimRun(final int length, final int count) {
        final int stride = framedLength(length);
        if (!outbound.reserve(stride * count)) {
            return backPressured();
        }
        final MemorySegment segment = outboundSegment;
        final long start = outbound.tail();
        final long end = start + (long)stride * count;
        for (long at = start; at < end; at += stride) {
            codec.writeHeader(segment, at, length);
            if (trailerLength != 0) {
                codec.writeTrailer(segment, at + headerLength + length);
            }
        }
        return start + headerLength;
    }

    /** Reserves room for a run of frames the caller writes whole, headers included, and returns where it starts. */
    long claimFramed(final int bytes) {
        if (!outbound.reserve(bytes)) {
            return backPressured();
        }
        return outbound.tail();
    }

    /** Appends a claimed run: its headers and trailers were written when it was claimed, or by the caller. */
    long commitRun(final int runLength, final int frames) {
        outbound.advance(runLength);
        framesQueued += frames;
        return flushAfterAppend();
    }

    /** The bytes a frame of this payload length takes in the stream: header, payload and trailer. */
    int framedLength(final int length) {
        return headerLength + length + trailerLength;
    }

    /** A send or claim refused for want of room: counted, and a JFR recording sees a back-pressured period begin. */
    private long backPressured() {
        refusedSinceDrained = true;
        connection.counters().backPressured();
        if (backPressure != null) {
            backPressure.refused();
        } else {
            backPressure = BackPressureEvent.begin("tcp", connection.id(), connection.remoteAddress(), outbound.capacity());
        }
        return SendResult.BACK_PRESSURED;
    }

    private void leaveBackPressure(final String endedBy) {
        final BackPressureEvent period = backPressure;
        backPressure = null;
        period.finish(endedBy);
    }

    /** Appends the claimed frame; an aborted claim needs nothing here: its bytes behind the tail are not sent. */
    long commit(final int length) {
        final TcpOutboundBuffer out = outbound;
        if (trailerLength != 0) {
            codec.writeTrailer(outboundSegment, out.tail() + headerLength + length);
        }
        out.advance(headerLength + length + trailerLength);
        framesQueued++;
        return flushAfterAppend();
    }

    /**
     * Decides when what was just appended is written. Nothing is written while bytes already wait for the
     * socket (OP_WRITE writes them); once half the buffer is taken it is written at once, to keep the pipe
     * full; otherwise the write waits: after the read's last frame if this connection's own frames are being
     * delivered, else until the end of the duty cycle (the transport's {@link TcpWriteFlusher}), so that
     * everything a cycle sends on a channel goes out in one syscall, not one per message.
     */
    private long flushAfterAppend() {
        final int pending = outbound.pending();
        if (writePending) {
            return pending;
        }
        if (pending >= halfOutbound) {
            return flush() ? outbound.pending() : SendResult.CLOSED;
        }
        if (connection.dispatching()) {
            flushAfterDispatch = true;
        } else if (!dirty) {
            dirty = true;
            transport.markDirty(connection);
        }
        return pending;
    }

    /** Where the flusher listed it while dirty; meaningless otherwise. */
    int listedAt() {
        return listedAt;
    }

    void listedAt(final int index) {
        listedAt = index;
    }

    /** Whether it is listed by the flusher for the end-of-cycle write. */
    boolean dirty() {
        return dirty;
    }

    /**
     * The end-of-cycle write of a dirty connection ({@link TcpWriteFlusher}), and the {@code onSent} owed when a
     * write outside OP_WRITE (this one, a flush after a read's frames, or the application's
     * {@link TcpTransport#flush(long)}) emptied the buffer after a refused send: {@link SendResult#BACK_PRESSURED}
     * promises one, and only OP_WRITE's writes tell the handler by themselves.
     *
     * @return 1 if it wrote or told the handler, else 0
     */
    int flushDirty() {
        int work = 0;
        final boolean connected = connection.state() == TcpConnection.CONNECTED;
        if (connected && !writePending && outbound.pending() > 0) {
            flush(); // still listed: an emptying after a refusal is told below, not listed again
            work = 1;
        }
        dirty = false;
        if (drainedEventDue) {
            drainedEventDue = false;
            if (connection.state() == TcpConnection.CONNECTED) {
                handler.onSent(connection.id(), drainedBytes, outbound.pending());
                work = 1;
            }
        }
        return work;
    }

    /**
     * Writes what is buffered now, for {@link TcpTransport#flush(long)}.
     *
     * @return the bytes still buffered, or {@link SendResult#CLOSED} if the write failed
     */
    long flushNow() {
        if (writePending || outbound.pending() == 0) {
            return outbound.pending();
        }
        return flush() ? outbound.pending() : SendResult.CLOSED;
    }

    /** Writes what the socket takes now and asks for OP_WRITE if some is left; false if the write failed. */
    boolean flush() {
        socketWrites++;
        final int written;
        try {
            written = outbound.writeTo(connection.channel(), transport.claim().isOpenOn(connection));
        } catch (final IOException ex) {
            connection.closeOnFailure("write", ex);
            return false;
        }
        countWritten(written);
        if (!tellWritten(written)) {
            return false;
        }
        if (outbound.pending() > 0) {
            writePending(true);
            return true;
        }
        if (refusedSinceDrained) { // its onSent comes at the end of the cycle, not from inside a send or a flush
            refusedSinceDrained = false;
            drainedEventDue = true;
            drainedBytes = written;
            if (!dirty) {
                dirty = true;
                transport.markDirty(connection);
            }
        }
        if (backPressure != null) {
            leaveBackPressure("drained");
        }
        return true;
    }

    void writePending(final boolean pending) {
        writePending = pending;
        connection.updateInterest();
    }

    /** The interest bits of the write side: OP_WRITE while bytes wait for the socket. */
    int writeInterest() {
        return writePending ? SelectionKey.OP_WRITE : 0;
    }

    /**
     * Tells the options' {@link TcpWriteListener} of a write that took bytes. A listener that throws closes the
     * channel as a failed handler does, with nothing more written.
     *
     * @return false if the listener threw and the channel is closed
     */
    private boolean tellWritten(final int written) {
        if (writeListener == null || written <= 0) {
            return true;
        }
        try {
            writeListener.onWritten(connection.id(), bytesWritten, outbound.pending());
            return true;
        } catch (final Throwable ex) {
            stopWriting(); // the close below must not write again, and call the listener again, from inside a write
            transport.handlerFailed(connection, ex);
            return false;
        }
    }

    /** Publishes the bytes of a write and the frames queued since the last one. */
    private void countWritten(final int bytes) {
        bytesWritten += bytes;
        connection.counters().written(bytes, framesQueued);
        framesQueued = 0;
    }

    /** A graceful close begins: the answers held for the end of a read are not written apart from the rest. */
    void closing() {
        flushAfterDispatch = false;
    }

    /** An abort: nothing more is written, whatever is buffered. */
    void stopWriting() {
        writePending = true;
    }

    /**
     * The close of the connection: one last write attempt of what is buffered, unless bytes already wait for the
     * socket (a last reply sent just before closing goes out as it would have without batching), the frames
     * queued since the last write counted, and any back-pressured period ended.
     *
     * @param lastWrite whether to try that last write (a connected channel's close)
     * @return the bytes discarded
     */
    int close(final boolean lastWrite) {
        if (lastWrite && !writePending && outbound.pending() > 0) {
            flushAfterDispatch = false;
            try {
                socketWrites++;
                countWritten(outbound.writeTo(connection.channel(), false)); // a claim on a closing channel is abandoned
            } catch (final IOException ex) {
                // closing anyway; the close is what gets reported
            }
        }
        final int discarded = outbound.pending();
        countWritten(0); // frames queued since the last write count as queued, sent or discarded
        if (backPressure != null) {
            leaveBackPressure("closed");
        }
        return discarded;
    }

    /** After the close: the buffer is empty for the slot's next connection. */
    void closed() {
        outbound.clear();
        writePending = false;
    }
}
