package dev.peregrine.peers.nio;

import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Reads frames from a non-blocking channel into one direct buffer, tracking a read and a write index so that
 * frames are parsed in place (no copy unless a partial frame must move to the front).
 */
final class NioFrameReader {
    private final SocketChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(NioBenchTransport.BUFFER_SIZE);
    private final int sequenceLength;
    private int readIndex;
    private int writeIndex;
    private int lastPayloadLength;

    /** A reader of frames whose payloads carry the full 64-bit sequence (the stream's). */
    NioFrameReader(final SocketChannel channel) {
        this(channel, BenchMessageLayout.LONG_SEQUENCE_LENGTH);
    }

    /** A reader of frames whose sequence field is {@code sequenceLength} bytes ({@link BenchMessageLayout}). */
    NioFrameReader(final SocketChannel channel, final int sequenceLength) {
        this.channel = channel;
        this.sequenceLength = sequenceLength;
    }

    /**
     * Reads what the kernel has, without blocking.
     *
     * @return bytes read (0 if none)
     * @throws EOFException if the peer closed the connection
     */
    int fill() throws IOException {
        if (readIndex == writeIndex) {
            readIndex = 0;
            writeIndex = 0;
        } else if (buffer.capacity() - writeIndex < TcpFrameLayout.HEADER_LENGTH + TcpFrameLayout.MAX_PAYLOAD_LENGTH
            && readIndex > 0) {
            // move the partial frame to the front so the largest legal frame still fits
            buffer.put(0, buffer, readIndex, writeIndex - readIndex);
            writeIndex -= readIndex;
            readIndex = 0;
        }
        buffer.limit(buffer.capacity()).position(writeIndex);
        final int read = channel.read(buffer);
        if (read < 0) {
            throw new EOFException("closed by " + channel.getRemoteAddress());
        }
        writeIndex += read;
        return read;
    }

    /**
     * Takes the next whole frame from the buffer, if there is one.
     *
     * @return its sequence field, or -1 if no whole frame is buffered
     */
    long next() {
        final int available = writeIndex - readIndex;
        if (available < TcpFrameLayout.HEADER_LENGTH) {
            return -1;
        }
        final int length = TcpFrameLayout.checkPayloadLength(buffer.getInt(readIndex));
        if (available < TcpFrameLayout.HEADER_LENGTH + length) {
            return -1;
        }
        final int frameStart = readIndex;
        readIndex += TcpFrameLayout.HEADER_LENGTH + length;
        lastPayloadLength = length;
        // the buffer stays big-endian for the length; the sequence is little-endian by the SPI's contract
        return BenchMessageLayout.sequence(buffer, frameStart + TcpFrameLayout.SEQUENCE_OFFSET, sequenceLength);
    }

    /**
     * Where the next frame starts; frames between two values of this index can be echoed straight from
     * {@link #buffer()}.
     */
    int readIndex() {
        return readIndex;
    }

    /**
     * The payload length of the frame {@link #next()} took last.
     */
    int lastPayloadLength() {
        return lastPayloadLength;
    }

    ByteBuffer buffer() {
        return buffer;
    }
}
