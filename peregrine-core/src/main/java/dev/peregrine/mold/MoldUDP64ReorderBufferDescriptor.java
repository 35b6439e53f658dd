package dev.peregrine.mold;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Memory layout of a subscriber's reorder buffer: the packets that arrived past a gap, kept until the gap
 * is filled, and an index that finds each of their messages by sequence number. One off-heap segment,
 * made when the subscriber is created, native byte order, never resized.
 *
 * <pre>
 *  0                                                           index capacity * 16
 * +-----------------------------------------------------------+
 * | index: one 16-byte entry per sequence number, at           |
 * |        (sequence &amp; (index capacity - 1)) * 16              |
 * |  0          8          12              14          16     |
 * | +----------+----------+---------------+-----------+       |
 * | | sequence | slot     | data offset   | length    |       |
 * | | (8)      | (4)      | in slot (u16) | (u16)     |       |
 * | +----------+----------+---------------+-----------+       |
 * +-----------------------------------------------------------+
 * | slots: slot count slots of slot length bytes; each holds    |
 * |        one downstream packet copied whole, header included |
 * | +----------------------+----------------------+-----+     |
 * | | slot 0: packet ...   | slot 1: packet ...   | ... |     |
 * | +----------------------+----------------------+-----+     |
 * +-----------------------------------------------------------+
 * </pre>
 *
 * <p>An entry is live when its sequence field equals the sequence number looked up; a free entry holds
 * {@link #NO_SEQUENCE}, which no message has (numbers start at 1). Live entries always lie within one
 * index capacity of the next expected message, so two live messages never share an entry. A slot is free
 * again once none of its messages is live (a reference count per slot, kept on the heap beside the segment).
 */
final class MoldUDP64ReorderBufferDescriptor {
    /** Length of one index entry. */
    public static final int ENTRY_LENGTH = 16;
    /** Offset of the sequence number in an entry. */
    public static final int SEQUENCE_OFFSET = 0;
    /** Offset of the slot number in an entry. */
    public static final int SLOT_OFFSET = 8;
    /** Offset of the message data's offset in its slot, unsigned 16 bits. */
    public static final int DATA_OFFSET_OFFSET = 12;
    /** Offset of the message length, unsigned 16 bits. */
    public static final int LENGTH_OFFSET = 14;
    /** Index entries per slot: room for 32 messages per buffered packet on average. */
    public static final int ENTRIES_PER_SLOT = 32;
    /** Fewest index entries. */
    public static final int MIN_INDEX_CAPACITY = 64;
    /** The sequence field of a free entry. */
    public static final long NO_SEQUENCE = 0;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;

    private MoldUDP64ReorderBufferDescriptor() {
    }

    /**
     * The index capacity for a number of slots: a power of two.
     *
     * @param slotCount the slots
     * @return the entries
     */
    public static int indexCapacity(final int slotCount) {
        final long wanted = Math.max(MIN_INDEX_CAPACITY, (long)slotCount * ENTRIES_PER_SLOT);
        if (wanted > 1 << 30) {
            throw new IllegalArgumentException("slotCount=" + slotCount + " needs more than 2^30 index entries");
        }
        return Integer.highestOneBit((int)wanted - 1) << 1;
    }

    /**
     * The segment's length.
     *
     * @param indexCapacity entries
     * @param slotCount slots
     * @param slotLength bytes per slot
     * @return bytes
     */
    public static long length(final int indexCapacity, final int slotCount, final int slotLength) {
        return (long)indexCapacity * ENTRY_LENGTH + (long)slotCount * slotLength;
    }

    /**
     * Where an entry starts.
     *
     * @param indexMask index capacity - 1
     * @param sequence the message's sequence number
     * @return its offset in the segment
     */
    public static long entryOffset(final int indexMask, final long sequence) {
        return (sequence & indexMask) * ENTRY_LENGTH;
    }

    /**
     * Where a slot starts.
     *
     * @param indexCapacity entries
     * @param slotLength bytes per slot
     * @param slot the slot number
     * @return its offset in the segment
     */
    public static long slotOffset(final int indexCapacity, final int slotLength, final int slot) {
        return (long)indexCapacity * ENTRY_LENGTH + (long)slot * slotLength;
    }

    /**
     * Reads an entry's sequence number.
     *
     * @param segment the buffer
     * @param entry the entry's offset
     * @return the number, or {@link #NO_SEQUENCE}
     */
    public static long sequence(final MemorySegment segment, final long entry) {
        return segment.get(LONG, entry + SEQUENCE_OFFSET);
    }

    /**
     * Reads an entry's slot.
     *
     * @param segment the buffer
     * @param entry the entry's offset
     * @return the slot number
     */
    public static int slot(final MemorySegment segment, final long entry) {
        return segment.get(INT, entry + SLOT_OFFSET);
    }

    /**
     * Reads where an entry's message data starts in its slot.
     *
     * @param segment the buffer
     * @param entry the entry's offset
     * @return the offset from the slot's start
     */
    public static int dataOffset(final MemorySegment segment, final long entry) {
        return Short.toUnsignedInt(segment.get(SHORT, entry + DATA_OFFSET_OFFSET));
    }

    /**
     * Reads an entry's message length.
     *
     * @param segment the buffer
     * @param entry the entry's offset
     * @return 0 to 65 535
     */
    public static int length(final MemorySegment segment, final long entry) {
        return Short.toUnsignedInt(segment.get(SHORT, entry + LENGTH_OFFSET));
    }

    /**
     * Writes a live entry.
     *
     * @param segment the buffer
     * @param entry the entry's offset
     * @param sequence the message's sequence number
     * @param slot its slot
     * @param dataOffset where its data starts in the slot
     * @param length its length
     */
    public static void putEntry(final MemorySegment segment, final long entry, final long sequence, final int slot,
        final int dataOffset, final int length) {
        segment.set(INT, entry + SLOT_OFFSET, slot);
        segment.set(SHORT, entry + DATA_OFFSET_OFFSET, (short)dataOffset);
        segment.set(SHORT, entry + LENGTH_OFFSET, (short)length);
        segment.set(LONG, entry + SEQUENCE_OFFSET, sequence);
    }

    /**
     * Frees an entry.
     *
     * @param segment the buffer
     * @param entry the entry's offset
     */
    public static void clearEntry(final MemorySegment segment, final long entry) {
        segment.set(LONG, entry + SEQUENCE_OFFSET, NO_SEQUENCE);
    }
}
