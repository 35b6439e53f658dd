package dev.peregrine.mold;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The MoldUDP64 1.00 wire layout: every number big-endian, every 16-bit field unsigned.
 *
 * <pre>
 * Downstream packet (transmitter or re-request server to listener):
 *  0                   10                          18            20
 * +-------------------+---------------------------+-------------+----------------------------
 * | Session           | Sequence Number           | Message     | Message blocks ...
 * | 10 ASCII, space-  | u64: the first message's  | Count (u16) |
 * | padded on right   | sequence number           |             |
 * +-------------------+---------------------------+-------------+----------------------------
 * Message block, Message Count of them, back to back:
 * +---------------+---------------------------+
 * | Length (u16)  | Data, Length bytes (0 ok) |
 * +---------------+---------------------------+
 * Message Count 0      = heartbeat:      no blocks, Sequence Number = next expected
 * Message Count 0xFFFF = end of session: no blocks, Sequence Number = next expected
 *
 * Request packet (listener to re-request server), exactly 20 bytes:
 * +-------------------+---------------------------+-------------+
 * | Session (10)      | first wanted (u64)        | count (u16) |
 * +-------------------+---------------------------+-------------+
 * </pre>
 */
public final class MoldUDP64Layout {
    /** Offset of the session. */
    public static final int SESSION_OFFSET = 0;
    /** Length of the session. */
    public static final int SESSION_LENGTH = 10;
    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 10;
    /** Offset of the message count. */
    public static final int COUNT_OFFSET = 18;
    /** Length of the downstream header, and of a whole request. */
    public static final int HEADER_LENGTH = 20;
    /** Length of a request packet. */
    public static final int REQUEST_LENGTH = 20;
    /** Length of a message block's length field. */
    public static final int BLOCK_HEADER_LENGTH = 2;
    /** Message Count of a heartbeat. */
    public static final int HEARTBEAT = 0;
    /** Message Count of an end-of-session packet. */
    public static final int END_OF_SESSION = 0xFFFF;
    /** Most messages in one packet. */
    public static final int MAX_MESSAGE_COUNT = 0xFFFE;
    /** Longest message the length field can express. */
    public static final int MAX_MESSAGE_LENGTH = 0xFFFF;
    /** UDP payload that fits one 1500-byte Ethernet frame: 1500 - IPv4 20 - UDP 8. */
    public static final int ETHERNET_PACKET_LENGTH = 1472;
    /** Default payload after the header: {@link #ETHERNET_PACKET_LENGTH} - {@link #HEADER_LENGTH}. */
    public static final int DEFAULT_MAX_PAYLOAD = ETHERNET_PACKET_LENGTH - HEADER_LENGTH;

    /** A packet shorter than the header. */
    public static final int TOO_SHORT = -1;
    /** A message block runs past the end of the packet. */
    public static final int TRUNCATED = -2;
    /** Bytes follow the last message block (or a heartbeat / end of session). */
    public static final int TRAILING_BYTES = -3;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final byte SPACE = ' ';

    private MoldUDP64Layout() {
    }

    /**
     * Encodes a session name: printable ASCII, at most 10 characters, right-padded with spaces.
     *
     * @param name the name
     * @return its 10 bytes, in a native segment
     */
    public static MemorySegment session(final String name) {
        if (name == null || name.length() > SESSION_LENGTH) {
            throw new IllegalArgumentException("session=" + name + " must have at most " + SESSION_LENGTH + " characters");
        }
        final byte[] bytes = new byte[SESSION_LENGTH];
        Arrays.fill(bytes, SPACE);
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw new IllegalArgumentException("session=" + name + " must be printable ASCII");
            }
            bytes[i] = (byte)c;
        }
        return MemorySegment.ofArray(bytes);
    }

    /**
     * Decodes a session for display, trailing spaces removed.
     *
     * @param buffer memory holding it
     * @param offset where the 10 bytes start
     * @return the name
     */
    public static String sessionName(final MemorySegment buffer, final long offset) {
        final byte[] bytes = buffer.asSlice(offset, SESSION_LENGTH).toArray(ValueLayout.JAVA_BYTE);
        return new String(bytes, StandardCharsets.ISO_8859_1).stripTrailing();
    }

    /**
     * Whether the 10 bytes at {@code offset} are {@code session}; allocates nothing.
     *
     * @param buffer the packet
     * @param offset where its session starts
     * @param session an encoded session
     * @return true if equal
     */
    public static boolean sessionEquals(final MemorySegment buffer, final long offset, final MemorySegment session) {
        return MemorySegment.mismatch(buffer, offset, offset + SESSION_LENGTH, session, 0, SESSION_LENGTH) == -1;
    }

    /**
     * Writes a header.
     *
     * @param buffer where to write
     * @param offset where the packet starts
     * @param session an encoded session
     * @param sequence the first message's (or next expected) sequence number
     * @param count the message count, {@link #HEARTBEAT} or {@link #END_OF_SESSION}
     */
    public static void putHeader(final MemorySegment buffer, final long offset, final MemorySegment session,
        final long sequence, final int count) {
        MemorySegment.copy(session, 0, buffer, offset + SESSION_OFFSET, SESSION_LENGTH);
        putSequence(buffer, offset, sequence);
        putCount(buffer, offset, count);
    }

    /**
     * Reads the sequence number of the packet at {@code offset}.
     *
     * @param buffer the packet's memory
     * @param offset where it starts
     * @return the sequence number, unsigned (a value above {@link Long#MAX_VALUE} reads negative)
     */
    public static long sequence(final MemorySegment buffer, final long offset) {
        return buffer.get(U64, offset + SEQUENCE_OFFSET);
    }

    /**
     * Writes the sequence number of the packet at {@code offset}.
     *
     * @param buffer the packet's memory
     * @param offset where it starts
     * @param sequence the value
     */
    public static void putSequence(final MemorySegment buffer, final long offset, final long sequence) {
        buffer.set(U64, offset + SEQUENCE_OFFSET, sequence);
    }

    /**
     * Reads the message count (of a downstream packet or a request) at {@code offset}.
     *
     * @param buffer the packet's memory
     * @param offset where it starts
     * @return 0 to 65 535
     */
    public static int count(final MemorySegment buffer, final long offset) {
        return Short.toUnsignedInt(buffer.get(U16, offset + COUNT_OFFSET));
    }

    /**
     * Writes the message count of the packet at {@code offset}.
     *
     * @param buffer the packet's memory
     * @param offset where it starts
     * @param count 0 to 65 535
     */
    public static void putCount(final MemorySegment buffer, final long offset, final int count) {
        buffer.set(U16, offset + COUNT_OFFSET, (short)count);
    }

    /**
     * Reads a message block's length.
     *
     * @param buffer the packet's memory
     * @param blockOffset where the block starts
     * @return 0 to 65 535
     */
    public static int messageLength(final MemorySegment buffer, final long blockOffset) {
        return Short.toUnsignedInt(buffer.get(U16, blockOffset));
    }

    /**
     * Writes a message block's length.
     *
     * @param buffer the packet's memory
     * @param blockOffset where the block starts
     * @param length 0 to 65 535
     */
    public static void putMessageLength(final MemorySegment buffer, final long blockOffset, final int length) {
        buffer.set(U16, blockOffset, (short)length);
    }

    /**
     * Writes a request.
     *
     * @param buffer where to write
     * @param offset where it starts
     * @param session an encoded session
     * @param sequence the first message wanted
     * @param count how many, 1 to 65 535
     */
    public static void putRequest(final MemorySegment buffer, final long offset, final MemorySegment session,
        final long sequence, final int count) {
        putHeader(buffer, offset, session, sequence, count);
    }

    /**
     * Checks a downstream packet's structure: the header is whole and the message blocks fill the packet
     * exactly. Call before acting on any of it.
     *
     * @param buffer the packet's memory
     * @param offset where it starts
     * @param length its length
     * @return the number of messages (0 for heartbeat and end of session), or {@link #TOO_SHORT},
     *     {@link #TRUNCATED}, {@link #TRAILING_BYTES}
     */
    public static int validate(final MemorySegment buffer, final long offset, final int length) {
        if (length < HEADER_LENGTH) {
            return TOO_SHORT;
        }
        final int count = count(buffer, offset);
        if (count == END_OF_SESSION || count == HEARTBEAT) {
            return length == HEADER_LENGTH ? 0 : TRAILING_BYTES;
        }
        final long end = offset + length;
        long position = offset + HEADER_LENGTH;
        for (int i = 0; i < count; i++) {
            if (position + BLOCK_HEADER_LENGTH > end) {
                return TRUNCATED;
            }
            position += BLOCK_HEADER_LENGTH + messageLength(buffer, position);
            if (position > end) {
                return TRUNCATED;
            }
        }
        return position == end ? count : TRAILING_BYTES;
    }
}
