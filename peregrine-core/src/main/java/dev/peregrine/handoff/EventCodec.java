package dev.peregrine.handoff;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;

/**
 * Encodes the addresses and texts of a {@link SeparatedStack}'s connection events into ring payloads and back; the
 * layouts are in {@link WorkerRingDescriptor}. Texts are UTF-16 chars, written one by one, so encoding allocates
 * nothing; an address encodes with the bytes its class hands out (one small array per connection event), and every
 * decode allocates the value it returns. Not on the per-message path.
 */
final class EventCodec {
    static final int NO_ADDRESS = 0;
    static final int IP_ADDRESS = 1;
    static final int UNRESOLVED = 2;
    static final int UNIX_PATH = 3;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfChar CHAR = ValueLayout.JAVA_CHAR_UNALIGNED;

    private EventCodec() {
    }

    /**
     * Writes a text: an int count of chars, then the chars, cut to {@code room}.
     *
     * @return bytes written
     */
    static int putText(final MemorySegment buffer, final long offset, final String text, final int room) {
        final String value = text == null ? "" : text;
        final int chars = Math.max(0, Math.min(value.length(), (room - 4) / 2));
        buffer.set(INT, offset, chars);
        for (int i = 0; i < chars; i++) {
            buffer.set(CHAR, offset + 4 + 2L * i, value.charAt(i));
        }
        return 4 + 2 * chars;
    }

    static String getText(final MemorySegment buffer, final long offset, final int length) {
        final int chars = Math.min(buffer.get(INT, offset), Math.max(0, (length - 4) / 2));
        final char[] text = new char[Math.max(0, chars)];
        for (int i = 0; i < text.length; i++) {
            text[i] = buffer.get(CHAR, offset + 4 + 2L * i);
        }
        return new String(text);
    }

    /**
     * Writes an address: an IP address as its bytes and port, an unresolved one as host name and port, a Unix
     * domain one as its path; any other kind (none of Peregrine's transports gives one) as none.
     *
     * @return bytes written
     */
    static int putAddress(final MemorySegment buffer, final long offset, final SocketAddress address, final int room) {
        if (address instanceof InetSocketAddress inet && !inet.isUnresolved()) {
            final byte[] bytes = inet.getAddress().getAddress();
            buffer.set(INT, offset, IP_ADDRESS);
            buffer.set(INT, offset + 4, inet.getPort());
            buffer.set(INT, offset + 8, bytes.length);
            MemorySegment.copy(bytes, 0, buffer, ValueLayout.JAVA_BYTE, offset + 12, bytes.length);
            return 12 + bytes.length;
        }
        if (address instanceof InetSocketAddress inet) {
            buffer.set(INT, offset, UNRESOLVED);
            buffer.set(INT, offset + 4, inet.getPort());
            return 8 + putText(buffer, offset + 8, inet.getHostString(), room - 8);
        }
        if (address instanceof UnixDomainSocketAddress unix) {
            buffer.set(INT, offset, UNIX_PATH);
            return 4 + putText(buffer, offset + 4, unix.getPath().toString(), room - 4);
        }
        buffer.set(INT, offset, NO_ADDRESS);
        return 4;
    }

    static SocketAddress getAddress(final MemorySegment buffer, final long offset, final int length) {
        final int kind = buffer.get(INT, offset);
        if (kind == IP_ADDRESS) {
            final byte[] bytes = new byte[buffer.get(INT, offset + 8)];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset + 12, bytes, 0, bytes.length);
            try {
                return new InetSocketAddress(InetAddress.getByAddress(bytes), buffer.get(INT, offset + 4));
            } catch (final UnknownHostException ex) {
                throw new IllegalStateException("an address of length=" + bytes.length + " in a separated stack's ring", ex);
            }
        }
        if (kind == UNRESOLVED) {
            return InetSocketAddress.createUnresolved(getText(buffer, offset + 8, length - 8), buffer.get(INT, offset + 4));
        }
        if (kind == UNIX_PATH) {
            return UnixDomainSocketAddress.of(getText(buffer, offset + 4, length - 4));
        }
        return null;
    }
}
