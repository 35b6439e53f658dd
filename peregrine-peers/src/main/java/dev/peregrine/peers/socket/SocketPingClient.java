package dev.peregrine.peers.socket;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.support.ReplyLength;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;

/**
 * Sends a frame with one blocking write; {@link #receive()} blocks in read, {@link #poll()} asks
 * {@code available()} first so it never blocks.
 */
final class SocketPingClient implements PingClient {
    private final Socket socket;
    private final OutputStream out;
    private final SocketFrameReader reader;
    private final byte[] frame;
    private final int size;
    private final int replySize;
    private final int sequenceLength;
    private long lastSent;

    SocketPingClient(final Socket socket, final BenchConfig config) throws IOException {
        this.socket = socket;
        this.size = config.size();
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        this.out = socket.getOutputStream();
        this.reader = new SocketFrameReader(socket.getInputStream(), sequenceLength);
        this.frame = new byte[TcpFrameLayout.HEADER_LENGTH + size];
        TcpFrameLayout.putLength(frame, size);
    }

    @Override
    public void send(final long sequence) {
        BenchMessageLayout.putSequence(frame, TcpFrameLayout.SEQUENCE_OFFSET, sequenceLength, sequence);
        lastSent = sequence;
        try {
            out.write(frame, 0, TcpFrameLayout.HEADER_LENGTH + size);
        } catch (final IOException ex) {
            throw new UncheckedIOException("send to " + socket.getRemoteSocketAddress(), ex);
        }
    }

    @Override
    public long poll() {
        try {
            if (!reader.ready()) {
                return -1;
            }
            return checked(reader.read());
        } catch (final IOException ex) {
            throw new UncheckedIOException("receive from " + socket.getRemoteSocketAddress(), ex);
        }
    }

    @Override
    public long receive() {
        try {
            return checked(reader.read());
        } catch (final IOException ex) {
            throw new UncheckedIOException("receive from " + socket.getRemoteSocketAddress(), ex);
        }
    }

    private long checked(final long field) {
        return BenchMessageLayout.widen(ReplyLength.check(reader.payloadLength(), replySize, field), lastSent,
            sequenceLength);
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
