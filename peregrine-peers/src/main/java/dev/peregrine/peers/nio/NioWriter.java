package dev.peregrine.peers.nio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Writes a whole buffer to a non-blocking channel, spinning only while the kernel's send buffer is full.
 */
final class NioWriter {
    private NioWriter() {
    }

    /**
     * Writes every remaining byte of {@code buffer}.
     *
     * @param channel the channel
     * @param buffer the bytes, between position and limit
     * @param mayRefuse if true and the kernel takes nothing at all, return false without spinning
     * @return false only if {@code mayRefuse} and nothing was written
     */
    static boolean writeFully(final SocketChannel channel, final ByteBuffer buffer, final boolean mayRefuse) {
        try {
            int written = channel.write(buffer);
            if (written == 0 && mayRefuse) {
                return false;
            }
            while (buffer.hasRemaining()) {
                written = channel.write(buffer);
                if (written == 0) {
                    Thread.onSpinWait();
                }
            }
            return true;
        } catch (final IOException ex) {
            throw new UncheckedIOException("write to " + remote(channel), ex);
        }
    }

    static String remote(final SocketChannel channel) {
        try {
            return String.valueOf(channel.getRemoteAddress());
        } catch (final IOException ex) {
            return "(closed channel)";
        }
    }
}
