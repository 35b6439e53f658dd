package dev.peregrine.peers.nio;

import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Frames go into one direct buffer of {@value NioBenchTransport#BUFFER_SIZE} bytes, written with one
 * non-blocking write when it is full or when {@link #flush()} ends a batch; what the kernel does not take
 * stays at the front of the buffer for the next write. A frame that finds the buffer full after that write
 * is refused (back-pressure).
 */
final class NioStreamSender implements StreamSender {
    private final SocketChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(NioBenchTransport.BUFFER_SIZE);
    private final int size;
    private final int frameLength;
    /** Bytes of {@link #buffer} already written to the channel. */
    private int start;
    /** Bytes of {@link #buffer} filled with frames. */
    private int end;

    NioStreamSender(final SocketChannel channel, final int size) {
        if (TcpFrameLayout.HEADER_LENGTH + size > NioBenchTransport.BUFFER_SIZE) {
            throw new IllegalArgumentException("size=" + size + " does not fit the send buffer of "
                + NioBenchTransport.BUFFER_SIZE + " bytes");
        }
        this.channel = channel;
        this.size = size;
        this.frameLength = TcpFrameLayout.HEADER_LENGTH + size;
    }

    @Override // compiled in this class, the loop's call of offer(long) is this class's alone
    public int offer(final long firstSequence, final int count) {
        return StreamSender.offerEach(this, firstSequence, count);
    }

    @Override
    public boolean offer(final long sequence) {
        if (buffer.capacity() - end < frameLength) {
            write();
            if (buffer.capacity() - end < frameLength) {
                return false;
            }
        }
        // the padding after the sequence is whatever the buffer held: its content is not part of the contract
        buffer.putInt(end, size);
        buffer.putLong(end + TcpFrameLayout.SEQUENCE_OFFSET, Long.reverseBytes(sequence));
        end += frameLength;
        return true;
    }

    @Override
    public boolean flush() {
        if (end > start) {
            write();
        }
        return end == start;
    }

    /** One non-blocking write of what is buffered; the rest moves to the front. */
    private void write() {
        buffer.limit(end).position(start);
        try {
            channel.write(buffer);
        } catch (final IOException ex) {
            throw new UncheckedIOException("write to " + NioWriter.remote(channel), ex);
        }
        start = buffer.position();
        buffer.limit(buffer.capacity()); // the frames are put with absolute indexes, checked against the limit
        if (start == end) {
            start = 0;
            end = 0;
        } else if (start > 0) {
            buffer.put(0, buffer, start, end - start);
            end -= start;
            start = 0;
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (final IOException ignored) {
            // nothing left to release
        }
    }
}
