package dev.peregrine.shm;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes bytes as messages of at most the ring's maximum length; waits (spin, yield, then short parks)
 * while the ring is full, and fails once the peer is gone.
 */
final class ShmOutputStream extends OutputStream {
    private static final long LIVENESS_CHECK_NS = 10_000_000L;

    private final ShmConnection connection;
    private final ShmRingWriter writer;
    private final int maxChunk;

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

    private long claim(final int length) throws IOException {
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
                if (connection.isPeerGone()) {
                    throw ShmSocket.reset("the peer is gone while the ring is full");
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
