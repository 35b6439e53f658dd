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
    private final int width;
    private final boolean countsItself;
    private final int adjustment;
    private final int maxFrameLength;
    private final ValueLayout.OfShort shortLayout;
    private final ValueLayout.OfInt intLayout;
    private final ValueLayout.OfLong longLayout;
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
        this.shortLayout = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order);
        this.intLayout = ValueLayout.JAVA_INT_UNALIGNED.withOrder(order);
        this.longLayout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order);
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
            case 2 -> buffer.set(shortLayout, offset, (short)field);
            case 4 -> buffer.set(intLayout, offset, (int)field);
            default -> buffer.set(longLayout, offset, field);
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
            case 2 -> buffer.get(shortLayout, offset) & 0xFFFFL;
            case 4 -> buffer.get(intLayout, offset) & 0xFFFF_FFFFL;
            default -> buffer.get(longLayout, offset);
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
