package dev.peregrine.tcp;

import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Locale;

/**
 * How messages are delimited on a TCP byte stream: an immutable description, turned into one codec per
 * connection. Written and parsed in a short text form, used by the command line:
 *
 * <table>
 *   <caption>framing specifications</caption>
 *   <tr><th>spec</th><th>meaning</th></tr>
 *   <tr><td>{@code raw}</td><td>no framing: bytes as they arrive (chunks of at most the maximum)</td></tr>
 *   <tr><td>{@code fixed:N}</td><td>every frame is exactly N bytes</td></tr>
 *   <tr><td>{@code length:W(be|le)[+self]}</td><td>a W-byte (1, 2, 4 or 8) big- or little-endian length
 *       field before each payload; {@code +self} when the field counts its own bytes too, e.g.
 *       {@code length:2be}, {@code length:4le}, {@code length:8be+self}</td></tr>
 *   <tr><td>{@code line}</td><td>terminated by {@code \n}</td></tr>
 *   <tr><td>{@code crlf}</td><td>terminated by {@code \r\n}</td></tr>
 *   <tr><td>{@code delimiter:HEX}</td><td>terminated by any byte pattern, e.g. {@code delimiter:00} or
 *       {@code delimiter:0d0a}</td></tr>
 * </table>
 */
public final class Framing {
    /** Help text listing the specifications, for command lines. */
    public static final String SPEC_HELP = "raw | fixed:N | length:W(be|le)[+self] with W in 1,2,4,8 "
        + "(e.g. length:2be, length:4le, length:8be+self) | line | crlf | delimiter:HEX (e.g. delimiter:0d0a)";

    private enum Kind { RAW, FIXED, LENGTH, DELIMITER }

    private final Kind kind;
    private final int fixedLength;
    private final int width;
    private final ByteOrder order;
    private final boolean countsItself;
    private final byte[] delimiter;
    private final String spec;

    private Framing(final Kind kind, final int fixedLength, final int width, final ByteOrder order,
        final boolean countsItself, final byte[] delimiter, final String spec) {
        this.kind = kind;
        this.fixedLength = fixedLength;
        this.width = width;
        this.order = order;
        this.countsItself = countsItself;
        this.delimiter = delimiter;
        this.spec = spec;
    }

    /**
     * No framing: each read is delivered as it came, in chunks of at most the maximum frame length.
     *
     * @return the framing
     */
    public static Framing raw() {
        return new Framing(Kind.RAW, 0, 0, null, false, null, "raw");
    }

    /**
     * Frames of exactly {@code length} bytes; the maximum frame length is this length.
     *
     * @param length at least 1
     * @return the framing
     */
    public static Framing fixed(final int length) {
        if (length < 1) {
            throw new IllegalArgumentException("length=" + length + " must be at least 1");
        }
        return new Framing(Kind.FIXED, length, 0, null, false, null, "fixed:" + length);
    }

    /**
     * A length field before each payload.
     *
     * @param width 1, 2, 4 or 8 bytes
     * @param order byte order of the field
     * @param countsItself whether the field's value includes the field's own bytes
     * @return the framing
     */
    public static Framing lengthPrefixed(final int width, final ByteOrder order, final boolean countsItself) {
        if (width != 1 && width != 2 && width != 4 && width != 8) {
            throw new IllegalArgumentException("width=" + width + " must be 1, 2, 4 or 8");
        }
        if (order == null) {
            throw new IllegalArgumentException("order=null");
        }
        final String name = "length:" + width + (order == ByteOrder.BIG_ENDIAN ? "be" : "le") + (countsItself ? "+self" : "");
        return new Framing(Kind.LENGTH, 0, width, order, countsItself, null, name);
    }

    /**
     * Frames terminated by {@code \n}.
     *
     * @return the framing
     */
    public static Framing line() {
        return new Framing(Kind.DELIMITER, 0, 0, null, false, new byte[] {'\n'}, "line");
    }

    /**
     * Frames terminated by {@code \r\n}.
     *
     * @return the framing
     */
    public static Framing crlf() {
        return new Framing(Kind.DELIMITER, 0, 0, null, false, new byte[] {'\r', '\n'}, "crlf");
    }

    /**
     * Frames terminated by a byte pattern.
     *
     * @param delimiter at least one byte
     * @return the framing
     */
    public static Framing delimiter(final byte[] delimiter) {
        if (delimiter == null || delimiter.length == 0) {
            throw new IllegalArgumentException("delimiter must have at least one byte");
        }
        return new Framing(Kind.DELIMITER, 0, 0, null, false, delimiter.clone(),
            "delimiter:" + HexFormat.of().formatHex(delimiter));
    }

    /**
     * Parses the text form described in the class comment.
     *
     * @param spec e.g. {@code length:4le}
     * @return the framing
     * @throws IllegalArgumentException naming the spec and the accepted forms if it is not one
     */
    public static Framing parse(final String spec) {
        if (spec == null) {
            throw new IllegalArgumentException("framing=null; expected " + SPEC_HELP);
        }
        final String text = spec.trim().toLowerCase(Locale.ROOT);
        try {
            if (text.equals("raw")) {
                return raw();
            }
            if (text.equals("line")) {
                return line();
            }
            if (text.equals("crlf")) {
                return crlf();
            }
            if (text.startsWith("fixed:")) {
                return fixed(number("length", text.substring("fixed:".length())));
            }
            if (text.startsWith("delimiter:")) {
                return delimiter(hex(text.substring("delimiter:".length())));
            }
            if (text.startsWith("length:")) {
                String rest = text.substring("length:".length());
                final boolean self = rest.endsWith("+self");
                if (self) {
                    rest = rest.substring(0, rest.length() - "+self".length());
                }
                final ByteOrder order;
                if (rest.endsWith("be")) {
                    order = ByteOrder.BIG_ENDIAN;
                } else if (rest.endsWith("le")) {
                    order = ByteOrder.LITTLE_ENDIAN;
                } else {
                    throw new IllegalArgumentException("byte order must be be or le");
                }
                return lengthPrefixed(number("width", rest.substring(0, rest.length() - 2)), order, self);
            }
        } catch (final IllegalArgumentException ex) {
            throw new IllegalArgumentException("framing=" + spec + " is invalid (" + ex.getMessage() + "); expected "
                + SPEC_HELP, ex);
        }
        throw new IllegalArgumentException("framing=" + spec + " is unknown; expected " + SPEC_HELP);
    }

    private static int number(final String name, final String text) {
        try {
            return Integer.parseInt(text);
        } catch (final NumberFormatException ex) {
            throw new IllegalArgumentException(name + "=" + text + " is not a whole number up to " + Integer.MAX_VALUE, ex);
        }
    }

    private static byte[] hex(final String text) {
        try {
            return HexFormat.of().parseHex(text);
        } catch (final IllegalArgumentException ex) {
            throw new IllegalArgumentException("delimiter=" + text + " is not hexadecimal bytes (two digits a byte, e.g."
                + " 0d0a)", ex);
        }
    }

    /**
     * The longest payload this framing can carry, given a configured maximum: a fixed framing carries
     * exactly its length, a length field caps what it can express.
     *
     * @param maxFrameLength the configured maximum
     * @return the effective maximum
     */
    public int effectiveMaxFrameLength(final int maxFrameLength) {
        return newCodec(maxFrameLength).maxFrameLength();
    }

    /**
     * Bytes the framing adds around each payload (header plus trailer).
     *
     * @return the overhead in bytes
     */
    public int overhead() {
        return switch (kind) {
            case RAW, FIXED -> 0;
            case LENGTH -> width;
            case DELIMITER -> delimiter.length;
        };
    }

    FrameCodec newCodec(final int maxFrameLength) {
        return switch (kind) {
            case RAW -> new RawFrameCodec(maxFrameLength);
            case FIXED -> new FixedLengthFrameCodec(fixedLength);
            case LENGTH -> new LengthFieldFrameCodec(width, order, countsItself, maxFrameLength);
            case DELIMITER -> new DelimiterFrameCodec(delimiter, maxFrameLength);
        };
    }

    /**
     * The text form, which {@link #parse} reads back.
     *
     * @return e.g. {@code length:8be+self}
     */
    @Override
    public String toString() {
        return spec;
    }

    @Override
    public boolean equals(final Object other) {
        return other instanceof Framing that && spec.equals(that.spec);
    }

    @Override
    public int hashCode() {
        return spec.hashCode();
    }
}
