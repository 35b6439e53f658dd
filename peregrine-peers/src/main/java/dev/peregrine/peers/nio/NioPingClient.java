package dev.peregrine.peers.nio;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
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
    private final int sequenceLength;
    private long lastSent;

    NioPingClient(final SocketChannel channel, final BenchConfig config) {
        final int size = config.size();
        this.channel = channel;
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        this.reader = new NioFrameReader(channel, sequenceLength);
        this.frame = ByteBuffer.allocateDirect(TcpFrameLayout.HEADER_LENGTH + size);
        frame.putInt(0, size);
    }

    @Override
    public void send(final long sequence) {
        BenchMessageLayout.putSequence(frame, TcpFrameLayout.SEQUENCE_OFFSET, sequenceLength, sequence);
        frame.clear();
        lastSent = sequence;
        NioWriter.writeFully(channel, frame, false);
    }

    @Override
    public long poll() {
        final long buffered = reader.next();
        if (buffered >= 0) {
            return checked(buffered);
        }
        try {
            final long sequence = reader.fill() > 0 ? reader.next() : -1;
            return sequence < 0 ? -1 : checked(sequence);
        } catch (final IOException ex) {
            throw new UncheckedIOException("read from " + NioWriter.remote(channel), ex);
        }
    }

    private long checked(final long field) {
        return BenchMessageLayout.widen(ReplyLength.check(reader.lastPayloadLength(), replySize, field), lastSent,
            sequenceLength);
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
