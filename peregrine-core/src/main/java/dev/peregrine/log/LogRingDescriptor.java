package dev.peregrine.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Memory layout of an {@link AsyncLogger}'s ring: many producer threads, one consumer (the logger's thread), in one
 * off-heap segment. A header of {@link #HEADER_LENGTH} bytes, each party's words on a 128-byte slot of their own,
 * then a data area of {@code capacity} bytes (a power of two).
 *
 * <pre>
 *   0: TAIL slot      | tail position (8)                                   | to 128 |  producers (CAS)
 * 128: HEAD slot      | head position (8)                                   | to 256 |  consumer
 * 256: PRODUCER slot  | records dropped, ring full (8) | misuse (8)         | to 384 |  producers (add)
 * 384: CONSUMER slot  | records written (8) | claims padded over (8)        | to 512 |  consumer
 * 512: data area, capacity bytes of records aligned to 8:
 *
 *   0           8           16          24          32          40    42  43  44          48
 *   +-----------+-----------+-----------+-----------+-----------+-----+---+---+-----------+-----------+-------+
 *   |state word |epoch nanos|channel id | a         | b         |event|lvl|flg|payload len| payload   |to     |
 *   |           |           |           |           |           |code |   |   |(original) | (shown)   |align  |
 *   +-----------+-----------+-----------+-----------+-----------+-----+---+---+-----------+-----------+-------+
 *
 *   state word: bits 0-31 record length (header + payload shown), negative while claimed, positive once
 *               committed; bits 32-39 record type; bits 40-63 the lap of the record's position
 *   flags: bit 0 the record has a payload (bytes or text); bit 1 the payload is text (shown quoted as is)
 *   payload len: the payload's length before truncation to the configured maximum
 * </pre>
 *
 * <p>The discipline is {@code ReactorCommandRing}'s: a producer claims room by a compare-and-set of the tail, writes
 * the record header, then the state word, claimed, with release semantics, and commits by a compare-and-set of the
 * state word from claimed to committed. The consumer takes over a claim that outlived the claim timeout by a
 * compare-and-set of the same word to {@link #TYPE_PADDING}: exactly one of the two wins, and the lap makes a stale
 * commit fail. The consumer zeroes what it consumed before it releases the head, so a producer always claims zeroed
 * room. A {@link #TYPE_PADDING} record fills the end of the data area when the next record does not fit before it.
 */
public final class LogRingDescriptor {
    /** Offset of the tail position: the next byte to claim, producers only, by compare-and-set. */
    public static final int TAIL_OFFSET = 0;
    /** Offset of the head position: the next byte to consume, consumer only. */
    public static final int HEAD_OFFSET = 128;
    /** Offset of the count of records dropped because the ring was full. */
    public static final int DROPPED_OFFSET = 256;
    /** Offset of the count of producer misuse: a commit without an open claim, a bad length. */
    public static final int MISUSE_OFFSET = 264;
    /** Offset of the count of records formatted into the file's buffer. */
    public static final int WRITTEN_OFFSET = 384;
    /** Offset of the count of claims padded over after the claim timeout. */
    public static final int ABANDONED_OFFSET = 392;
    /** Length of the header; the data area starts here. */
    public static final int HEADER_LENGTH = 512;
    /** Offset of the state word in a record. */
    public static final int STATE_OFFSET = 0;
    /** Offset of the timestamp, epoch nanoseconds. */
    public static final int TIMESTAMP_OFFSET = 8;
    /** Offset of the channel id. */
    public static final int CHANNEL_ID_OFFSET = 16;
    /** Offset of the first free long. */
    public static final int A_OFFSET = 24;
    /** Offset of the second free long. */
    public static final int B_OFFSET = 32;
    /** Offset of the event code, a short: a {@link LogEvent}'s ordinal. */
    public static final int EVENT_OFFSET = 40;
    /** Offset of the level, a byte: a {@link LogLevel}'s ordinal. */
    public static final int LEVEL_OFFSET = 42;
    /** Offset of the flags byte. */
    public static final int FLAGS_OFFSET = 43;
    /** Offset of the payload's length before truncation, an int. */
    public static final int PAYLOAD_LENGTH_OFFSET = 44;
    /** Length of a record header; the payload starts here. */
    public static final int RECORD_HEADER_LENGTH = 48;
    /** Flag: the record has a payload. */
    public static final int FLAG_PAYLOAD = 1;
    /** Flag: the payload is text. */
    public static final int FLAG_TEXT = 2;
    /** Alignment of every record. */
    public static final int ALIGNMENT = 8;
    /** Record type: a log record. */
    public static final int TYPE_RECORD = 1;
    /** Record type: nothing to format; the end of the data area, or a claim padded over. */
    public static final int TYPE_PADDING = 2;
    /** Smallest data capacity. */
    public static final int MIN_CAPACITY = 4096;
    /** Largest data capacity. */
    public static final int MAX_CAPACITY = 1 << 30;

    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private static final int LAP_BITS = 24;
    private static final long LAP_MASK = (1L << LAP_BITS) - 1;

    private LogRingDescriptor() {
    }

    /**
     * A record length rounded up to {@link #ALIGNMENT}.
     *
     * @param recordLength header plus payload
     * @return the room it takes
     */
    public static int aligned(final int recordLength) {
        return (recordLength + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * A state word.
     *
     * @param recordLength header plus payload, negative while claimed
     * @param type the record type
     * @param lap the lap of the record's position
     * @return the word
     */
    public static long state(final int recordLength, final int type, final long lap) {
        return ((lap & LAP_MASK) << 40) | ((long)(type & 0xFF) << 32) | (recordLength & 0xFFFF_FFFFL);
    }

    /**
     * The record length of a state word.
     *
     * @param state a state word
     * @return header plus payload, negative while claimed
     */
    public static int recordLength(final long state) {
        return (int)state;
    }

    /**
     * The record type of a state word.
     *
     * @param state a state word
     * @return the type
     */
    public static int type(final long state) {
        return (int)(state >>> 32) & 0xFF;
    }

    /**
     * The lap bits of a state word.
     *
     * @param state a state word
     * @return the lap, modulo 2^24
     */
    public static long lap(final long state) {
        return state >>> 40;
    }

    /**
     * The lap bits of a position.
     *
     * @param position a position
     * @param capacityBits log2 of the capacity
     * @return the lap, modulo 2^24
     */
    public static long lapOf(final long position, final int capacityBits) {
        return (position >>> capacityBits) & LAP_MASK;
    }

    static long stateAcquire(final MemorySegment segment, final long recordOffset) {
        return (long)LONG.getAcquire(segment, recordOffset + STATE_OFFSET);
    }
}
