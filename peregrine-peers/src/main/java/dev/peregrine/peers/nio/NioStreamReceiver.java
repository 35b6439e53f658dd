package dev.peregrine.peers.nio;

import dev.peregrine.peers.StreamReceiver;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.function.LongConsumer;

/**
 * Accepts one sender and delivers every whole frame read, all from the caller's thread.
 */
final class NioStreamReceiver implements StreamReceiver {
    private final ServerSocketChannel server;
    private SocketChannel channel;
    private NioFrameReader reader;
    private boolean open = true;

    NioStreamReceiver(final ServerSocketChannel server) {
        this.server = server;
    }

    @Override
    public int poll(final LongConsumer sequences) {
        try {
            if (channel == null) {
                final SocketChannel accepted = server.accept();
                if (accepted == null) {
                    return 0;
                }
                NioBenchTransport.configure(accepted);
                channel = accepted;
                reader = new NioFrameReader(accepted);
            }
            if (!open) {
                return 0;
            }
            try {
                reader.fill();
            } catch (final EOFException ex) {
                // the sender closed after its last frame: deliver what is buffered, then report nothing more
                open = false;
            }
            int count = 0;
            long sequence;
            while ((sequence = reader.next()) >= 0) {
                sequences.accept(sequence);
                count++;
            }
            return count;
        } catch (final IOException ex) {
            throw new UncheckedIOException("receive on " + server, ex);
        }
    }

    @Override
    public void close() {
        try {
            if (channel != null) {
                channel.close();
            }
            server.close();
        } catch (final IOException ignored) {
            // best effort
        }
    }
}
