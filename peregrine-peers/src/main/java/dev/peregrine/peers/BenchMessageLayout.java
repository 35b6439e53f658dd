package dev.peregrine.peers;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The benchmark's message and reply, as every transport carries them (after its own framing):
 *
 * <pre>
 *   message and reply both at least 8 bytes:     either shorter than 8 bytes (bench pingpong only):
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+   +-----------------------------------+
 *  |              sequence number (int64, little-endian)           |   | sequence, low 32 bits (int32, LE) |
 *  |                                                               |   +-----------------------------------+
 *  +---------------------------------------------------------------+   |  padding up to the size          ...
 *  |              padding up to the message or reply size         ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The field is {@link BenchConfig#sequenceLength()} bytes, the same on both sides of a run: a responder
 * copies that many bytes of the message into its reply (or echoes the message whole), so the reply carries the
 * field as the message did. Nothing else in a message is read: the client keeps each send time itself, which
 * with one message in flight (or with a schedule indexed by sequence) it knows without help from the wire.
 *
 * <p>A 32-bit field still tells a wrong or stale echo apart: the client {@linkplain #widen widens} the echoed
 * low 32 bits to the sequence nearest the last one it sent, which differs from the one expected unless the low
 * bits are equal. Little-endian, so the low 32 bits of a 64-bit field are its first four bytes, and a copy of
 * four bytes of an 8-byte field is the 32-bit field.
 *
 * <p>Stateless; every accessor is absolute and ignores the byte order a {@link ByteBuffer} is set to.
 */
public final class BenchMessageLayout {
    /** Bytes of the full sequence field. */
    public static final int LONG_SEQUENCE_LENGTH = Long.BYTES;
    /** Bytes of the short sequence field: the low 32 bits. */
    public static final int SHORT_SEQUENCE_LENGTH = Integer.BYTES;

    private static final long LOW_32_BITS = 0xFFFF_FFFFL;
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong SEGMENT_LONG_LE =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt SEGMENT_INT_LE =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private BenchMessageLayout() {
    }

    /**
     * The length of the sequence field for a message and its reply.
     *
     * @param size the message size
     * @param replySize the reply size
     * @return {@link #LONG_SEQUENCE_LENGTH} if both hold it, else {@link #SHORT_SEQUENCE_LENGTH}
     */
    public static int sequenceLength(final int size, final int replySize) {
        return Math.min(size, replySize) >= LONG_SEQUENCE_LENGTH ? LONG_SEQUENCE_LENGTH : SHORT_SEQUENCE_LENGTH;
    }

    /**
     * The sequence number as the client knows it, from the field an echo carried.
     *
     * @param field the field as read by one of the {@code sequence} methods here (non-negative)
     * @param lastSent the last sequence number the client sent
     * @param sequenceLength the field's length
     * @return {@code field} for a 64-bit field; for a 32-bit one the non-negative sequence nearest
     *     {@code lastSent} with those low 32 bits, which is {@code lastSent} itself only if the low bits match
     */
    public static long widen(final long field, final long lastSent, final int sequenceLength) {
        if (sequenceLength == LONG_SEQUENCE_LENGTH) {
            return field;
        }
        final long nearest = lastSent + (int)(field - lastSent);
        return nearest < 0 ? field : nearest; // near zero a wrong echo stays wrong, and never looks like "none"
    }

    /**
     * Writes the sequence field.
     *
     * @param bytes the array
     * @param offset where the message starts
     * @param sequenceLength the field's length
     * @param sequence the sequence number
     */
    public static void putSequence(final byte[] bytes, final int offset, final int sequenceLength, final long sequence) {
        if (sequenceLength == LONG_SEQUENCE_LENGTH) {
            LONG_LE.set(bytes, offset, sequence);
        } else {
            INT_LE.set(bytes, offset, (int) sequence);
        }
    }

    /**
     * Reads the sequence field.
     *
     * @param bytes the array
     * @param offset where the message starts
     * @param sequenceLength the field's length
     * @return the field; a 32-bit one unsigned, so never negative
     */
    public static long sequence(final byte[] bytes, final int offset, final int sequenceLength) {
        return sequenceLength == LONG_SEQUENCE_LENGTH ? (long) LONG_LE.get(bytes, offset)
            : (int) INT_LE.get(bytes, offset) & LOW_32_BITS;
    }

    /**
     * Writes the sequence field.
     *
     * @param buffer the buffer (its position, limit and byte order are left alone)
     * @param index where the message starts
     * @param sequenceLength the field's length
     * @param sequence the sequence number
     */
    public static void putSequence(final ByteBuffer buffer, final int index, final int sequenceLength,
                                   final long sequence) {
        final boolean little = buffer.order() == ByteOrder.LITTLE_ENDIAN;
        if (sequenceLength == LONG_SEQUENCE_LENGTH) {
            buffer.putLong(index, little ? sequence : Long.reverseBytes(sequence));
        } else {
            buffer.putInt(index, little ? (int) sequence : Integer.reverseBytes((int) sequence));
        }
    }

    /**
     * Reads the sequence field.
     *
     * @param buffer the buffer (its position, limit and byte order are left alone)
     * @param index where the message starts
     * @param sequenceLength the field's length
     * @return the field; a 32-bit one unsigned, so never negative
     */
    public static long sequence(final ByteBuffer buffer, final int index, final int sequenceLength) {
        final boolean little = buffer.order() == ByteOrder.LITTLE_ENDIAN;
        if (sequenceLength == LONG_SEQUENCE_LENGTH) {
            final long value = buffer.getLong(index);
            return little ? value : Long.reverseBytes(value);
        }
        final int value = buffer.getInt(index);
        return (little ? value : Integer.reverseBytes(value)) & LOW_32_BITS;
    }

    /**
     * Writes the sequence field.
     *
     * @param segment the memory
     * @param offset where the message starts
     * @param sequenceLength the field's length
     * @param sequence the sequence number
     */
    public static void putSequence(final MemorySegment segment, final long offset, final int sequenceLength,
                                   final long sequence) {
        if (sequenceLength == LONG_SEQUENCE_LENGTH) {
            segment.set(SEGMENT_LONG_LE, offset, sequence);
        } else {
            segment.set(SEGMENT_INT_LE, offset, (int) sequence);
        }
    }

    /**
     * Reads the sequence field.
     *
     * @param segment the memory
     * @param offset where the message starts
     * @param sequenceLength the field's length
     * @return the field; a 32-bit one unsigned, so never negative
     */
    public static long sequence(final MemorySegment segment, final long offset, final int sequenceLength) {
        return sequenceLength == LONG_SEQUENCE_LENGTH ? segment.get(SEGMENT_LONG_LE, offset)
            : segment.get(SEGMENT_INT_LE, offset) & LOW_32_BITS;
    }
}
