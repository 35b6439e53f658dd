package dev.peregrine.peers.nio;

import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One non-blocking write per frame; a write the kernel refuses entirely is reported as back-pressure, a
 * partly taken frame is finished before returning (a frame is never left half-sent).
 */
final class NioStreamSender implements StreamSender {
    private final SocketChannel channel;
    private final ByteBuffer frame;

    NioStreamSender(final SocketChannel channel, final int size) {
        this.channel = channel;
        this.frame = ByteBuffer.allocateDirect(TcpFrameLayout.HEADER_LENGTH + size);
        frame.putInt(0, size);
    }

    @Override
    public boolean offer(final long sequence) {
        frame.putLong(TcpFrameLayout.SEQUENCE_OFFSET, Long.reverseBytes(sequence)).clear();
        return NioWriter.writeFully(channel, frame, true);
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
