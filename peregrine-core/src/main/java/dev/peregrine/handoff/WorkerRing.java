package dev.peregrine.handoff;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.internal.CacheLinePadding;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.peregrine.handoff.WorkerRingDescriptor.CHANNEL_ID_OFFSET;
import static dev.peregrine.handoff.WorkerRingDescriptor.HEADER_LENGTH;
import static dev.peregrine.handoff.WorkerRingDescriptor.HEAD_OFFSET;
import static dev.peregrine.handoff.WorkerRingDescriptor.INT;
import static dev.peregrine.handoff.WorkerRingDescriptor.LONG;
import static dev.peregrine.handoff.WorkerRingDescriptor.READ_OFFSET;
import static dev.peregrine.handoff.WorkerRingDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.handoff.WorkerRingDescriptor.REFUSED_OFFSET;
import static dev.peregrine.handoff.WorkerRingDescriptor.TAIL_OFFSET;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CLOSED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_MESSAGE;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_OFFSET;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_OPENED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_PADDING;
import static dev.peregrine.handoff.WorkerRingDescriptor.WRITTEN_OFFSET;
import static dev.peregrine.handoff.WorkerRingDescriptor.aligned;

/** The producer's own state, on a cache-line pair of its own: written per record, never read by the consumer. */
abstract class WorkerRingProducerFields extends CacheLinePadding {
    long tail;
    long headCache;
    long writtenCount;
    long refusedCount;
    int unpublished;
}

abstract class WorkerRingPad1 extends WorkerRingProducerFields {
    byte p1_00, p1_01, p1_02, p1_03, p1_04, p1_05, p1_06, p1_07, p1_08, p1_09, p1_0a, p1_0b, p1_0c, p1_0d, p1_0e, p1_0f;
    byte p1_10, p1_11, p1_12, p1_13, p1_14, p1_15, p1_16, p1_17, p1_18, p1_19, p1_1a, p1_1b, p1_1c, p1_1d, p1_1e, p1_1f;
    byte p1_20, p1_21, p1_22, p1_23, p1_24, p1_25, p1_26, p1_27, p1_28, p1_29, p1_2a, p1_2b, p1_2c, p1_2d, p1_2e, p1_2f;
    byte p1_30, p1_31, p1_32, p1_33, p1_34, p1_35, p1_36, p1_37, p1_38, p1_39, p1_3a, p1_3b, p1_3c, p1_3d, p1_3e, p1_3f;
    byte p1_40, p1_41, p1_42, p1_43, p1_44, p1_45, p1_46, p1_47, p1_48, p1_49, p1_4a, p1_4b, p1_4c, p1_4d, p1_4e, p1_4f;
    byte p1_50, p1_51, p1_52, p1_53, p1_54, p1_55, p1_56, p1_57, p1_58, p1_59, p1_5a, p1_5b, p1_5c, p1_5d, p1_5e, p1_5f;
    byte p1_60, p1_61, p1_62, p1_63, p1_64, p1_65, p1_66, p1_67, p1_68, p1_69, p1_6a, p1_6b, p1_6c, p1_6d, p1_6e, p1_6f;
    byte p1_70, p1_71, p1_72, p1_73, p1_74, p1_75, p1_76, p1_77, p1_78, p1_79, p1_7a, p1_7b, p1_7c, p1_7d, p1_7e, p1_7f;
    byte p1_80, p1_81, p1_82, p1_83, p1_84, p1_85, p1_86, p1_87;
}

/** The consumer's own state, on a cache-line pair of its own. */
abstract class WorkerRingConsumerFields extends WorkerRingPad1 {
    long head;
    /** The producer's tail as this consumer last acquired it: what it may read without another acquire. */
    long tailCache;
    long readCount;
    /** The handler of the read in progress. */
    WorkerHandler handler;
}

/**
 * Keeps the ring's final fields, read by both threads, off the consumer's line: a write to a line that the other
 * thread reads per record costs a transfer of that line per record (measured: the one-producer throughput of
 * {@code bench handoff} rose several times when the counters moved off the final fields' line).
 */
abstract class WorkerRingPad2 extends WorkerRingConsumerFields {
    byte p2_00, p2_01, p2_02, p2_03, p2_04, p2_05, p2_06, p2_07, p2_08, p2_09, p2_0a, p2_0b, p2_0c, p2_0d, p2_0e, p2_0f;
    byte p2_10, p2_11, p2_12, p2_13, p2_14, p2_15, p2_16, p2_17, p2_18, p2_19, p2_1a, p2_1b, p2_1c, p2_1d, p2_1e, p2_1f;
    byte p2_20, p2_21, p2_22, p2_23, p2_24, p2_25, p2_26, p2_27, p2_28, p2_29, p2_2a, p2_2b, p2_2c, p2_2d, p2_2e, p2_2f;
    byte p2_30, p2_31, p2_32, p2_33, p2_34, p2_35, p2_36, p2_37, p2_38, p2_39, p2_3a, p2_3b, p2_3c, p2_3d, p2_3e, p2_3f;
    byte p2_40, p2_41, p2_42, p2_43, p2_44, p2_45, p2_46, p2_47, p2_48, p2_49, p2_4a, p2_4b, p2_4c, p2_4d, p2_4e, p2_4f;
    byte p2_50, p2_51, p2_52, p2_53, p2_54, p2_55, p2_56, p2_57, p2_58, p2_59, p2_5a, p2_5b, p2_5c, p2_5d, p2_5e, p2_5f;
    byte p2_60, p2_61, p2_62, p2_63, p2_64, p2_65, p2_66, p2_67, p2_68, p2_69, p2_6a, p2_6b, p2_6c, p2_6d, p2_6e, p2_6f;
    byte p2_70, p2_71, p2_72, p2_73, p2_74, p2_75, p2_76, p2_77, p2_78, p2_79, p2_7a, p2_7b, p2_7c, p2_7d, p2_7e, p2_7f;
    byte p2_80, p2_81, p2_82, p2_83, p2_84, p2_85, p2_86, p2_87;
}

/**
 * A one-to-one ring of channel events in off-heap memory: the reactor thread writes, one worker thread reads. Its
 * layout is {@link WorkerRingDescriptor}.
 *
 * <p>Threading: {@link #tryWrite}, {@link #tryAppend}, {@link #publish} and {@link #hasRoomFor} belong to the one
 * producer thread, {@link #read} to the one consumer thread; the counters are safe from any thread. Nothing
 * allocates. {@link #close()} once both have stopped.
 */
public final class WorkerRing extends WorkerRingPad2 implements AutoCloseable {
    private static final CloseReason[] REASONS = CloseReason.values();

    private final Arena arena;
    private final MemorySegment segment;
    private final int capacity;
    private final long mask;
    private final int maxMessageLength;
    private final RecordReader decoder = this::decode;

    /**
     * Makes an empty ring.
     *
     * @param capacity bytes of the data area, a power of two from {@link WorkerRingDescriptor#MIN_CAPACITY} to
     *     {@link WorkerRingDescriptor#MAX_CAPACITY}
     */
    public WorkerRing(final int capacity) {
        if (capacity < WorkerRingDescriptor.MIN_CAPACITY || capacity > WorkerRingDescriptor.MAX_CAPACITY
            || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " is not a power of two from "
                + WorkerRingDescriptor.MIN_CAPACITY + " to " + WorkerRingDescriptor.MAX_CAPACITY);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxMessageLength = WorkerRingDescriptor.maxMessageLength(capacity);
        this.arena = Arena.ofShared();
        this.segment = arena.allocate((long)HEADER_LENGTH + capacity, 128);
    }

    /**
     * Writes one record and publishes it, with any appended before it; producer thread.
     *
     * @param type {@link WorkerRingDescriptor#TYPE_MESSAGE}, {@code TYPE_OPENED} or {@code TYPE_CLOSED}
     * @param channelId the channel
     * @param source memory holding the payload
     * @param sourceOffset where it starts
     * @param length its length, at most {@link #maxMessageLength()}
     * @return true if written, false if the ring has no room now (counted; what was appended is published anyway)
     * @throws IllegalArgumentException for a length out of range
     */
    public boolean tryWrite(final int type, final long channelId, final MemorySegment source, final long sourceOffset,
                            final int length) {
        final boolean written = tryAppend(type, channelId, source, sourceOffset, length);
        publish();
        return written;
    }

    /**
     * Writes one record without publishing it; producer thread. The consumer sees nothing appended until
     * {@link #publish()}, which then shows it all at once: a batch costs one release of the tail instead of one per
     * record, the way a Disruptor batch costs one cursor update.
     *
     * @param type {@link WorkerRingDescriptor#TYPE_MESSAGE}, {@code TYPE_OPENED} or {@code TYPE_CLOSED}
     * @param channelId the channel
     * @param source memory holding the payload
     * @param sourceOffset where it starts
     * @param length its length, at most {@link #maxMessageLength()}
     * @return true if appended, false if the ring has no room now (counted): publish and try again later
     * @throws IllegalArgumentException for a length out of range
     */
    public boolean tryAppend(final int type, final long channelId, final MemorySegment source,
                             final long sourceOffset, final int length) {
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("length=" + length + " is not in [0, " + maxMessageLength + "]");
        }
        final int recordLength = RECORD_HEADER_LENGTH + length;
        final long offset = reserve(aligned(recordLength));
        if (offset < 0) {
            return false;
        }
        INT.set(segment, offset + TYPE_OFFSET, type);
        LONG.set(segment, offset + CHANNEL_ID_OFFSET, channelId);
        if (length > 0) {
            MemorySegment.copy(source, sourceOffset, segment, offset + RECORD_HEADER_LENGTH, length);
        }
        INT.set(segment, offset, recordLength);
        unpublished++;
        return true;
    }

    /**
     * Claims room for {@code count} records of one type, channel and payload length, writes their headers, and
     * counts them appended; producer thread. The caller writes payload {@code i} into {@link #buffer()} at the
     * returned offset plus {@code i * aligned(RECORD_HEADER_LENGTH + length)}, then {@link #publish()}es, which shows
     * them with anything else appended: a batch without a copy per record and with one release of the tail.
     * The records are contiguous, so a batch that does not fit before the end of the data area is placed after a
     * padding record at the wrap.
     *
     * @param type {@link WorkerRingDescriptor#TYPE_MESSAGE}, {@code TYPE_OPENED} or {@code TYPE_CLOSED}
     * @param channelId the channel of every record
     * @param length each payload's length
     * @param count how many records, from 1 to {@link #maxBatchCount(int)}
     * @return the offset of the first payload in {@link #buffer()}, or -1 if the ring has no room for all of them
     *     now (counted as refused; nothing is written)
     * @throws IllegalArgumentException for a length below 0, a count below 1, or records that could never fit
     */
    public long tryClaimBatch(final int type, final long channelId, final int length, final int count) {
        final int stride = aligned(RECORD_HEADER_LENGTH + Math.max(length, 0));
        if (length < 0 || count < 1 || (long)count * stride > capacity / 2) {
            throw new IllegalArgumentException("length=" + length + ", count=" + count + ": a batch needs a length"
                + " from 0, a count from 1 and at most " + capacity / 2 + " bytes of records");
        }
        final int batchLength = count * stride;
        final long first = reserve(batchLength);
        if (first < 0) {
            return -1;
        }
        final int recordLength = RECORD_HEADER_LENGTH + length;
        for (long offset = first, end = first + batchLength; offset < end; offset += stride) {
            INT.set(segment, offset, recordLength);
            INT.set(segment, offset + TYPE_OFFSET, type);
            LONG.set(segment, offset + CHANNEL_ID_OFFSET, channelId);
        }
        unpublished += count;
        return first + RECORD_HEADER_LENGTH;
    }

    /**
     * Takes {@code bytes} of contiguous records at the tail, after a padding record at the wrap when they do not fit
     * before the end of the data area, and moves the tail past them; producer thread. Nothing is shown to the
     * consumer before {@link #publish()}.
     *
     * @param bytes the records' aligned lengths together
     * @return the offset of the first record in the segment, or -1 if the ring has no room now (counted as refused;
     *     nothing is written)
     */
    private long reserve(final int bytes) {
        final int toEnd = capacity - (int)(tail & mask);
        final int padding = bytes > toEnd ? toEnd : 0;
        if (!hasRoom(padding + bytes)) {
            LONG.setRelease(segment, (long)REFUSED_OFFSET, ++refusedCount);
            return -1;
        }
        if (padding > 0) {
            final long paddingOffset = HEADER_LENGTH + (tail & mask);
            INT.set(segment, paddingOffset + TYPE_OFFSET, TYPE_PADDING);
            INT.set(segment, paddingOffset, padding);
            tail += padding;
        }
        final long offset = HEADER_LENGTH + (tail & mask);
        tail += bytes;
        return offset;
    }

    /**
     * Most records of this payload length one {@link #tryClaimBatch} takes: together at most half the data area.
     *
     * @param length a payload length, from 0
     * @return a count; 0 if not even one fits
     */
    public int maxBatchCount(final int length) {
        return length < 0 ? 0 : capacity / 2 / aligned(RECORD_HEADER_LENGTH + length);
    }

    /**
     * The ring's memory, for writing the payloads of {@link #tryClaimBatch}; producer thread, and only there.
     *
     * @return the segment
     */
    public MemorySegment buffer() {
        return segment;
    }

    /** Shows the consumer every record appended since the last publish, in order; producer thread. */
    public void publish() {
        if (unpublished == 0) {
            return;
        }
        writtenCount += unpublished;
        unpublished = 0;
        // release: the consumer that acquires this tail sees every record before it
        LONG.setRelease(segment, (long)TAIL_OFFSET, tail);
        LONG.setRelease(segment, (long)WRITTEN_OFFSET, writtenCount);
    }

    /**
     * Whether a record with this payload length would fit now; producer thread.
     *
     * @param length a payload length
     * @return true if {@link #tryWrite} would take it
     */
    public boolean hasRoomFor(final int length) {
        final int alignedLength = aligned(RECORD_HEADER_LENGTH + length);
        final int toEnd = capacity - (int)(tail & mask);
        return hasRoom((alignedLength > toEnd ? toEnd : 0) + alignedLength);
    }

    /**
     * Delivers up to {@code limit} records to the handler, in order; consumer thread. A handler that throws stops
     * the read after that record (it counts as read) and the exception goes to the caller.
     *
     * @param handler gets each record; views are valid during the call only
     * @param limit most records to deliver
     * @return records delivered
     */
    public int read(final WorkerHandler handler, final int limit) {
        this.handler = handler;
        try {
            return readRecords(decoder, limit);
        } finally {
            this.handler = null;
        }
    }

    /** Hands a record to {@link #handler} by its type. */
    private void decode(final int type, final long channelId, final MemorySegment buffer, final long offset,
                        final int length) {
        if (type == TYPE_MESSAGE) {
            handler.onMessage(channelId, buffer, offset, length);
        } else if (type == TYPE_OPENED) {
            handler.onOpened(channelId);
        } else if (type == TYPE_CLOSED) {
            handler.onClosed(channelId, REASONS[(int)INT.get(buffer, offset)]);
        }
    }

    /** What {@link #readRecords} hands each record to: its type, channel id and payload view. */
    interface RecordReader {
        void onRecord(int type, long channelId, MemorySegment buffer, long offset, int length);
    }

    /**
     * Delivers up to {@code limit} records of any type, undecoded, in order; consumer thread. A reader that throws
     * stops the read after that record (it counts as read) and the exception goes to the caller.
     */
    int readRecords(final RecordReader reader, final int limit) {
        final long start = head;
        final long end = published();
        int count = 0;
        try {
            while (count < limit && head < end) {
                final long offset = HEADER_LENGTH + (head & mask);
                final int recordLength = (int)INT.get(segment, offset); // ordered by published()'s acquire
                final int type = (int)INT.get(segment, offset + TYPE_OFFSET);
                if (type == TYPE_PADDING) {
                    head += recordLength;
                    continue;
                }
                count++;
                head += aligned(recordLength);
                reader.onRecord(type, (long)LONG.get(segment, offset + CHANNEL_ID_OFFSET), segment,
                    offset + RECORD_HEADER_LENGTH, recordLength - RECORD_HEADER_LENGTH);
            }
        } finally {
            release(start, count);
        }
        return count;
    }

    /** Whether nothing waits to be read; consumer thread. */
    boolean isEmpty() {
        return head == published();
    }

    /**
     * Moves records to another ring, in order, while it has room; consumer thread of this ring and producer thread
     * of the target (the reactor, for a demux's backlog). A record whose type carries {@code resumeFlag} has the
     * flag stripped and, once moved, its channel's reading resumed.
     */
    int moveTo(final WorkerRing target, final int resumeFlag, final ReadPausable pausable) {
        final long start = head;
        final long end = published();
        int moved = 0;
        try {
            while (head < end) {
                final long offset = HEADER_LENGTH + (head & mask);
                final int recordLength = (int)INT.get(segment, offset);
                final int type = (int)INT.get(segment, offset + TYPE_OFFSET);
                if (type == TYPE_PADDING) {
                    head += recordLength;
                    continue;
                }
                final int length = recordLength - RECORD_HEADER_LENGTH;
                if (!target.hasRoomFor(length)) {
                    return moved;
                }
                final long channelId = (long)LONG.get(segment, offset + CHANNEL_ID_OFFSET);
                target.tryAppend(type & ~resumeFlag, channelId, segment, offset + RECORD_HEADER_LENGTH, length);
                head += aligned(recordLength);
                moved++;
                if ((type & resumeFlag) != 0 && pausable != null) {
                    pausable.resumeReading(channelId); // a channel closed meanwhile answers an error code
                }
            }
            return moved;
        } finally {
            target.publish();
            release(start, moved);
        }
    }

    /** The payload length of the next record to read, or -1 if none; consumer thread. */
    int nextLength() {
        final long end = published();
        long position = head;
        if (position == end) {
            return -1;
        }
        long offset = HEADER_LENGTH + (position & mask);
        int recordLength = (int)INT.get(segment, offset);
        if ((int)INT.get(segment, offset + TYPE_OFFSET) == TYPE_PADDING) {
            position += recordLength;
            if (position == end) {
                return -1;
            }
            offset = HEADER_LENGTH + (position & mask);
            recordLength = (int)INT.get(segment, offset);
        }
        return recordLength - RECORD_HEADER_LENGTH;
    }

    /**
     * The end of what the producer has published; consumer thread. The producer's tail is acquired only when the
     * consumer has read all it knew of: one transfer of the tail's line per batch, none per record.
     */
    private long published() {
        if (head == tailCache) {
            tailCache = (long)LONG.getAcquire(segment, (long)TAIL_OFFSET); // pairs with publish's release
        }
        return tailCache;
    }

    /**
     * Longest payload of one record.
     *
     * @return bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Records written.
     *
     * @return a count
     */
    public long written() {
        return (long)LONG.getAcquire(segment, (long)WRITTEN_OFFSET);
    }

    /**
     * Records read (padding not counted).
     *
     * @return a count
     */
    public long readCount() {
        return (long)LONG.getAcquire(segment, (long)READ_OFFSET);
    }

    /**
     * Writes refused because the ring was full.
     *
     * @return a count
     */
    public long refused() {
        return (long)LONG.getAcquire(segment, (long)REFUSED_OFFSET);
    }

    /** Frees the memory; once neither side uses the ring any more. */
    @Override
    public void close() {
        arena.close();
    }

    private boolean hasRoom(final int needed) {
        if (tail + needed - headCache <= capacity) {
            return true;
        }
        headCache = (long)LONG.getAcquire(segment, (long)HEAD_OFFSET); // pairs with release's: the room is read
        return tail + needed - headCache <= capacity;
    }

    /**
     * Releases the head and the read count once per read rather than once per record: the producer, waiting on a
     * full ring, then sees room by the batch instead of contending for the head's line record by record. Nothing is
     * zeroed: the consumer reads only below the tail the producer published, so it never meets a stale record, and
     * the producer writes over consumed records without the consumer having written to their lines.
     */
    private void release(final long start, final int records) {
        if (head == start) {
            return;
        }
        if (records > 0) {
            readCount += records;
            LONG.setRelease(segment, (long)READ_OFFSET, readCount);
        }
        LONG.setRelease(segment, (long)HEAD_OFFSET, head); // pairs with hasRoom's acquire: the room is free
    }
}
