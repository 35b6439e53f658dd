package dev.peregrine.tcp;

import dev.peregrine.channel.SendResult;

import java.lang.foreign.MemorySegment;

/**
 * The one claim a {@link TcpTransport} may have open: on which channel, of one frame or of a run, and, when it
 * ended without a commit, why (for the late {@link #commit()}). The transport's public claim methods say what a
 * claim promises; this is their bookkeeping. The channel of the latest claim and its outbound memory are kept,
 * so that a loop sending on one channel finds both without the lookup; a claim, when open, is always on that
 * channel: the claim path stores a flag and a length per frame, no reference. Nothing allocates per claim.
 * Not thread-safe: the reactor's thread.
 */
final class TcpClaim {
    /** {@link #ended} when the claimed channel closed under the claim: commit answers CLOSED. */
    private static final String ABANDONED = "the channel closed under the claim";

    private final TcpTransport transport;
    private final TcpConnectionPool connections;
    private TcpConnection lastClaimed;
    private MemorySegment lastClaimedSegment;
    private boolean open;
    // the payload length of a claim of one frame; of a run, ~(framed length of the whole run), so negative
    private int claimedLength;
    private int claimedRunFrames; // of a run: how many frames
    // why the last claim ended without a commit (ABANDONED, or the reason it was aborted at the end of its
    // duty cycle), for commit(); null otherwise
    private String ended;
    private boolean flusherAdded; // the transport's flusher, which ends claims left open, is on the reactor

    TcpClaim(final TcpTransport transport, final TcpConnectionPool connections) {
        this.transport = transport;
        this.connections = connections;
    }

    /** {@link TcpTransport#tryClaim(long, int)}. */
    long tryClaim(final long channelId, final int length) {
        TcpConnection connection = lastClaimed;
        if (connection == null || connection.id() != channelId || connection.state() != TcpConnection.CONNECTED) {
            connection = connections.connected(channelId);
            if (connection == null) {
                return connections.notConnected(channelId);
            }
            if (open) {
                throw stillOpen(); // before the switch: an open claim is always on lastClaimed
            }
            lastClaimed = connection;
            lastClaimedSegment = connection.sender().outboundSegment();
        }
        final long refused = refusal(connection, length);
        if (refused < 0) {
            return refused;
        }
        final long offset = connection.sender().claim(length);
        if (offset >= 0) {
            open = true;
            claimedLength = length;
            if (ended != null || !flusherAdded) {
                started();
            }
        }
        return offset;
    }

    /** {@link TcpTransport#tryClaim(long, int, int)}. */
    long tryClaim(final long channelId, final int length, final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count=" + count + " must be at least 1");
        }
        final TcpConnection connection = connections.connected(channelId);
        if (connection == null) {
            return connections.notConnected(channelId);
        }
        final long refused = refusal(connection, length);
        if (refused < 0) {
            return refused;
        }
        final long runLength = (long)connection.sender().framedLength(length) * count;
        if (runLength > connection.sender().outboundCapacity()) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        lastClaimed = connection;
        lastClaimedSegment = connection.sender().outboundSegment();
        final long offset = connection.sender().claimRun(length, count);
        if (offset >= 0) {
            open = true;
            claimedLength = ~(int)runLength; // negative: a run; commit() tells the two apart by the sign
            claimedRunFrames = count;
            if (ended != null || !flusherAdded) {
                started();
            }
        }
        return offset;
    }

    /** {@link TcpTransport#tryClaimFramed(long, int, int)}. */
    long tryClaimFramed(final long channelId, final int bytes, final int frames) {
        if (bytes < 1 || frames < 1) {
            throw new IllegalArgumentException("bytes=" + bytes + " frames=" + frames + " must be at least 1");
        }
        TcpConnection connection = lastClaimed;
        if (connection == null || connection.id() != channelId || connection.state() != TcpConnection.CONNECTED) {
            connection = connections.connected(channelId);
            if (connection == null) {
                return connections.notConnected(channelId);
            }
            if (open) {
                throw stillOpen();
            }
            lastClaimed = connection;
            lastClaimedSegment = connection.sender().outboundSegment();
        }
        if (open) {
            throw stillOpen();
        }
        if (bytes > connection.sender().outboundCapacity()) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        final long offset = connection.sender().claimFramed(bytes);
        if (offset >= 0) {
            open = true;
            claimedLength = ~bytes; // negative: a run, committed as one
            claimedRunFrames = frames;
            if (ended != null || !flusherAdded) {
                started();
            }
        }
        return offset;
    }

    /** {@link TcpTransport#claimStride()}. */
    int stride() {
        if (!open) {
            throw new IllegalStateException("no claim is open");
        }
        return claimedLength >= 0 ? lastClaimed.sender().framedLength(claimedLength) : ~claimedLength / claimedRunFrames;
    }

    /** The rare part of a claim: forgets how the previous one ended, and adds the flusher on the first. */
    private void started() {
        ended = null;
        if (!flusherAdded) {
            flusherAdded = true;
            transport.addFlusherOnce(); // it also ends claims left open past their duty cycle
        }
    }

    /** {@link TcpTransport#claimBuffer()}. */
    MemorySegment buffer() {
        if (!open) {
            throw new IllegalStateException("no claim is open");
        }
        return lastClaimedSegment;
    }

    /** {@link TcpTransport#commit()}. */
    long commit() {
        if (!open) {
            return commitWithoutClaim();
        }
        open = false;
        final int length = claimedLength;
        return length >= 0 ? lastClaimed.sender().commit(length) : lastClaimed.sender().commitRun(~length, claimedRunFrames);
    }

    // the rare paths of tryClaim and commit live in methods of their own, so that the common path stays
    // small enough to be inlined into the caller's send loop

    private long commitWithoutClaim() {
        final String reason = ended;
        ended = null;
        if (reason == ABANDONED) {
            return SendResult.CLOSED;
        }
        throw new IllegalStateException(reason != null ? reason : "no claim is open");
    }

    private IllegalStateException stillOpen() {
        return new IllegalStateException("a claim on channel " + lastClaimed.id() + " is open; commit it or abortClaim() first");
    }

    /** {@link TcpTransport#abortClaim()}. */
    void abort() {
        open = false; // its bytes, behind the channel's tail, are simply not sent
        ended = null;
    }

    /**
     * Aborts a claim still open at the end of the duty cycle that opened it (the flusher calls this after all
     * the transport does in a cycle): a claim does not outlive the callback or cycle that opened it, so that
     * nothing written around it can move its bytes. Reported to the reactor's error handler; the late
     * {@link #commit()} throws with the same reason.
     */
    void abortLeftOpen() {
        if (!open) {
            return;
        }
        open = false;
        ended = (claimedLength >= 0 ? "the claim of " + claimedLength + " bytes"
            : "the claim of a run of " + claimedRunFrames + " frames (" + ~claimedLength + " bytes)")
            + " on channel " + lastClaimed.id()
            + " was still open at the end of the duty cycle that opened it and was aborted; nothing of it was sent"
            + " (commit or abort a claim in the callback, or before the next doWork, that opened it)";
        transport.reportError(new IllegalStateException(ended));
    }

    /** The claimed channel closes: the claim is abandoned, and the late commit answers CLOSED. */
    void abandon(final TcpConnection connection) {
        if (isOpenOn(connection)) {
            open = false;
            ended = ABANDONED;
        }
    }

    /** Whether a claim is open on this connection: its bytes behind the tail must stay where they are. */
    boolean isOpenOn(final TcpConnection connection) {
        return open && lastClaimed == connection;
    }

    /**
     * 0 if a payload of this length may be sent or claimed on the connection now, else the {@link SendResult}
     * refusing it; throws while a claim is open, and for a length the framing cannot carry. The common case is
     * two compares; the full length check, which says what is wrong, stays out of line.
     */
    long refusal(final TcpConnection connection, final int length) {
        if (open) {
            throw stillOpen();
        }
        return connection.sender().fitsPayload(length) ? 0 : checkLength(connection, length);
    }

    private static long checkLength(final TcpConnection connection, final int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length=" + length);
        }
        if (length > connection.sender().maxFrameLength()) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        connection.sender().checkPayloadLength(length);
        return 0;
    }
}
