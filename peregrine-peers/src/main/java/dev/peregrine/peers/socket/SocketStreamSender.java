package dev.peregrine.peers.socket;

import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;

/**
 * Frames written into a {@link BufferedOutputStream} of {@value SocketBenchTransport#STREAM_BUFFER_SIZE}
 * bytes, which writes to the socket when it is full; {@link #flush()} at the end of a batch writes the rest.
 * Back-pressure shows as a write that blocks, so {@link #offer} always takes the message.
 */
final class SocketStreamSender implements StreamSender {
    private final Socket socket;
    private final OutputStream out;
    private final byte[] frame;

    SocketStreamSender(final Socket socket, final int size) throws IOException {
        this.socket = socket;
        this.out = new BufferedOutputStream(socket.getOutputStream(), SocketBenchTransport.STREAM_BUFFER_SIZE);
        this.frame = new byte[TcpFrameLayout.HEADER_LENGTH + size];
        TcpFrameLayout.putLength(frame, size);
    }

    @Override // compiled in this class, the loop's call of offer(long) is this class's alone
    public int offer(final long firstSequence, final int count) {
        return StreamSender.offerEach(this, firstSequence, count);
    }

    @Override
    public boolean offer(final long sequence) {
        TcpFrameLayout.putSequence(frame, TcpFrameLayout.SEQUENCE_OFFSET, sequence);
        try {
            out.write(frame, 0, frame.length);
        } catch (final IOException ex) {
            throw new UncheckedIOException("send to " + socket.getRemoteSocketAddress(), ex);
        }
        return true;
    }

    @Override
    public boolean flush() {
        try {
            out.flush();
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
