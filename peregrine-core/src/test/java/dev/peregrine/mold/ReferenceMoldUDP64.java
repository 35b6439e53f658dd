package dev.peregrine.mold;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reference parser of a MoldUDP64 downstream packet, written from /work/shared/specs/moldudp64.md (header:
 * session 10 bytes, sequence number 8, message count 2, all big-endian; then count blocks of a 2-byte length
 * and that many bytes; count 0 is a heartbeat and 0xFFFF the end of session, both without blocks), with plain
 * byte arithmetic and sharing no code with {@link MoldUDP64Layout}: the oracle of
 * {@link MoldUDP64DecoderPropertyTest}.
 */
final class ReferenceMoldUDP64 {
    static final int END_OF_SESSION = 0xFFFF;

    /**
     * A packet that parsed.
     *
     * @param session the 10 session bytes
     * @param sequence the sequence number, unsigned (negative as a {@code long} above 2^63 - 1)
     * @param count the message count field, unsigned
     * @param messages the message data, in order (none for a heartbeat or end of session)
     */
    record Packet(byte[] session, long sequence, int count, List<byte[]> messages) {
        boolean sessionIs(final String name) {
            final byte[] padded = new byte[10];
            Arrays.fill(padded, (byte)' ');
            final byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(ascii, 0, padded, 0, ascii.length);
            return Arrays.equals(session, padded);
        }
    }

    private ReferenceMoldUDP64() {
    }

    /**
     * Parses a whole datagram.
     *
     * @param datagram the UDP payload
     * @return the packet, or null if the datagram is not exactly one well-formed packet (short header, a block
     *     cut short, bytes after the last block, blocks after a heartbeat or end of session)
     */
    static Packet parse(final byte[] datagram) {
        if (datagram.length < 20) {
            return null;
        }
        long sequence = 0;
        for (int i = 10; i < 18; i++) {
            sequence = sequence << 8 | datagram[i] & 0xFF;
        }
        final int count = (datagram[18] & 0xFF) << 8 | datagram[19] & 0xFF;
        final List<byte[]> messages = new ArrayList<>();
        int position = 20;
        final int blocks = count == END_OF_SESSION ? 0 : count;
        for (int i = 0; i < blocks; i++) {
            if (position + 2 > datagram.length) {
                return null;
            }
            final int length = (datagram[position] & 0xFF) << 8 | datagram[position + 1] & 0xFF;
            position += 2;
            if (position + length > datagram.length) {
                return null;
            }
            messages.add(Arrays.copyOfRange(datagram, position, position + length));
            position += length;
        }
        if (position != datagram.length) {
            return null;
        }
        return new Packet(Arrays.copyOf(datagram, 10), sequence, count, messages);
    }
}
