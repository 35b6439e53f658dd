package dev.peregrine.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * The rendezvous over the Unix domain socket, little-endian. The server offers the ring files, the client
 * maps and checks them and acknowledges with one byte, then the server removes the files (both mappings stay
 * valid). Afterwards nothing more is sent: the open socket is the liveness signal.
 *
 * <pre>
 *  server -&gt; client (offer)
 *  +--------+--------+--------+--------+--------+---------+------------------+---------+-----------------+
 *  | magic 4|version4|capacity|max len |max msgs|len c2s 2| client-to-server | len s2c2| server-to-client|
 *  |        |        |   4    |   4    |   4    |         | ring path (UTF-8)|         | ring path       |
 *  +--------+--------+--------+--------+--------+---------+------------------+---------+-----------------+
 *  client -&gt; server: one byte {@link #ACK}
 * </pre>
 */
final class ShmHandshake {
    static final int MAGIC = 0x4D485350; // "PSHM"
    static final int VERSION = 1;
    static final byte ACK = 'A';
    static final int MAX_PATH_BYTES = 1024;
    static final int MAX_OFFER_BYTES = 20 + 2 * (2 + MAX_PATH_BYTES);

    /** What the server offers. */
    record Offer(int capacity, int maxMessageLength, int maxMessages, Path clientToServer, Path serverToClient) {
    }

    private ShmHandshake() {
    }

    static ByteBuffer newBuffer() {
        return ByteBuffer.allocate(MAX_OFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }

    static void writeOffer(final ByteBuffer buffer, final Offer offer) {
        buffer.clear();
        buffer.putInt(MAGIC).putInt(VERSION).putInt(offer.capacity()).putInt(offer.maxMessageLength())
            .putInt(offer.maxMessages());
        putPath(buffer, offer.clientToServer());
        putPath(buffer, offer.serverToClient());
        buffer.flip();
    }

    /**
     * Decodes an offer from the bytes received so far (buffer in write mode).
     *
     * @return the offer, or null if more bytes are needed
     * @throws IllegalStateException if the bytes cannot be an offer
     */
    static Offer readOffer(final ByteBuffer received) {
        final ByteBuffer buffer = received.duplicate().flip().order(ByteOrder.LITTLE_ENDIAN);
        if (buffer.remaining() < 22) {
            return null;
        }
        final int magic = buffer.getInt();
        final int version = buffer.getInt();
        if (magic != MAGIC || version != VERSION) {
            throw new IllegalStateException("not a Peregrine shared-memory server: magic=0x" + Integer.toHexString(magic)
                + " version=" + version + " (expected 0x" + Integer.toHexString(MAGIC) + " version " + VERSION + ")");
        }
        final int capacity = buffer.getInt();
        final int maxMessageLength = buffer.getInt();
        final int maxMessages = buffer.getInt();
        try {
            ShmRingDescriptor.checkParameters(capacity, maxMessageLength, maxMessages);
        } catch (final IllegalArgumentException ex) {
            throw new IllegalStateException("server offered bad ring parameters: " + ex.getMessage(), ex);
        }
        final Path clientToServer = getPath(buffer);
        if (clientToServer == null || buffer.remaining() < 2) {
            return null;
        }
        final Path serverToClient = getPath(buffer);
        if (serverToClient == null) {
            return null;
        }
        return new Offer(capacity, maxMessageLength, maxMessages, clientToServer, serverToClient);
    }

    private static void putPath(final ByteBuffer buffer, final Path path) {
        final byte[] bytes = path.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length < 1 || bytes.length > MAX_PATH_BYTES) {
            throw new IllegalArgumentException("ring path length=" + bytes.length + " must be in [1, " + MAX_PATH_BYTES + "]: " + path);
        }
        buffer.putShort((short)bytes.length).put(bytes);
    }

    private static Path getPath(final ByteBuffer buffer) {
        final int length = Short.toUnsignedInt(buffer.getShort());
        if (length < 1 || length > MAX_PATH_BYTES) {
            throw new IllegalStateException("ring path length=" + length + " must be in [1, " + MAX_PATH_BYTES + "]");
        }
        if (buffer.remaining() < length) {
            return null;
        }
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        final Path path;
        try {
            path = Path.of(new String(bytes, StandardCharsets.UTF_8));
        } catch (final InvalidPathException ex) { // a NUL byte, say
            throw new IllegalStateException("ring path is not a path: " + ex.getMessage(), ex);
        }
        // the root ("/") has no file name
        if (!path.isAbsolute() || path.getFileName() == null || !path.getFileName().toString().startsWith(ShmRingFile.PREFIX)) {
            throw new IllegalStateException("ring path " + path + " is not an absolute " + ShmRingFile.PREFIX + "* file");
        }
        return path;
    }
}
