package dev.peregrine.shm;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads the bytes of consecutive messages from a ring, waiting with a {@link ShmWaitStrategy}. A message
 * is copied whole into a staging array, then served from there. Once the peer has gone, what it wrote before is
 * read, then the end of the stream (it closed) or "connection reset" (it died); a ring that keeps filling after that
 * (a process still holding the mapping) is read for at most two laps, then "connection reset" says so, and a corrupt
 * record is always "connection reset" with the reason, never the end of the stream.
 */
final class ShmInputStream extends InputStream {
    private static final long LIVENESS_CHECK_NS = 10_000_000L;

    private final ShmConnection connection;
    private final ShmRingReader reader;
    private final ShmWaitStrategy wait;
    private final byte[] staging;
    private final ShmMessageHandler stager = this::stage;
    /** Most records a lap of the ring holds. */
    private final int lap;
    private int position;
    private int limit;
    private boolean endOfStream;
    /** The peer closed or died, as seen before a poll; then {@link #drainBudget} bounds what is still read. */
    private boolean peerGone;
    private long drainBudget;
    /** Messages read since the socket was last looked at; starts due, so the first read looks. */
    private long messagesSinceSocketCheck;

    ShmInputStream(final ShmConnection connection, final ShmWaitStrategy wait) {
        this.connection = connection;
        this.reader = connection.reader();
        this.wait = wait;
        this.staging = new byte[Math.max(1, reader.maxMessageLength())];
        this.lap = reader.recordsPerLap();
        this.messagesSinceSocketCheck = lap;
    }

    @Override
    public int read() throws IOException {
        if (!fill()) {
            return -1;
        }
        return staging[position++] & 0xFF;
    }

    @Override
    public int read(final byte[] bytes, final int offset, final int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
        if (length == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        final int count = Math.min(length, limit - position);
        System.arraycopy(staging, position, bytes, offset, count);
        position += count;
        return count;
    }

    @Override
    public int available() {
        return limit - position;
    }

    /** Closes the socket; from the reading thread this only signals, the writing side owns its ring. */
    @Override
    public void close() {
        connection.close();
    }

    /** Waits for bytes; false at the end of the stream. */
    private boolean fill() throws IOException {
        if (connection.isClosed()) {
            throw new IOException("socket closed");
        }
        if (position < limit) {
            return true;
        }
        if (!connection.enter()) {
            throw new IOException("socket closed");
        }
        try {
            return awaitMessage();
        } finally {
            connection.exit();
        }
    }

    /**
     * Polls until a message is staged. Whether the peer went is looked at before a poll, never after it: a ring found
     * empty, or corrupt, by a poll that follows the look holds nothing more the peer wrote, so the stream ends (or
     * fails with the corruption) and is never cut short. The look reads the ring's closed mark, and the socket (a
     * system call) every {@link #LIVENESS_CHECK_NS} while the ring is empty and once a lap of messages while it is
     * never empty, so that a ring that keeps filling after the peer went is noticed too.
     */
    private boolean awaitMessage() throws IOException {
        long lastSocketCheck = System.nanoTime();
        boolean ringWasEmpty = false;
        while (position == limit) {
            if (endOfStream) {
                return false;
            }
            if (connection.isClosed()) {
                throw new IOException("socket closed");
            }
            if (!peerGone) {
                if (messagesSinceSocketCheck >= lap) {
                    messagesSinceSocketCheck = 0;
                    lookForPeerGone(true);
                } else if (ringWasEmpty) {
                    final long now = System.nanoTime();
                    final boolean socketDue = now - lastSocketCheck > LIVENESS_CHECK_NS;
                    if (socketDue) {
                        lastSocketCheck = now;
                    }
                    lookForPeerGone(socketDue);
                }
            } else if (drainBudget <= 0) {
                throw ShmSocket.reset(ShmRingReader.KEPT_FILLING);
            }
            final int work = reader.poll(stager, 1);
            if (work < 0) {
                throw ShmSocket.reset("inbound ring corrupt: " + reader.corruption());
            }
            if (work > 0) {
                messagesSinceSocketCheck++;
                if (peerGone) {
                    drainBudget--;
                }
            } else if (peerGone) {
                if (reader.isWriterClosed()) {
                    endOfStream = true;
                    return false;
                }
                throw ShmSocket.reset("the peer process died or dropped the connection");
            }
            ringWasEmpty = work == 0;
            wait.idle(reader, work, LIVENESS_CHECK_NS);
        }
        return true;
    }

    /**
     * Whether the peer went: its ring marked closed (it closed), or, if asked, the socket's end (it died or dropped
     * it). From then on at most {@link #drainBudget} more messages are read.
     */
    private void lookForPeerGone(final boolean socketToo) {
        if (connection.peerWent(socketToo)) {
            peerGone = true;
            drainBudget = reader.goneWriterDrainBound(); // as ShmTransport's drain
        }
    }

    private void stage(final MemorySegment buffer, final long offset, final int length) {
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, staging, 0, length);
        position = 0;
        limit = length;
    }
}
