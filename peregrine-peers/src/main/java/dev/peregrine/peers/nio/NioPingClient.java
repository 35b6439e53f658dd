package dev.peregrine.peers.nio;

import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.support.ReplyLength;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Writes each frame from one direct buffer; {@link #poll()} reads whatever the kernel has and returns the
 * next whole frame's sequence.
 */
final class NioPingClient implements PingClient {
    private final SocketChannel channel;
    private final NioFrameReader reader;
    private final ByteBuffer frame;
    private final int replySize;

    NioPingClient(final SocketChannel channel, final int size, final int replySize) {
        this.channel = channel;
        this.replySize = replySize;
        this.reader = new NioFrameReader(channel);
        this.frame = ByteBuffer.allocateDirect(TcpFrameLayout.HEADER_LENGTH + size);
        frame.putInt(0, size);
    }

    @Override
    public void send(final long sequence) {
        frame.putLong(TcpFrameLayout.SEQUENCE_OFFSET, Long.reverseBytes(sequence)).clear();
        NioWriter.writeFully(channel, frame, false);
    }

    @Override
    public long poll() {
        final long buffered = reader.next();
        if (buffered >= 0) {
            return ReplyLength.check(reader.lastPayloadLength(), replySize, buffered);
        }
        try {
            final long sequence = reader.fill() > 0 ? reader.next() : -1;
            return sequence < 0 ? -1 : ReplyLength.check(reader.lastPayloadLength(), replySize, sequence);
        } catch (final IOException ex) {
            throw new UncheckedIOException("read from " + NioWriter.remote(channel), ex);
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
