package dev.peregrine.peers.socket;

import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;

/**
 * One blocking write per frame: back-pressure shows as a write that blocks, so {@link #offer} always takes
 * the message.
 */
final class SocketStreamSender implements StreamSender {
    private final Socket socket;
    private final OutputStream out;
    private final byte[] frame;

    SocketStreamSender(final Socket socket, final int size) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.frame = new byte[TcpFrameLayout.HEADER_LENGTH + size];
        TcpFrameLayout.putLength(frame, size);
    }

    @Override
    public boolean offer(final long sequence) {
        TcpFrameLayout.putSequence(frame, TcpFrameLayout.SEQUENCE_OFFSET, sequence);
        try {
            out.write(frame);
        } catch (final IOException ex) {
            throw new UncheckedIOException("send to " + socket.getRemoteSocketAddress(), ex);
        }
        return true;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (final IOException ignored) {
            // nothing left to release
        }
    }
}
