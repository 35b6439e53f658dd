package dev.peregrine.shm;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes bytes as messages of at most the ring's maximum length; waits (spin, yield, then short parks)
 * while the ring is full, and fails once the peer is gone, since nobody reads the ring any more.
 *
 * <p>A write or flush after the peer has gone throws "broken pipe" with how it went. A peer that closed marks its
 * ring closed, and every message looks at that mark (one load of the inbound ring's header, no system call), so
 * the first write after its close fails. A peer that died is seen only on the rendezvous socket, a system call,
 * made once every {@link #SOCKET_CHECK_INTERVAL} messages and every {@link #LIVENESS_CHECK_NS} while the ring is
 * full: at most that many messages more (or what fits the ring, if fewer) are taken after it died.
 */
final class ShmOutputStream extends OutputStream {
    private static final long LIVENESS_CHECK_NS = 10_000_000L;
    /** Messages written between two looks at the rendezvous socket for a peer that died. */
    static final int SOCKET_CHECK_INTERVAL = 1024;

    private final ShmConnection connection;
    private final ShmRingWriter writer;
    private final int maxChunk;
    /** Messages (and flushes) since the socket was last looked at; starts due, so the first write looks. */
    private int messagesSinceSocketCheck = SOCKET_CHECK_INTERVAL;
    /** Seen gone once: every later write fails too, without looking again. */
    private boolean peerGone;

    ShmOutputStream(final ShmConnection connection) {
        this.connection = connection;
        this.writer = connection.writer();
        this.maxChunk = Math.max(1, writer.maxMessageLength());
    }

    @Override
    public void write(final int value) throws IOException {
        enter();
        try {
            final long index = claim(1);
            writer.buffer().set(ValueLayout.JAVA_BYTE, index, (byte)value);
            writer.commit(index);
        } finally {
            connection.exit();
        }
    }

    @Override
    public void write(final byte[] bytes, final int offset, final int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
        enter();
        try {
            int done = 0;
            while (done < length) {
                final int chunk = Math.min(maxChunk, length - done);
                final long index = claim(chunk);
                MemorySegment.copy(bytes, offset + done, writer.buffer(), ValueLayout.JAVA_BYTE, index, chunk);
                writer.commit(index);
                done += chunk;
            }
        } finally {
            connection.exit();
        }
    }

    /**
     * Nothing is buffered, so this only says whether the peer is still there, as a write would.
     *
     * @throws IOException "broken pipe" once the peer is gone; nothing once this side is closed (there is nothing
     *     left to flush)
     */
    @Override
    public void flush() throws IOException {
        if (!connection.enter()) {
            return;
        }
        try {
            checkPeer();
        } finally {
            connection.exit();
        }
    }

    /**
     * Closes the socket; from any thread. A write in progress ends first (its committed messages are
     * delivered) and marks the ring closed as it leaves: this thread never touches the writer's fields.
     */
    @Override
    public void close() {
        connection.close();
    }

    private void enter() throws IOException {
        if (!connection.enter()) {
            throw new IOException("socket closed");
        }
    }

    /**
     * Throws once the peer is gone: its ring's closed mark on every call, its socket once every
     * {@link #SOCKET_CHECK_INTERVAL} calls.
     */
    private void checkPeer() throws IOException {
        final boolean socketDue = ++messagesSinceSocketCheck >= SOCKET_CHECK_INTERVAL;
        if (socketDue) {
            messagesSinceSocketCheck = 0;
        }
        if (peerGone || connection.peerWent(socketDue)) {
            throw brokenPipe();
        }
    }

    private IOException brokenPipe() {
        peerGone = true;
        return ShmSocket.brokenPipe(connection.reader().isWriterClosed() ? "the peer closed the connection"
            : "the peer process died or dropped the connection");
    }

    private long claim(final int length) throws IOException {
        checkPeer();
        long index = writer.tryClaim(length);
        int idle = 0;
        long lastCheck = System.nanoTime();
        while (index < 0) {
            if (index == ShmRingWriter.CLOSED || connection.isClosed()) {
                throw new IOException("socket closed");
            }
            final long now = System.nanoTime();
            if (now - lastCheck > LIVENESS_CHECK_NS) {
                lastCheck = now;
                if (connection.peerWent(true)) {
                    throw brokenPipe();
                }
            }
            if (++idle < 1000) {
                Thread.onSpinWait();
            } else if (idle < 1100) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000);
            }
            index = writer.tryClaim(length);
        }
        return index;
    }
}
