package dev.peregrine.counters;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * Memory layout of one process's counters file: a header of {@link #HEADER_LENGTH} bytes, a metadata
 * area of {@code slots} records of {@link #METADATA_LENGTH} bytes, and a values area of {@code slots}
 * values, each alone on its own {@link #VALUE_LENGTH}-byte line so that two threads writing neighbouring
 * counters never share a cache line (nor a pair of lines the prefetcher fetches together).
 *
 * <pre>
 * header, written once at creation:
 *   0               8       12      16              24              32              40      44
 *   +---------------+-------+-------+---------------+---------------+---------------+-------+------------+
 *   | magic         |version|slots  | pid           | process start | created       |name   | unused     |
 *   | "PGCNTRS1"    |       |       |               | (epoch ms)    | (epoch ms)    |length |            |
 *   +---------------+-------+-------+---------------+---------------+---------------+-------+------------+
 *  64: process name, UTF-8, up to 448 bytes (the main class and arguments), to 512
 *
 * metadata record of slot i, at 512 + i * 256:
 *   0               8       12      16              24              32                                256
 *   +---------------+-------+-------+---------------+---------------+---------------------------------+
 *   | state word    |type id|label  | reusable at   | unused        | label, UTF-8, up to 224 bytes   |
 *   | gen 32 | st 32|       |length | (epoch ms)    |               |                                 |
 *   +---------------+-------+-------+---------------+---------------+---------------------------------+
 *
 * value of slot i, at 512 + slots * 256 + i * 128:
 *   +---------------+-----------------------------------------------------------------------------------+
 *   | value (8)     | padding to 128                                                                    |
 *   +---------------+-----------------------------------------------------------------------------------+
 * </pre>
 *
 * <p>The state word holds the slot's state ({@link #FREE}, {@link #ALLOCATED}, {@link #RECLAIMING}) in its low
 * 32 bits and the slot's generation, incremented on each allocation, in its high 32 bits. The allocating
 * thread writes the type, the label and a zero value, then releases the word as {@code ALLOCATED}; freeing
 * releases it as {@code RECLAIMING} with a deadline before which the slot is not reused. A reader acquires
 * the word, reads the type, label and value (the value with acquire), and acquires the word again: only if
 * both reads of the word are equal and {@code ALLOCATED} does the value belong to that label. Each value is
 * written by one thread only (the counter's owner), with release.
 */
public final class CountersDescriptor {
    /** "PGCNTRS1" in ASCII, little-endian. */
    public static final long MAGIC = 0x315352544E434750L;
    /** Layout version; a file with another version is refused. */
    public static final int VERSION = 1;
    /** Offset of the magic number. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the slot count. */
    public static final int SLOTS_OFFSET = 12;
    /** Offset of the owner's process id. */
    public static final int PID_OFFSET = 16;
    /** Offset of the owner's start time, epoch milliseconds (with the pid, it defeats pid reuse). */
    public static final int PROCESS_START_OFFSET = 24;
    /** Offset of the file's creation time, epoch milliseconds. */
    public static final int CREATED_OFFSET = 32;
    /** Offset of the length of the process name. */
    public static final int NAME_LENGTH_OFFSET = 40;
    /** Offset of the process name. */
    public static final int NAME_OFFSET = 64;
    /** Longest process name, in bytes. */
    public static final int MAX_NAME_LENGTH = 448;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 512;

    /** Offset of the state word in a metadata record. */
    public static final int STATE_WORD_OFFSET = 0;
    /** Offset of the type id in a metadata record. */
    public static final int TYPE_ID_OFFSET = 8;
    /** Offset of the label length in a metadata record. */
    public static final int LABEL_LENGTH_OFFSET = 12;
    /** Offset of the reuse deadline in a metadata record. */
    public static final int REUSE_DEADLINE_OFFSET = 16;
    /** Offset of the label in a metadata record. */
    public static final int LABEL_OFFSET = 32;
    /** Longest label, in bytes. */
    public static final int MAX_LABEL_LENGTH = 224;
    /** Length of a metadata record. */
    public static final int METADATA_LENGTH = 256;
    /** Length of a value's line. */
    public static final int VALUE_LENGTH = 128;

    /** Slot state: never used, or reusable. */
    public static final int FREE = 0;
    /** Slot state: a live counter. */
    public static final int ALLOCATED = 1;
    /** Slot state: freed; reusable once its deadline has passed. */
    public static final int RECLAIMING = 2;

    /** Fewest slots a file may have. */
    public static final int MIN_SLOTS = 1;
    /** Most slots a file may have. */
    public static final int MAX_SLOTS = 1 << 20;

    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private CountersDescriptor() {
    }

    /**
     * Length of a file with the given number of slots.
     *
     * @param slots the slot count
     * @return bytes
     */
    public static long fileLength(final int slots) {
        return HEADER_LENGTH + (long)slots * (METADATA_LENGTH + VALUE_LENGTH);
    }

    /**
     * Offset of a slot's metadata record.
     *
     * @param slot the slot
     * @return the offset
     */
    public static long metadataOffset(final int slot) {
        return HEADER_LENGTH + (long)slot * METADATA_LENGTH;
    }

    /**
     * Offset of a slot's value.
     *
     * @param slots the slot count of the file
     * @param slot the slot
     * @return the offset
     */
    public static long valueOffset(final int slots, final int slot) {
        return HEADER_LENGTH + (long)slots * METADATA_LENGTH + (long)slot * VALUE_LENGTH;
    }

    /**
     * The state in a state word.
     *
     * @param word the state word
     * @return the state
     */
    public static int state(final long word) {
        return (int)word;
    }

    /**
     * The generation in a state word.
     *
     * @param word the state word
     * @return the generation
     */
    public static int generation(final long word) {
        return (int)(word >>> 32);
    }

    static long word(final int generation, final int state) {
        return ((long)generation << 32) | (state & 0xFFFF_FFFFL);
    }

    static void checkSlots(final int slots) {
        if (slots < MIN_SLOTS || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("slots=" + slots + " must be in [" + MIN_SLOTS + ", " + MAX_SLOTS + "]");
        }
    }

    /** Writes a fresh header; the metadata and values areas must be zero. */
    static void initialise(final MemorySegment segment, final int slots, final long pid, final long processStartMs,
        final long createdMs, final String name) {
        segment.set(ValueLayout.JAVA_INT_UNALIGNED, VERSION_OFFSET, VERSION);
        segment.set(ValueLayout.JAVA_INT_UNALIGNED, SLOTS_OFFSET, slots);
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, PID_OFFSET, pid);
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, PROCESS_START_OFFSET, processStartMs);
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, CREATED_OFFSET, createdMs);
        final byte[] bytes = truncatedUtf8(name, MAX_NAME_LENGTH);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, NAME_OFFSET, bytes.length);
        segment.set(ValueLayout.JAVA_INT_UNALIGNED, NAME_LENGTH_OFFSET, bytes.length);
        // the magic last, released: a reader that sees it sees the rest of the header (pairs with checkHeader)
        LONG.setRelease(segment, (long)MAGIC_OFFSET, MAGIC);
    }

    /**
     * Checks a mapped file's header and returns its slot count.
     *
     * @param segment the mapped file
     * @return the slot count
     * @throws IllegalStateException if the file is not a counters file of this version, or is too short
     */
    static int checkHeader(final MemorySegment segment) {
        if (segment.byteSize() < HEADER_LENGTH) {
            throw new IllegalStateException("counters file too short: " + segment.byteSize() + " bytes");
        }
        final long magic = (long)LONG.getAcquire(segment, (long)MAGIC_OFFSET); // pairs with initialise
        if (magic != MAGIC) {
            throw new IllegalStateException("not a counters file: magic=0x" + Long.toHexString(magic));
        }
        final int version = segment.get(ValueLayout.JAVA_INT_UNALIGNED, VERSION_OFFSET);
        if (version != VERSION) {
            throw new IllegalStateException("counters file version=" + version + ", expected " + VERSION);
        }
        final int slots = segment.get(ValueLayout.JAVA_INT_UNALIGNED, SLOTS_OFFSET);
        if (slots < MIN_SLOTS || slots > MAX_SLOTS) { // a damaged file: not the caller's argument, so not checkSlots
            throw new IllegalStateException("counters file has slots=" + slots + ", outside [" + MIN_SLOTS + ", "
                + MAX_SLOTS + "]");
        }
        if (segment.byteSize() < fileLength(slots)) {
            throw new IllegalStateException("counters file of " + segment.byteSize() + " bytes is shorter than its "
                + slots + " slots need (" + fileLength(slots) + ")");
        }
        return slots;
    }

    static byte[] truncatedUtf8(final String text, final int maxLength) {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxLength) {
            return bytes;
        }
        int end = maxLength;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--; // do not cut a character in two
        }
        return java.util.Arrays.copyOf(bytes, end);
    }
}
