package dev.peregrine.soup;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The SoupBinTCP 3.00 wire layout. A {@link dev.peregrine.tcp.TcpTransport} framed {@code length:2be} carries
 * it: the transport strips the 2-byte big-endian Packet Length, and a frame is the Packet Type and the payload.
 *
 * <pre>
 * Logical packet:
 *  0               2      3
 * +---------------+------+------------------------------+
 * | Packet Length | Type | Payload, Packet Length - 1   |
 * | u16 BE        | 1    |                              |
 * +---------------+------+------------------------------+
 *
 * Login Request ('L'), payload 46 bytes:
 *  0          6                16               26                         46
 * +----------+----------------+----------------+--------------------------+
 * | Username | Password       | Requested      | Requested Sequence       |
 * | 6, right-| 10, right-     | Session 10,    | Number 20, ASCII digits, |
 * | padded   | padded         | left-padded    | left-padded              |
 * +----------+----------------+----------------+--------------------------+
 *
 * Login Accepted ('A'), payload 30 bytes:
 *  0                10                         30
 * +----------------+--------------------------+
 * | Session 10,    | Sequence Number 20,      |
 * | left-padded    | digits, left-padded      |
 * +----------------+--------------------------+
 *
 * Login Rejected ('J'), payload 1 byte: 'A' not authorized, 'S' session not available.
 * Sequenced Data ('S'), Unsequenced Data ('U'), Debug ('+'): the message.
 * Server Heartbeat ('H'), End of Session ('Z'), Client Heartbeat ('R'), Logout Request ('O'): no payload.
 * </pre>
 *
 * <p>Padding is spaces, on the side the table gives and nowhere else; numbers are ASCII digits only. The parsers
 * here accept exactly that and say what they refused.
 */
public final class SoupBinTcpLayout {
    /** Debug, either way. */
    public static final byte DEBUG = '+';
    /** Login Accepted, server to client. */
    public static final byte LOGIN_ACCEPTED = 'A';
    /** Login Rejected, server to client. */
    public static final byte LOGIN_REJECTED = 'J';
    /** Sequenced Data, server to client. */
    public static final byte SEQUENCED_DATA = 'S';
    /** Server Heartbeat. */
    public static final byte SERVER_HEARTBEAT = 'H';
    /** End of Session, server to client. */
    public static final byte END_OF_SESSION = 'Z';
    /** Login Request, client to server. */
    public static final byte LOGIN_REQUEST = 'L';
    /** Unsequenced Data, client to server. */
    public static final byte UNSEQUENCED_DATA = 'U';
    /** Client Heartbeat. */
    public static final byte CLIENT_HEARTBEAT = 'R';
    /** Logout Request, client to server. */
    public static final byte LOGOUT_REQUEST = 'O';

    /** Reject code: bad user name or password. */
    public static final byte REJECT_NOT_AUTHORIZED = 'A';
    /** Reject code: the requested session (or sequence number) is not available. */
    public static final byte REJECT_SESSION_NOT_AVAILABLE = 'S';

    /** Length of the Packet Length field. */
    public static final int LENGTH_FIELD_LENGTH = 2;
    /** Length of the Packet Type field. */
    public static final int TYPE_LENGTH = 1;
    /** Largest Packet Length (type + payload) the field can express. */
    public static final int MAX_PACKET_LENGTH = 0xFFFF;
    /** Longest message in Sequenced or Unsequenced Data. */
    public static final int MAX_MESSAGE_LENGTH = MAX_PACKET_LENGTH - TYPE_LENGTH;

    /** Username width. */
    public static final int USERNAME_LENGTH = 6;
    /** Password width. */
    public static final int PASSWORD_LENGTH = 10;
    /** Session width. */
    public static final int SESSION_LENGTH = 10;
    /** Sequence number width. */
    public static final int SEQUENCE_LENGTH = 20;
    /** Offset of the username in a Login Request payload. */
    public static final int LOGIN_USERNAME_OFFSET = 0;
    /** Offset of the password in a Login Request payload. */
    public static final int LOGIN_PASSWORD_OFFSET = 6;
    /** Offset of the requested session in a Login Request payload. */
    public static final int LOGIN_SESSION_OFFSET = 16;
    /** Offset of the requested sequence number in a Login Request payload. */
    public static final int LOGIN_SEQUENCE_OFFSET = 26;
    /** Login Request payload length. */
    public static final int LOGIN_REQUEST_LENGTH = 46;
    /** Offset of the session in a Login Accepted payload. */
    public static final int ACCEPTED_SESSION_OFFSET = 0;
    /** Offset of the sequence number in a Login Accepted payload. */
    public static final int ACCEPTED_SEQUENCE_OFFSET = 10;
    /** Login Accepted payload length. */
    public static final int LOGIN_ACCEPTED_LENGTH = 30;

    private static final byte SPACE = ' ';

    private SoupBinTcpLayout() {
    }

    /**
     * Writes text left-justified in a field, right-padded with spaces.
     *
     * @param buffer where to write
     * @param offset where the field starts
     * @param width the field's width
     * @param text at most {@code width} printable ASCII characters
     */
    public static void putLeft(final MemorySegment buffer, final long offset, final int width, final String text) {
        checkText(width, text);
        for (int i = 0; i < width; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, offset + i, i < text.length() ? (byte)text.charAt(i) : SPACE);
        }
    }

    /**
     * Writes text right-justified in a field, left-padded with spaces.
     *
     * @param buffer where to write
     * @param offset where the field starts
     * @param width the field's width
     * @param text at most {@code width} printable ASCII characters
     */
    public static void putRight(final MemorySegment buffer, final long offset, final int width, final String text) {
        checkText(width, text);
        final int pad = width - text.length();
        for (int i = 0; i < width; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, offset + i, i < pad ? SPACE : (byte)text.charAt(i - pad));
        }
    }

    /**
     * Writes a number right-justified in a 20-byte field, left-padded with spaces; allocates nothing.
     *
     * @param buffer where to write
     * @param offset where the field starts
     * @param value at least 0
     */
    public static void putSequence(final MemorySegment buffer, final long offset, final long value) {
        if (value < 0) {
            throw new IllegalArgumentException("sequence=" + value + " must be at least 0");
        }
        long rest = value;
        for (int i = SEQUENCE_LENGTH - 1; i >= 0; i--) {
            final byte digit = (byte)('0' + rest % 10);
            buffer.set(ValueLayout.JAVA_BYTE, offset + i, rest == 0 && i < SEQUENCE_LENGTH - 1 ? SPACE : digit);
            rest /= 10;
        }
    }

    /**
     * Parses a 20-byte sequence number field: spaces, then one digit or more, nothing else.
     *
     * @param buffer the packet
     * @param offset where the field starts
     * @return the number, or -1 if the field is not that (or the number exceeds {@link Long#MAX_VALUE})
     */
    public static long parseSequence(final MemorySegment buffer, final long offset) {
        int i = 0;
        while (i < SEQUENCE_LENGTH && buffer.get(ValueLayout.JAVA_BYTE, offset + i) == SPACE) {
            i++;
        }
        if (i == SEQUENCE_LENGTH) {
            return -1;
        }
        long value = 0;
        for (; i < SEQUENCE_LENGTH; i++) {
            final int digit = buffer.get(ValueLayout.JAVA_BYTE, offset + i) - '0';
            if (digit < 0 || digit > 9 || value > (Long.MAX_VALUE - digit) / 10) {
                return -1;
            }
            value = value * 10 + digit;
        }
        return value;
    }

    /**
     * Why a left-justified field (text, then spaces) is malformed, or null: the text is of {@code allowed}
     * characters, and no space comes before it or inside it.
     *
     * @param buffer the packet
     * @param offset where the field starts
     * @param width its width
     * @param alphanumericOnly whether only letters and digits may appear, else any printable ASCII but space
     * @return the reason, or null
     */
    public static String leftJustifiedFault(final MemorySegment buffer, final long offset, final int width,
        final boolean alphanumericOnly) {
        boolean padding = false;
        for (int i = 0; i < width; i++) {
            final byte b = buffer.get(ValueLayout.JAVA_BYTE, offset + i);
            if (b == SPACE) {
                padding = true;
            } else if (padding) {
                return "a space before character " + i + " (padding goes on the right)";
            } else if (!allowed(b, alphanumericOnly)) {
                return "byte 0x" + Integer.toHexString(b & 0xFF) + " at " + i;
            }
        }
        return null;
    }

    /**
     * Why a right-justified field (spaces, then text) is malformed, or null.
     *
     * @param buffer the packet
     * @param offset where the field starts
     * @param width its width
     * @return the reason, or null; the text is letters and digits
     */
    public static String rightJustifiedFault(final MemorySegment buffer, final long offset, final int width) {
        boolean text = false;
        for (int i = 0; i < width; i++) {
            final byte b = buffer.get(ValueLayout.JAVA_BYTE, offset + i);
            if (b == SPACE) {
                if (text) {
                    return "a space at " + i + " after the text (padding goes on the left)";
                }
            } else if (!allowed(b, true)) {
                return "byte 0x" + Integer.toHexString(b & 0xFF) + " at " + i;
            } else {
                text = true;
            }
        }
        return null;
    }

    /**
     * The text of a field without its padding.
     *
     * @param buffer the packet
     * @param offset where the field starts
     * @param width its width
     * @return the text, possibly empty
     */
    public static String text(final MemorySegment buffer, final long offset, final int width) {
        final StringBuilder text = new StringBuilder(width);
        for (int i = 0; i < width; i++) {
            final byte b = buffer.get(ValueLayout.JAVA_BYTE, offset + i);
            if (b != SPACE) {
                text.append((char)(b & 0xFF));
            }
        }
        return text.toString();
    }

    /**
     * A packet type as text for a close reason: the character if printable, else its hex value.
     *
     * @param type the type byte
     * @return e.g. {@code 'Q'} or {@code 0x07}
     */
    public static String typeName(final byte type) {
        return type > 0x20 && type < 0x7F ? "'" + (char)type + "'" : "0x" + Integer.toHexString(type & 0xFF);
    }

    private static boolean allowed(final byte b, final boolean alphanumericOnly) {
        if (alphanumericOnly) {
            return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z';
        }
        return b > 0x20 && b < 0x7F;
    }

    private static void checkText(final int width, final String text) {
        if (text == null || text.length() > width) {
            throw new IllegalArgumentException("text=" + text + " must have at most " + width + " characters");
        }
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                throw new IllegalArgumentException("text=" + text + " has character 0x" + Integer.toHexString(c)
                    + " at " + i + "; only printable ASCII without spaces fits a SoupBinTCP field");
            }
        }
    }
}
