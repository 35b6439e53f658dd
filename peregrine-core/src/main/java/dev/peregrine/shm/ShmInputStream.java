package dev.peregrine.shm;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads the bytes of consecutive messages from a ring, waiting with a {@link ShmWaitStrategy}. A message
 * is copied whole into a staging array, then served from there.
 */
final class ShmInputStream extends InputStream {
    private static final long LIVENESS_CHECK_NS = 10_000_000L;

    private final ShmConnection connection;
    private final ShmRingReader reader;
    private final ShmWaitStrategy wait;
    private final byte[] staging;
    private final ShmMessageHandler stager = this::stage;
    private int position;
    private int limit;
    private boolean endOfStream;

    ShmInputStream(final ShmConnection connection, final ShmWaitStrategy wait) {
        this.connection = connection;
        this.reader = connection.reader();
        this.wait = wait;
        this.staging = new byte[Math.max(1, reader.maxMessageLength())];
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

    private boolean awaitMessage() throws IOException {
        long lastCheck = System.nanoTime();
        while (position == limit) {
            if (endOfStream) {
                return false;
            }
            if (connection.isClosed()) {
                throw new IOException("socket closed");
            }
            final int work = reader.poll(stager, 1);
            if (work < 0) {
                throw ShmSocket.reset("inbound ring corrupt: " + reader.corruption());
            }
            if (work == 0) {
                final long now = System.nanoTime();
                if (now - lastCheck > LIVENESS_CHECK_NS || reader.isWriterClosed()) {
                    lastCheck = now;
                    if (reader.isWriterClosed() || connection.isPeerGone()) {
                        if (reader.poll(stager, 1) > 0) {
                            continue; // drain what was written before the close
                        }
                        if (reader.isWriterClosed()) {
                            endOfStream = true;
                            return false;
                        }
                        throw ShmSocket.reset("the peer process died or dropped the connection");
                    }
                }
                wait.idle(reader, 0, LIVENESS_CHECK_NS);
            } else {
                wait.idle(reader, work, LIVENESS_CHECK_NS);
            }
        }
        return true;
    }

    private void stage(final MemorySegment buffer, final long offset, final int length) {
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, staging, 0, length);
        position = 0;
        limit = length;
    }
}
