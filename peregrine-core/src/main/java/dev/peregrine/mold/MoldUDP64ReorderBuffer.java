package dev.peregrine.mold;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A subscriber's reorder buffer ({@link MoldUDP64ReorderBufferDescriptor} holds the layout): packets that
 * arrived past a gap, copied whole into fixed slots, and an index of their messages by sequence number.
 * Made up front; storing, finding and releasing allocate nothing.
 *
 * <p>Not thread-safe: the subscriber's reactor thread.
 */
final class MoldUDP64ReorderBuffer implements AutoCloseable {
    private final Arena arena;
    private final MemorySegment segment;
    private final int indexCapacity;
    private final int indexMask;
    private final int slotLength;
    private final int slotCount;
    private final int[] references;
    private final int[] packetLength;
    private final boolean[] fromAnswer;
    private final int[] freeSlots;
    private int freeCount;
    /** Slots live packets may not take: kept for answers, so that recovery goes on while the feed fills the rest. */
    private final int answerReserve;
    private int messages;
    private long bytesUsed;
    private long bytesPeak;

    /**
     * Makes the buffer.
     *
     * @param bytes room for packets; {@code bytes / slotLength} slots (0 keeps nothing)
     * @param slotLength the longest packet kept
     * @param answerReserve slots that only re-request answers may take (at most an eighth of the slots are kept so)
     */
    MoldUDP64ReorderBuffer(final long bytes, final int slotLength, final int answerReserve) {
        final long slots = bytes / slotLength;
        if (slots > Integer.MAX_VALUE / MoldUDP64ReorderBufferDescriptor.ENTRIES_PER_SLOT) {
            throw new IllegalArgumentException("reorderBufferBytes=" + bytes + " is too large for slotLength=" + slotLength);
        }
        this.slotLength = slotLength;
        this.slotCount = (int)slots;
        this.answerReserve = Math.min(Math.max(answerReserve, 0), slotCount / 8);
        this.indexCapacity = MoldUDP64ReorderBufferDescriptor.indexCapacity(slotCount);
        this.indexMask = indexCapacity - 1;
        this.arena = Arena.ofShared(); // made on any thread, used on the reactor's
        this.segment = arena.allocate(MoldUDP64ReorderBufferDescriptor.length(indexCapacity, slotCount, slotLength), 64);
        this.references = new int[slotCount];
        this.packetLength = new int[slotCount];
        this.fromAnswer = new boolean[slotCount];
        this.freeSlots = new int[slotCount];
        clear();
    }

    /** Forgets everything (a new session). */
    void clear() {
        // a zeroed entry is free: its sequence field reads NO_SEQUENCE (0)
        segment.asSlice(0, (long)indexCapacity * MoldUDP64ReorderBufferDescriptor.ENTRY_LENGTH).fill((byte)0);
        for (int i = 0; i < slotCount; i++) {
            freeSlots[i] = slotCount - 1 - i;
            references[i] = 0;
        }
        freeCount = slotCount;
        messages = 0;
        bytesUsed = 0;
    }

    /**
     * How far past the next expected message a message may be and still be indexed.
     *
     * @return the index capacity
     */
    int window() {
        return indexCapacity;
    }

    /**
     * Copies a packet into a free slot; follow with {@link #put} for each of its messages kept, then
     * {@link #seal}.
     *
     * @param buffer the packet's memory
     * @param offset where it starts
     * @param length its length
     * @param answer whether it is a re-request answer
     * @return the slot, or -1 if no slot is free (for a live packet: none beyond the answers' reserve) or the packet
     *     is longer than a slot
     */
    int store(final MemorySegment buffer, final long offset, final int length, final boolean answer) {
        if (freeCount <= (answer ? 0 : answerReserve) || length > slotLength) {
            return -1;
        }
        final int slot = freeSlots[--freeCount];
        MemorySegment.copy(buffer, offset, segment, slotOffset(slot), length);
        references[slot] = 0;
        packetLength[slot] = length;
        fromAnswer[slot] = answer;
        return slot;
    }

    /**
     * Indexes one message of a stored packet.
     *
     * @param sequence its sequence number, not already live
     * @param slot the slot from {@link #store}
     * @param dataOffset where its data starts, from the packet's start
     * @param length its length
     */
    void put(final long sequence, final int slot, final int dataOffset, final int length) {
        MoldUDP64ReorderBufferDescriptor.putEntry(segment, MoldUDP64ReorderBufferDescriptor.entryOffset(indexMask, sequence),
            sequence, slot, dataOffset, length);
        references[slot]++;
        messages++;
    }

    /**
     * Ends the storing of a packet: a packet none of whose messages was indexed frees its slot at once.
     *
     * @param slot the slot from {@link #store}
     * @return true if the packet is kept
     */
    boolean seal(final int slot) {
        if (references[slot] == 0) {
            freeSlots[freeCount++] = slot;
            return false;
        }
        bytesUsed += packetLength[slot];
        bytesPeak = Math.max(bytesPeak, bytesUsed);
        return true;
    }

    /**
     * Whether a message is held.
     *
     * @param sequence its sequence number
     * @return true if live
     */
    boolean contains(final long sequence) {
        return messages > 0 && MoldUDP64ReorderBufferDescriptor.sequence(segment,
            MoldUDP64ReorderBufferDescriptor.entryOffset(indexMask, sequence)) == sequence;
    }

    /**
     * Where a held message's data starts in {@link #segment()}.
     *
     * @param sequence a live message
     * @return the offset
     */
    long dataOffset(final long sequence) {
        final long entry = MoldUDP64ReorderBufferDescriptor.entryOffset(indexMask, sequence);
        return slotOffset(MoldUDP64ReorderBufferDescriptor.slot(segment, entry))
            + MoldUDP64ReorderBufferDescriptor.dataOffset(segment, entry);
    }

    /**
     * A held message's length.
     *
     * @param sequence a live message
     * @return the length
     */
    int length(final long sequence) {
        return MoldUDP64ReorderBufferDescriptor.length(segment, MoldUDP64ReorderBufferDescriptor.entryOffset(indexMask, sequence));
    }

    /**
     * Whether a held message came in a re-request answer.
     *
     * @param sequence a live message
     * @return true if from an answer
     */
    boolean fromAnswer(final long sequence) {
        return fromAnswer[MoldUDP64ReorderBufferDescriptor.slot(segment, MoldUDP64ReorderBufferDescriptor.entryOffset(indexMask, sequence))];
    }

    /**
     * Lets a message go (delivered, or delivered from another copy); its slot is freed with its last message.
     *
     * @param sequence a live message
     */
    void release(final long sequence) {
        final long entry = MoldUDP64ReorderBufferDescriptor.entryOffset(indexMask, sequence);
        final int slot = MoldUDP64ReorderBufferDescriptor.slot(segment, entry);
        MoldUDP64ReorderBufferDescriptor.clearEntry(segment, entry);
        messages--;
        if (--references[slot] == 0) {
            freeSlots[freeCount++] = slot;
            bytesUsed -= packetLength[slot];
        }
    }

    /**
     * The memory the held messages are in; {@link #dataOffset} points into it.
     *
     * @return the segment
     */
    MemorySegment segment() {
        return segment;
    }

    /**
     * Messages held.
     *
     * @return the count
     */
    int messages() {
        return messages;
    }

    /**
     * Bytes of the packets held now.
     *
     * @return bytes
     */
    long bytesUsed() {
        return bytesUsed;
    }

    /**
     * Most bytes of packets held at once.
     *
     * @return bytes
     */
    long bytesPeak() {
        return bytesPeak;
    }

    /**
     * Room for packets: slot count times slot length.
     *
     * @return bytes
     */
    long capacity() {
        return (long)slotCount * slotLength;
    }

    private long slotOffset(final int slot) {
        return MoldUDP64ReorderBufferDescriptor.slotOffset(indexCapacity, slotLength, slot);
    }

    @Override
    public void close() {
        arena.close();
    }
}
