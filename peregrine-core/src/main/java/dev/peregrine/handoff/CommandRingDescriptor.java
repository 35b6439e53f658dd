package dev.peregrine.handoff;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Memory layout of a {@link ReactorCommandRing}: many producer threads, one consumer (the reactor), in one
 * off-heap segment. A header of {@link #HEADER_LENGTH} bytes, each party's words on a 128-byte slot of their own,
 * then a data area of {@code capacity} bytes (a power of two).
 *
 * <pre>
 *   0: TAIL slot      | tail position (8) | head cache (8)                  | to 128 |  producers (CAS)
 * 128: HEAD slot      | head position (8)                                   | to 256 |  consumer
 * 256: PRODUCER slot  | claims refused full (8) | misuse (8)                | to 384 |  producers (add)
 * 384: CONSUMER slot  | delivered (8) | discarded (8) | abandoned (8)       | to 512 |  consumer
 * 512: FLAGS slot     | back-pressured flag, one int per transport index (32)        |  consumer
 * 640: ABANDONED slot | the last 16 claims the consumer padded over (8 each)         |  consumer
 * 768: data area, capacity bytes of records aligned to 8:
 *
 *   0               8               16      20      24
 *   +---------------+---------------+-------+-------+-------------------------------+--------+
 *   | state word    | channel id    |trans- |unused | payload (record length - 24)  |to align|
 *   |               |               |port   |       |                               |        |
 *   +---------------+---------------+-------+-------+-------------------------------+--------+
 *
 *   state word: bits 0-31 record length (header + payload), negative while claimed, positive once committed;
 *               bits 32-39 record type; bits 40-63 the lap of the record's position (position / capacity)
 *
 *   a batch ({@link #TYPE_SEND_BATCH}): count messages of one length to one channel, under one state word
 *
 *   0               8               16      20      24      28      32
 *   +---------------+---------------+-------+-------+-------+-------+-----------+-----------+---+-----------+
 *   | state word    | channel id    |trans- |count  |message|unused | message 0 | message 1 |...| message   |
 *   |               |               |port   |       |length |       |           |           |   | count - 1 |
 *   +---------------+---------------+-------+-------+-------+-------+-----------+-----------+---+-----------+
 *
 *   message i starts at 32 + i * aligned(message length); the record length is 32 + count * aligned(length)
 * </pre>
 *
 * <p>A producer claims room by a compare-and-set of the tail, writes the rest of the header, then the state word,
 * claimed, with release semantics; it commits by a compare-and-set of the state word from claimed to committed.
 * The consumer takes a record whose claim outlived the timeout by a compare-and-set of the same word from claimed
 * to {@link #TYPE_PADDING}: exactly one of the two wins. The lap in the word makes a stale commit (one for a record
 * already consumed, its room claimed again) fail its compare-and-set instead of committing another's claim.
 *
 * <p>A batch is one record: one claim (one compare-and-set of the tail), one commit (one compare-and-set of its
 * state word), one pad-over if abandoned, whatever the count. The reactor hands its messages to the transport one
 * by one, each counted against its drain limit, and resumes a batch where a back-pressured transport or the drain
 * limit stopped it.
 *
 * <p>The consumer zeroes what it consumed before it releases the head, so a producer always claims zeroed room and
 * the consumer always meets either a zero (nothing yet) or a state word of this lap. A {@link #TYPE_PADDING} record
 * fills the end of the data area when the next record does not fit before the wrap.
 */
public final class CommandRingDescriptor {
    /** Offset of the tail position: the next byte to claim, producers only, by compare-and-set. */
    public static final int TAIL_OFFSET = 0;
    /**
     * Offset of the producers' cache of the head: a head position some producer read, never ahead of the real one.
     * A claim that fits below it does not read the consumer's slot, which the consumer writes every drain.
     */
    public static final int HEAD_CACHE_OFFSET = 8;
    /** Offset of the head position: the next byte to consume, consumer only. */
    public static final int HEAD_OFFSET = 128;
    /** Offset of the count of claims refused with {@code BACK_PRESSURED}. */
    public static final int REFUSED_OFFSET = 256;
    /** Offset of the count of producer misuse: a bad transport index, a commit without a claim or a second one. */
    public static final int MISUSE_OFFSET = 264;
    /** Offset of the count of commands the consumer handed to their transport and it took. */
    public static final int DELIVERED_OFFSET = 384;
    /** Offset of the count of committed commands discarded: their channel was closed or unknown at the drain. */
    public static final int DISCARDED_OFFSET = 392;
    /** Offset of the count of claims padded over after the claim timeout. */
    public static final int ABANDONED_OFFSET = 400;
    /** Offset of the back-pressure flags, one {@code int} per transport index. */
    public static final int FLAGS_OFFSET = 512;
    /** Most transports one ring can serve. */
    public static final int MAX_TRANSPORTS = 32;
    /** Offset of the table of the last claims padded over, for a late commit to learn its fate. */
    public static final int ABANDONED_CLAIMS_OFFSET = 640;
    /** Entries in the table of claims padded over. */
    public static final int ABANDONED_CLAIMS = 16;
    /** Length of the header; the data area starts here. */
    public static final int HEADER_LENGTH = 768;
    /** Offset of the state word in a record. */
    public static final int STATE_OFFSET = 0;
    /** Offset of the channel id in a record. */
    public static final int CHANNEL_ID_OFFSET = 8;
    /** Offset of the transport index in a record. */
    public static final int TRANSPORT_OFFSET = 16;
    /** Length of a record header; the payload starts here. */
    public static final int RECORD_HEADER_LENGTH = 24;
    /** Offset of the message count in a {@link #TYPE_SEND_BATCH} record. */
    public static final int BATCH_COUNT_OFFSET = 20;
    /** Offset of the length of each message in a {@link #TYPE_SEND_BATCH} record. */
    public static final int BATCH_MESSAGE_LENGTH_OFFSET = 24;
    /** Length of a {@link #TYPE_SEND_BATCH} record's header; its first message starts here. */
    public static final int BATCH_HEADER_LENGTH = 32;
    /** Alignment of every record. */
    public static final int ALIGNMENT = 8;
    /** Record type: send the payload on the channel. */
    public static final int TYPE_SEND = 1;
    /** Record type: close the channel ({@code Transport.close}). */
    public static final int TYPE_CLOSE = 2;
    /** Record type: abort the channel ({@code Transport.abort}). */
    public static final int TYPE_ABORT = 3;
    /** Record type: nothing to do; the end of the data area, or a claim padded over. */
    public static final int TYPE_PADDING = 4;
    /** Record type: send each of the record's messages, in order, on the channel (one claim, one commit). */
    public static final int TYPE_SEND_BATCH = 5;
    /** Smallest data capacity. */
    public static final int MIN_CAPACITY = 1024;
    /** Largest data capacity. */
    public static final int MAX_CAPACITY = 1 << 30;

    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private static final int LAP_BITS = 24;
    private static final long LAP_MASK = (1L << LAP_BITS) - 1;

    private CommandRingDescriptor() {
    }

    /**
     * Largest payload a ring of this capacity takes: a record padded to the wrap must still fit an empty ring.
     *
     * @param capacity the data capacity
     * @return bytes
     */
    public static int maxMessageLength(final int capacity) {
        return capacity / 2 - RECORD_HEADER_LENGTH;
    }

    /**
     * Most messages of one length a batch record of a ring of this capacity takes: the record, like any, must
     * still fit an empty ring when padded to the wrap.
     *
     * @param capacity the data capacity
     * @param messageLength the length of each message, from 0
     * @return a count; 0 when not even one fits (a batch's header is 8 bytes longer than a single message's, so a
     *     message within 8 bytes of {@link #maxMessageLength} goes alone, not in a batch)
     */
    public static int maxBatchCount(final int capacity, final int messageLength) {
        if (messageLength < 0 || messageLength > maxMessageLength(capacity)) {
            return 0;
        }
        final int stride = aligned(messageLength);
        return stride == 0 ? Integer.MAX_VALUE : (capacity / 2 - BATCH_HEADER_LENGTH) / stride;
    }

    /**
     * The length of a batch record.
     *
     * @param messageLength the length of each message
     * @param count the messages
     * @return header plus messages, each aligned to {@link #ALIGNMENT}; a long, since a count can overflow an int
     */
    public static long batchRecordLength(final int messageLength, final int count) {
        return BATCH_HEADER_LENGTH + (long)count * aligned(messageLength);
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
