package dev.peregrine.handoff;

import dev.peregrine.channel.CloseReason;

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

/**
 * A one-to-one ring of channel events in off-heap memory: the reactor thread writes, one worker thread reads. Its
 * layout is {@link WorkerRingDescriptor}.
 *
 * <p>Threading: {@link #tryWrite} and {@link #hasRoomFor} belong to the one producer thread, {@link #read} to the
 * one consumer thread; the counters are safe from any thread. Nothing allocates. {@link #close()} once both have
 * stopped.
 */
public final class WorkerRing implements AutoCloseable {
    private static final int ZERO_CHUNK = 4096;
    private static final CloseReason[] REASONS = CloseReason.values();

    private final Arena arena;
    private final MemorySegment segment;
    private final MemorySegment zeros;
    private final int capacity;
    private final long mask;
    private final int maxMessageLength;
    // producer only
    private long tail;
    private long headCache;
    // consumer only
    private long head;

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
        this.zeros = arena.allocate(ZERO_CHUNK, 8);
    }

    /**
     * Writes one record; producer thread.
     *
     * @param type {@link WorkerRingDescriptor#TYPE_MESSAGE}, {@code TYPE_OPENED} or {@code TYPE_CLOSED}
     * @param channelId the channel
     * @param source memory holding the payload
     * @param sourceOffset where it starts
     * @param length its length, at most {@link #maxMessageLength()}
     * @return true if written, false if the ring has no room now (counted)
     * @throws IllegalArgumentException for a length out of range
     */
    public boolean tryWrite(final int type, final long channelId, final MemorySegment source, final long sourceOffset,
                            final int length) {
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("length=" + length + " is not in [0, " + maxMessageLength + "]");
        }
        final int recordLength = RECORD_HEADER_LENGTH + length;
        final int alignedLength = aligned(recordLength);
        final int toEnd = capacity - (int)(tail & mask);
        final int padding = alignedLength > toEnd ? toEnd : 0;
        if (!hasRoom(padding + alignedLength)) {
            LONG.setRelease(segment, (long)REFUSED_OFFSET, (long)LONG.get(segment, (long)REFUSED_OFFSET) + 1);
            return false;
        }
        if (padding > 0) {
            final long paddingOffset = HEADER_LENGTH + (tail & mask);
            INT.set(segment, paddingOffset + TYPE_OFFSET, TYPE_PADDING);
            INT.setRelease(segment, paddingOffset, padding); // pairs with read's acquire of the length
            tail += padding;
        }
        final long offset = HEADER_LENGTH + (tail & mask);
        INT.set(segment, offset + TYPE_OFFSET, type);
        LONG.set(segment, offset + CHANNEL_ID_OFFSET, channelId);
        if (length > 0) {
            MemorySegment.copy(source, sourceOffset, segment, offset + RECORD_HEADER_LENGTH, length);
        }
        INT.setRelease(segment, offset, recordLength); // pairs with read's acquire: the consumer sees the record
        tail += alignedLength;
        LONG.setRelease(segment, (long)TAIL_OFFSET, tail);
        LONG.setRelease(segment, (long)WRITTEN_OFFSET, (long)LONG.get(segment, (long)WRITTEN_OFFSET) + 1);
        return true;
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
        int count = 0;
        while (count < limit) {
            final long offset = HEADER_LENGTH + (head & mask);
            final int recordLength = (int)INT.getAcquire(segment, offset); // pairs with tryWrite's release
            if (recordLength == 0) {
                break;
            }
            final int type = (int)INT.get(segment, offset + TYPE_OFFSET);
            if (type == TYPE_PADDING) {
                consume(recordLength); // may be 8 bytes at the very end: no channel id to read
                continue;
            }
            final long channelId = (long)LONG.get(segment, offset + CHANNEL_ID_OFFSET);
            count++;
            try {
                if (type == TYPE_MESSAGE) {
                    handler.onMessage(channelId, segment, offset + RECORD_HEADER_LENGTH,
                        recordLength - RECORD_HEADER_LENGTH);
                } else if (type == TYPE_OPENED) {
                    handler.onOpened(channelId);
                } else if (type == TYPE_CLOSED) {
                    handler.onClosed(channelId, REASONS[(int)INT.get(segment, offset + RECORD_HEADER_LENGTH)]);
                }
            } finally {
                consume(aligned(recordLength));
            }
        }
        return count;
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
        int count = 0;
        while (count < limit) {
            final long offset = HEADER_LENGTH + (head & mask);
            final int recordLength = (int)INT.getAcquire(segment, offset); // pairs with tryWrite's release
            if (recordLength == 0) {
                break;
            }
            final int type = (int)INT.get(segment, offset + TYPE_OFFSET);
            if (type == TYPE_PADDING) {
                consume(recordLength);
                continue;
            }
            count++;
            try {
                reader.onRecord(type, (long)LONG.get(segment, offset + CHANNEL_ID_OFFSET), segment,
                    offset + RECORD_HEADER_LENGTH, recordLength - RECORD_HEADER_LENGTH);
            } finally {
                consume(aligned(recordLength));
            }
        }
        return count;
    }

    /** Whether nothing waits to be read; consumer thread. */
    boolean isEmpty() {
        return (int)INT.getAcquire(segment, HEADER_LENGTH + (head & mask)) == 0;
    }

    /**
     * Moves records to another ring, in order, while it has room; consumer thread of this ring and producer thread
     * of the target (the reactor, for a demux's backlog). A record whose type carries {@code resumeFlag} has the
     * flag stripped and, once moved, its channel's reading resumed.
     */
    int moveTo(final WorkerRing target, final int resumeFlag, final ReadPausable pausable) {
        int moved = 0;
        while (true) {
            final long offset = HEADER_LENGTH + (head & mask);
            final int recordLength = (int)INT.getAcquire(segment, offset);
            if (recordLength == 0) {
                return moved;
            }
            final int type = (int)INT.get(segment, offset + TYPE_OFFSET);
            if (type == TYPE_PADDING) {
                consume(recordLength);
                continue;
            }
            final int length = recordLength - RECORD_HEADER_LENGTH;
            if (!target.hasRoomFor(length)) {
                return moved;
            }
            final long channelId = (long)LONG.get(segment, offset + CHANNEL_ID_OFFSET);
            target.tryWrite(type & ~resumeFlag, channelId, segment, offset + RECORD_HEADER_LENGTH, length);
            consume(aligned(recordLength));
            moved++;
            if ((type & resumeFlag) != 0 && pausable != null) {
                pausable.resumeReading(channelId); // a channel closed meanwhile answers an error code: nothing to do
            }
        }
    }

    /** The payload length of the next record to read, or -1 if none; consumer thread. */
    int nextLength() {
        long position = head;
        long offset = HEADER_LENGTH + (position & mask);
        int recordLength = (int)INT.getAcquire(segment, offset);
        if (recordLength != 0 && (int)INT.get(segment, offset + TYPE_OFFSET) == TYPE_PADDING) {
            position += recordLength;
            offset = HEADER_LENGTH + (position & mask);
            recordLength = (int)INT.getAcquire(segment, offset);
        }
        return recordLength == 0 ? -1 : recordLength - RECORD_HEADER_LENGTH;
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
        headCache = (long)LONG.getAcquire(segment, (long)HEAD_OFFSET); // pairs with consume's release: zeroed room
        return tail + needed - headCache <= capacity;
    }

    private void consume(final int alignedLength) {
        final long index = head & mask;
        final boolean record = (int)INT.get(segment, HEADER_LENGTH + index + TYPE_OFFSET) != TYPE_PADDING;
        long done = 0;
        while (done < alignedLength) {
            final long chunk = Math.min(alignedLength - done, ZERO_CHUNK);
            MemorySegment.copy(zeros, 0, segment, HEADER_LENGTH + index + done, chunk);
            done += chunk;
        }
        head += alignedLength;
        if (record) {
            LONG.setRelease(segment, (long)READ_OFFSET, (long)LONG.get(segment, (long)READ_OFFSET) + 1);
        }
        LONG.setRelease(segment, (long)HEAD_OFFSET, head); // pairs with hasRoom's acquire: the room is zeroed
    }
}
