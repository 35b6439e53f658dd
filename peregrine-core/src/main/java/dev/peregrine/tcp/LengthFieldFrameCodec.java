package dev.peregrine.tcp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A length field of 1, 2, 4 or 8 bytes, big- or little-endian, before each payload; the field counts
 * the payload only, or the payload and itself.
 *
 * <pre>
 *  0               width                    width + payload
 *  +---------------+------------------------+
 *  | length field  | payload                |   field = payload, or payload + width when it counts itself
 *  +---------------+------------------------+
 * </pre>
 *
 * <p>Fields of 1, 2 and 4 bytes are unsigned; an 8-byte field is signed and a negative value is
 * malformed. The maximum frame length is capped to what the field can express.
 */
final class LengthFieldFrameCodec implements FrameCodec {
    // constants, so that each access compiles to a plain load or store: a layout held in an instance field is
    // not constant to the JIT, and every access then goes through the VarHandle's generic, uninlined path
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private final int width;
    private final boolean countsItself;
    private final int adjustment;
    private final int maxFrameLength;
    /** Whether the field's byte order differs from the native order of {@link #SHORT}, {@link #INT}, {@link #LONG}. */
    private final boolean swap;
    private String failure;

    LengthFieldFrameCodec(final int width, final ByteOrder order, final boolean countsItself, final int maxFrameLength) {
        if (width != 1 && width != 2 && width != 4 && width != 8) {
            throw new IllegalArgumentException("width=" + width + " must be 1, 2, 4 or 8");
        }
        if (maxFrameLength < 1) {
            throw new IllegalArgumentException("maxFrameLength=" + maxFrameLength);
        }
        this.width = width;
        this.countsItself = countsItself;
        this.adjustment = countsItself ? width : 0;
        final long fieldMax = width >= 4 ? Integer.MAX_VALUE : (1L << (8 * width)) - 1;
        this.maxFrameLength = (int)Math.min(maxFrameLength, fieldMax - adjustment);
        this.swap = order != ByteOrder.nativeOrder();
    }

    @Override
    public int headerLength() {
        return width;
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    public void writeHeader(final MemorySegment buffer, final long offset, final int payloadLength) {
        final long field = (long)payloadLength + adjustment;
        switch (width) {
            case 1 -> buffer.set(ValueLayout.JAVA_BYTE, offset, (byte)field);
            case 2 -> buffer.set(SHORT, offset, swap ? Short.reverseBytes((short)field) : (short)field);
            case 4 -> buffer.set(INT, offset, swap ? Integer.reverseBytes((int)field) : (int)field);
            default -> buffer.set(LONG, offset, swap ? Long.reverseBytes(field) : field);
        }
    }

    @Override
    public int decode(final MemorySegment buffer, final long offset, final int length, final FrameSink sink) {
        int position = 0;
        while (length - position >= width) {
            final long field = readField(buffer, offset + position);
            if (field < adjustment) {
                failure = field < 0
                    ? "frame length " + field + " is negative"
                    : "frame length field " + field + " is smaller than the field itself (" + width + " bytes)";
                return MALFORMED;
            }
            final long payloadLength = field - adjustment;
            if (payloadLength > maxFrameLength) {
                failure = FrameCodec.tooLong(payloadLength, maxFrameLength);
                return MALFORMED;
            }
            if (length - position - width < payloadLength) {
                break;
            }
            final boolean more = sink.onFrame(buffer, offset + position + width, (int)payloadLength);
            position += width + (int)payloadLength;
            if (!more) {
                break;
            }
        }
        return position;
    }

    private long readField(final MemorySegment buffer, final long offset) {
        return switch (width) {
            case 1 -> buffer.get(ValueLayout.JAVA_BYTE, offset) & 0xFFL;
            case 2 -> (swap ? Short.reverseBytes(buffer.get(SHORT, offset)) : buffer.get(SHORT, offset)) & 0xFFFFL;
            case 4 -> (swap ? Integer.reverseBytes(buffer.get(INT, offset)) : buffer.get(INT, offset)) & 0xFFFF_FFFFL;
            default -> swap ? Long.reverseBytes(buffer.get(LONG, offset)) : buffer.get(LONG, offset);
        };
    }

    @Override
    public String failure() {
        return failure;
    }

    @Override
    public void reset() {
        failure = null;
    }

    boolean countsItself() {
        return countsItself;
    }
}
