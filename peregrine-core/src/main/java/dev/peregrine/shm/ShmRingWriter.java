package dev.peregrine.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static dev.peregrine.shm.ShmRingDescriptor.CONSUMED_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.FUTEX_AWAKE;
import static dev.peregrine.shm.ShmRingDescriptor.FUTEX_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.HEADER_LENGTH;
import static dev.peregrine.shm.ShmRingDescriptor.HEAD_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.HEARTBEAT_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.INT;
import static dev.peregrine.shm.ShmRingDescriptor.LONG;
import static dev.peregrine.shm.ShmRingDescriptor.READER_MAY_SLEEP_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.shm.ShmRingDescriptor.TAIL_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.TYPE_MESSAGE;
import static dev.peregrine.shm.ShmRingDescriptor.TYPE_PADDING;
import static dev.peregrine.shm.ShmRingDescriptor.WAKE_UPS_ACKNOWLEDGED_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.WRITER_CLOSED;
import static dev.peregrine.shm.ShmRingDescriptor.WRITER_STATE_OFFSET;

/**
 * The producing side of a {@link ShmRingDescriptor ring}: claim a region, write the message into
 * {@link #buffer()}, then {@link #commit} (or {@link #abort}) it. Bounded by bytes and by messages in flight;
 * a full ring answers {@link #BACK_PRESSURED} and never blocks or drops.
 *
 * <p>Not thread-safe: one writer thread. At most one claim is outstanding at a time.
 */
public final class ShmRingWriter {
    /** The ring has no room now, by bytes or by messages in flight; nothing was claimed. */
    public static final long BACK_PRESSURED = -1;
    /** The ring was closed by this writer. */
    public static final long CLOSED = -3;

    private static final long NO_CLAIM = -1;
    /**
     * How far past the tail the writer keeps the free room zeroed, in bytes. A commit tops it up once the lead
     * falls to half of this, after the record is published: the cache lines it takes for ownership are then
     * not on the path of the next message, which only writes into lines the writer already owns.
     */
    private static final int ZERO_AHEAD = 2048;
    /** Source of the zeros, copied in pieces of at most its size; only ever read. */
    private static final MemorySegment ZEROS = MemorySegment.ofArray(new long[ZERO_AHEAD / 8]);

    private final MemorySegment segment;
    private final MemorySegment futexWord;
    private final int capacity;
    private final int mask;
    private final int maxMessageLength;
    private final int maxMessages;
    private final int alignment;
    private long tail;
    private long zeroedTo;
    private long headCache;
    private long produced;
    private long consumedCache;
    private long claimOffset = NO_CLAIM;
    private int claimFrameLength;
    private int claimRecordLength;
    private boolean closed;
    private boolean wakeUpsAcknowledged;
    private long wakeUps;

    /**
     * Wraps a validated ring (the only writer of a ring is the process it was made for). The writer resumes
     * after the last record published, found by walking the records from the reader's head.
     *
     * @param segment the mapped ring file; see {@link ShmRingDescriptor#validate}
     * @throws IllegalArgumentException if the segment is not a valid ring
     */
    public ShmRingWriter(final MemorySegment segment) {
        final ShmRingDescriptor.Geometry geometry;
        try {
            geometry = ShmRingDescriptor.geometry(segment, 0, -1); // read once: the other process can rewrite the header
        } catch (final IllegalArgumentException ex) {
            throw new IllegalArgumentException("ring refused: " + ex.getMessage(), ex);
        }
        this.segment = segment;
        this.futexWord = segment.asSlice(FUTEX_OFFSET, 4);
        this.capacity = geometry.capacity();
        this.mask = capacity - 1;
        this.maxMessageLength = geometry.maxMessageLength();
        this.maxMessages = geometry.maxMessages();
        this.alignment = geometry.alignment();
        this.headCache = headAcquire();
        this.consumedCache = consumedAcquire();
        if (headCache < 0 || (headCache & (alignment - 1)) != 0) {
            throw new IllegalArgumentException("ring refused: head=" + headCache
                + " is not a non-negative multiple of the record alignment=" + alignment);
        }
        // the tail in the header is only stored now and then, so find the end of the published records
        long position = headCache;
        long messages = 0;
        int frameLength;
        while ((frameLength = frameLengthAcquire((int)position & mask)) != 0) {
            final int index = (int)position & mask;
            if (frameLength < RECORD_HEADER_LENGTH || frameLength > capacity - index || position - headCache >= capacity) {
                throw new IllegalArgumentException("ring refused: frameLength=" + frameLength + " at index=" + index
                    + " capacity=" + capacity);
            }
            if (segment.get(ValueLayout.JAVA_INT, HEADER_LENGTH + index + 4L) == TYPE_MESSAGE) {
                messages++;
            }
            position += ShmRingDescriptor.align(frameLength, alignment);
        }
        this.tail = position;
        this.zeroedTo = position;
        this.produced = consumedCache + messages;
        this.wakeUpsAcknowledged = (int)INT.getAcquire(segment, (long)WAKE_UPS_ACKNOWLEDGED_OFFSET) != 0;
    }

    /**
     * Claims room for a message of {@code length} bytes.
     *
     * @param length payload length, 0 to {@link #maxMessageLength()}
     * @return where to write the payload in {@link #buffer()}, or {@link #BACK_PRESSURED} or {@link #CLOSED}
     * @throws IllegalArgumentException if {@code length} is negative or over the maximum
     * @throws IllegalStateException if a claim is already outstanding
     */
    public long tryClaim(final int length) {
        // kept small enough for the JIT to inline into the caller's loop: the rare paths are methods of their own
        if (length < 0 || length > maxMessageLength) {
            throw badLength(length);
        }
        if (claimOffset != NO_CLAIM) {
            throw outstandingClaim();
        }
        if (closed) {
            return CLOSED;
        }
        if (produced - consumedCache >= maxMessages && tooManyInFlight()) {
            return BACK_PRESSURED;
        }
        final int frameLength = RECORD_HEADER_LENGTH + length;
        final int recordLength = ShmRingDescriptor.align(frameLength, alignment);
        final long tail = this.tail;
        final int index = (int)tail & mask;
        if (recordLength > capacity - index) {
            return claimAfterPadding(frameLength, recordLength, tail, index);
        }
        // the header after the record must read zero until that record is released, so its room must be free
        final long end = tail + recordLength + RECORD_HEADER_LENGTH;
        if (end - headCache > capacity && noRoomBefore(end)) {
            return BACK_PRESSURED;
        }
        if (zeroedTo < end) {
            // the room is free (checked above); normally a commit zeroed it already
            zeroTo(end);
        }
        // [tail, end) is all zeros
        return claimAt(index, frameLength, recordLength);
    }

    private long claimAfterPadding(final int frameLength, final int recordLength, final long tail, final int index) {
        // the record does not fit before the end of the data area: pad to the end, write it at index 0
        final int padding = capacity - index;
        final long end = tail + padding + recordLength + RECORD_HEADER_LENGTH;
        if (noRoomBefore(end)) {
            return BACK_PRESSURED;
        }
        // zero both headers the reader may reach next (at index 0 and after the record) before it can see the
        // padding, released below
        if (zeroedTo < end) {
            zeroTo(end);
        }
        segment.set(ValueLayout.JAVA_INT, HEADER_LENGTH + index + 4L, TYPE_PADDING);
        frameLengthRelease(index, padding);
        this.tail = tail + padding;
        return claimAt(0, frameLength, recordLength);
    }

    private long claimAt(final int recordIndex, final int frameLength, final int recordLength) {
        claimFrameLength = frameLength;
        claimRecordLength = recordLength;
        claimOffset = HEADER_LENGTH + recordIndex + (long)RECORD_HEADER_LENGTH;
        return claimOffset;
    }

    private boolean tooManyInFlight() {
        consumedCache = consumedAcquire();
        return produced - consumedCache >= maxMessages;
    }

    private boolean noRoomBefore(final long end) {
        if (end - headCache <= capacity) {
            return false;
        }
        headCache = headAcquire();
        return end - headCache > capacity;
    }

    private IllegalArgumentException badLength(final int length) {
        return new IllegalArgumentException("length=" + length + " must be in [0, maxMessageLength="
            + maxMessageLength + "]");
    }

    private IllegalStateException outstandingClaim() {
        return new IllegalStateException("claim at index=" + claimOffset + " is still outstanding");
    }

    /**
     * Publishes the claimed message to the reader and wakes the reader if it sleeps on the futex.
     *
     * @param index the value {@link #tryClaim} returned
     * @throws IllegalStateException if {@code index} is not the outstanding claim
     */
    public void commit(final long index) {
        publish(index, TYPE_MESSAGE);
        produced++;
        wakeReaderIfAsleep();
        zeroAhead();
    }

    /**
     * Gives a claim back: the region becomes padding that the reader skips.
     *
     * @param index the value {@link #tryClaim} returned
     * @throws IllegalStateException if {@code index} is not the outstanding claim
     */
    public void abort(final long index) {
        publish(index, TYPE_PADDING);
        zeroAhead();
    }

    /**
     * Copies a message into the ring and commits it.
     *
     * @param source memory holding the message
     * @param offset where it starts
     * @param length its length, 0 to {@link #maxMessageLength()}
     * @return the index it was written at, or {@link #BACK_PRESSURED} or {@link #CLOSED}
     */
    public long offer(final MemorySegment source, final long offset, final int length) {
        final long index = tryClaim(length);
        if (index >= 0) {
            copyOrAbort(source, offset, segment, index, length, this);
            commit(index);
        }
        return index;
    }

    /**
     * Copies a message into a claim, or gives the claim up and rethrows when the copy fails (a source shorter
     * than the length, closed, or another thread's): a claim left open would refuse every later one.
     *
     * @param source memory holding the message
     * @param offset where it starts
     * @param ring the ring's memory
     * @param index the claim
     * @param length its length
     * @param writer the writer that made the claim
     */
    static void copyOrAbort(final MemorySegment source, final long offset, final MemorySegment ring, final long index,
        final int length, final ShmRingWriter writer) {
        try {
            MemorySegment.copy(source, offset, ring, index, length);
        } catch (final RuntimeException | Error ex) {
            writer.abort(index);
            throw ex;
        }
    }

    /**
     * The memory into which claimed messages are written (the whole mapped ring).
     *
     * @return the segment
     */
    public MemorySegment buffer() {
        return segment;
    }

    /**
     * Largest payload this ring takes.
     *
     * @return bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Data capacity of the ring.
     *
     * @return bytes
     */
    public int capacity() {
        return capacity;
    }

    /**
     * Bytes written and not yet consumed by the reader, as far as this writer knows.
     *
     * @return bytes in flight
     */
    public long bytesInFlight() {
        headCache = headAcquire();
        return tail - headCache;
    }

    /**
     * How many times this writer woke its sleeping reader ({@code FUTEX_WAKE}).
     *
     * @return the count
     */
    public long wakeUps() {
        return wakeUps;
    }

    /**
     * Whether the reader has consumed everything written.
     *
     * @return true when the ring is empty
     */
    public boolean isDrained() {
        return bytesInFlight() == 0;
    }

    /**
     * Stores the writer's clock in the header, the liveness word a monitor may watch.
     *
     * @param nowNs the writer's clock
     */
    public void heartbeat(final long nowNs) {
        tailRelease();
        // an idle writer acknowledges a reader's wish to sleep here, so the reader need not wait for a commit
        if (!wakeUpsAcknowledged && (int)INT.getOpaque(segment, (long)READER_MAY_SLEEP_OFFSET) != 0) {
            acknowledgeWakeUps();
        }
        // release: only a hint for monitors, but never torn
        LONG.setRelease(segment, (long)HEARTBEAT_OFFSET, nowNs);
    }

    /**
     * Position after the last record this writer published or claimed (it counts from the ring's creation).
     *
     * @return the tail position
     */
    public long tailPosition() {
        return tail;
    }

    /**
     * Marks the ring closed in an orderly way (the reader reports end of stream once drained) and wakes a
     * sleeping reader. Idempotent.
     */
    public void close() {
        if (!closed) {
            closed = true;
            tailRelease();
            // release: every record published before happens-before a reader that sees CLOSED
            INT.setRelease(segment, (long)WRITER_STATE_OFFSET, WRITER_CLOSED);
            wakeReaderIfAsleep();
        }
    }

    private void publish(final long index, final int type) {
        if (index != claimOffset || index == NO_CLAIM) {
            throw notTheClaim(index);
        }
        final long headerOffset = index - RECORD_HEADER_LENGTH;
        segment.set(ValueLayout.JAVA_INT, headerOffset + 4, type);
        frameLengthRelease((int)(headerOffset - HEADER_LENGTH), claimFrameLength);
        // the tail in the header is not stored here: it is informative only (records are published by their
        // length) and a store per message to another cache line costs throughput; heartbeat() and close() do
        tail += claimRecordLength;
        claimOffset = NO_CLAIM;
    }

    private IllegalStateException notTheClaim(final long index) {
        return new IllegalStateException("index=" + index + " is not the outstanding claim (claim=" + claimOffset + ")");
    }

    private void wakeReaderIfAsleep() {
        if (!wakeUpsAcknowledged) {
            // opaque, and the whole cost when the reader never sleeps (busy-spin): no fence per message. A
            // reader may only sleep on the futex after this writer acknowledged its announcement, so no
            // wake-up is lost while this read is stale
            if ((int)INT.getOpaque(segment, (long)READER_MAY_SLEEP_OFFSET) == 0) {
                return;
            }
            acknowledgeWakeUps();
        }
        // store-load: the length released in publish() (or the CLOSED state) before the read of the futex
        // word; pairs with the fence in ShmRingReader.sleep() between its store of the word and its re-check
        // of the ring. Without it the read could pass the store and both sides miss each other.
        VarHandle.fullFence();
        // acquire, and the only extra cost when the futex reader is awake: the word's line is only written
        // by a reader going to sleep, so it stays shared in this core's cache
        if ((int)INT.getAcquire(segment, (long)FUTEX_OFFSET) != FUTEX_AWAKE
            && (int)INT.getAndSet(segment, (long)FUTEX_OFFSET, FUTEX_AWAKE) != FUTEX_AWAKE) {
            wakeUps++;
            ShmFutex.wake(futexWord, 1);
        }
    }

    private void acknowledgeWakeUps() {
        wakeUpsAcknowledged = true;
        // release: every record published so far happens-before a reader that acquires the acknowledgement,
        // and every commit from now on runs the fenced futex check
        INT.setRelease(segment, (long)WAKE_UPS_ACKNOWLEDGED_OFFSET, 1);
    }

    private void zeroAhead() {
        if (zeroedTo - tail <= ZERO_AHEAD / 2) {
            // only as far as the cached head allows, everything before head + capacity being free room:
            // reading the reader's head here would pull its cache line on every message
            zeroTo(Math.min(tail + ZERO_AHEAD, headCache + capacity));
        }
    }

    private void zeroTo(final long limit) {
        // plain stores: the zeros are ordered before the reader's view of them by the release of the record
        // that precedes them, published after this. Positions are multiples of 8; a piece stops at the end of
        // the data area
        long position = zeroedTo;
        while (position < limit) {
            final int index = (int)position & mask;
            final int length = (int)Math.min(Math.min(limit - position, capacity - index), ZERO_AHEAD);
            MemorySegment.copy(ZEROS, 0, segment, HEADER_LENGTH + index, length);
            position += length;
        }
        zeroedTo = position;
    }

    private void frameLengthRelease(final int index, final int frameLength) {
        // release: payload, type and the zeroed next header happen-before a reader that acquires this length
        INT.setRelease(segment, HEADER_LENGTH + (long)index, frameLength);
    }

    private void tailRelease() {
        // release: informative for monitors (stored on heartbeat and close, not per message); never torn
        LONG.setRelease(segment, (long)TAIL_OFFSET, tail);
    }

    private int frameLengthAcquire(final int index) {
        // acquire: pairs with frameLengthRelease, for a writer resuming on a ring with records in flight
        return (int)INT.getAcquire(segment, HEADER_LENGTH + (long)index);
    }

    private long headAcquire() {
        // acquire: pairs with ShmRingReader.headRelease, the reader is done with everything before head
        return (long)LONG.getAcquire(segment, (long)HEAD_OFFSET);
    }

    private long consumedAcquire() {
        // acquire: pairs with ShmRingReader.consumedRelease
        return (long)LONG.getAcquire(segment, (long)CONSUMED_OFFSET);
    }
}
