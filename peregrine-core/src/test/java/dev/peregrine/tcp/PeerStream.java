package dev.peregrine.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/** The peer's view of a close: what a plain socket read to the end of its stream, and how the stream ended. */
final class PeerStream {
    private PeerStream() {
    }

    /**
     * What the peer read.
     *
     * @param bytes how many bytes
     * @param end {@code "end of stream"} (a FIN), {@code "reset"} (exactly {@code Connection reset}), {@code "still
     *     open"} (the socket's read timeout ran out) or {@code "failed: "} and the exception
     */
    record Received(long bytes, String end) {
    }

    /** Reads to the end of the stream, however it ends; bounded by the socket's read timeout, so that a stream left open shows. */
    static Received readAll(final Socket peer) {
        final byte[] sink = new byte[64 * 1024];
        long bytes = 0;
        try {
            final InputStream in = peer.getInputStream();
            for (int read = in.read(sink); read >= 0; read = in.read(sink)) {
                bytes += read;
            }
            return new Received(bytes, "end of stream");
        } catch (final SocketTimeoutException ex) {
            return new Received(bytes, "still open");
        } catch (final SocketException ex) {
            return new Received(bytes, "Connection reset".equals(ex.getMessage()) ? "reset" : "failed: " + ex);
        } catch (final IOException ex) {
            return new Received(bytes, "failed: " + ex);
        }
    }
}
