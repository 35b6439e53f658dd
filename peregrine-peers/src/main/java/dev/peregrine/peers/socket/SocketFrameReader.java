package dev.peregrine.peers.socket;

import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads frames from a blocking stream into one reused array, the way a typical hand-written client does.
 */
final class SocketFrameReader {
    private final DataInputStream in;
    private final int sequenceLength;
    private byte[] payload = new byte[256];
    private int payloadLength;

    SocketFrameReader(final InputStream stream, final int sequenceLength) {
        this.sequenceLength = sequenceLength;
        this.in = new DataInputStream(new BufferedInputStream(stream, SocketBenchTransport.BUFFER_SIZE));
    }

    /**
     * Whether a frame's header can be read without blocking (asks the kernel when the buffer is empty).
     */
    boolean ready() throws IOException {
        return in.available() >= TcpFrameLayout.HEADER_LENGTH;
    }

    /**
     * Blocks until a whole frame has been read.
     *
     * @return its sequence field ({@link BenchMessageLayout})
     */
    long read() throws IOException {
        final int length = TcpFrameLayout.checkPayloadLength(in.readInt());
        if (length > payload.length) {
            payload = new byte[length];
        }
        in.readFully(payload, 0, length);
        payloadLength = length;
        // in bounds whatever the length: the array holds at least 256 bytes
        return BenchMessageLayout.sequence(payload, 0, sequenceLength);
    }

    byte[] payload() {
        return payload;
    }

    int payloadLength() {
        return payloadLength;
    }
}
