package dev.peregrine.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

import static dev.peregrine.shm.ShmRingDescriptor.CONSUMED_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.FUTEX_AWAKE;
import static dev.peregrine.shm.ShmRingDescriptor.FUTEX_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.FUTEX_SLEEPING;
import static dev.peregrine.shm.ShmRingDescriptor.HEADER_LENGTH;
import static dev.peregrine.shm.ShmRingDescriptor.HEAD_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.INT;
import static dev.peregrine.shm.ShmRingDescriptor.LONG;
import static dev.peregrine.shm.ShmRingDescriptor.READER_MAY_SLEEP_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.shm.ShmRingDescriptor.TYPE_MESSAGE;
import static dev.peregrine.shm.ShmRingDescriptor.TYPE_PADDING;
import static dev.peregrine.shm.ShmRingDescriptor.WAKE_UPS_ACKNOWLEDGED_OFFSET;
import static dev.peregrine.shm.ShmRingDescriptor.WRITER_CLOSED;
import static dev.peregrine.shm.ShmRingDescriptor.WRITER_STATE_OFFSET;

/**
 * The consuming side of a {@link ShmRingDescriptor ring}: {@link #poll} hands each message to a handler as a
 * view {@code (segment, offset, length)} into the mapped ring, then releases the room to the writer.
 *
 * <p>Every record header read from the ring is checked (the writer may be another, faulty, process): a bad
 * one makes {@link #poll} answer {@link #CORRUPT} with {@link #corruption()} saying why.
 *
 * <p>Not thread-safe: one reader thread.
 */
public final class ShmRingReader {
    /** Why a ring is given up on when it keeps filling past {@link #goneWriterDrainBound()}. */
    static final String KEPT_FILLING = "the peer's rendezvous socket closed but its ring kept filling for more than a"
        + " lap of the ring: a process still holding the mapping writes to it";

    /** A record header in the ring is impossible; the ring cannot be trusted any more. */
    public static final int CORRUPT = -2;

    private static final long MIN_UNACKNOWLEDGED_PARK_NS = 10_000;
    private static final long MAX_UNACKNOWLEDGED_PARK_NS = 1_000_000;

    private final MemorySegment segment;
    private final MemorySegment futexWord;
    private final MemorySegment timespec;
    private final int capacity;
    private final int mask;
    private final int maxMessageLength;
    private final int alignment;
    private long head;
    private long consumed;
    private long futexWaits;
    private String corruption;
    private boolean announced;
    private boolean acknowledged;
    private boolean stopRequested;
    private long unacknowledgedParkNs = MIN_UNACKNOWLEDGED_PARK_NS;

    /**
     * Wraps a validated ring, resuming from the head stored in its header.
     *
     * @param segment the mapped ring file; see {@link ShmRingDescriptor#validate}
     * @throws IllegalArgumentException if the segment is not a valid ring
     */
    public ShmRingReader(final MemorySegment segment) {
        final ShmRingDescriptor.Geometry geometry;
        try {
            geometry = ShmRingDescriptor.geometry(segment, 0, -1); // read once: the other process can rewrite the header
        } catch (final IllegalArgumentException ex) {
            throw new IllegalArgumentException("ring refused: " + ex.getMessage(), ex);
        }
        this.segment = segment;
        this.futexWord = segment.asSlice(FUTEX_OFFSET, 4);
        this.timespec = Arena.ofAuto().allocate(16, 8);
        this.capacity = geometry.capacity();
        this.mask = capacity - 1;
        this.maxMessageLength = geometry.maxMessageLength();
        this.alignment = geometry.alignment();
        final long storedHead = (long)LONG.getAcquire(segment, (long)HEAD_OFFSET);
        this.consumed = (long)LONG.getAcquire(segment, (long)CONSUMED_OFFSET);
        // the head comes from the shared file: a misaligned one would make every record access fault
        if (storedHead < 0 || (storedHead & (alignment - 1)) != 0) {
            this.head = 0;
            this.corruption = "head=" + storedHead + " is not a non-negative multiple of the record alignment="
                + alignment;
        } else {
            this.head = storedHead;
        }
    }

    /**
     * Delivers up to {@code limit} messages, then gives their room back to the writer.
     *
     * @param handler receives each message; if it throws, the messages before and including the failing one
     *     count as consumed
     * @param limit most messages to deliver
     * @return messages delivered, or {@link #CORRUPT} (also for records past a whole lap of the ring, which
     *     bounds the work of one call by the capacity even when every record is padding)
     */
    public int poll(final ShmMessageHandler handler, final int limit) {
        if (corruption != null) {
            return CORRUPT;
        }
        stopRequested = false;
        final long head = this.head;
        long position = head;
        int count = 0;
        try {
            while (count < limit) {
                final int index = (int)position & mask;
                final int frameLength = frameLengthAcquire(index);
                if (frameLength == 0) {
                    break;
                }
                if (frameLength < RECORD_HEADER_LENGTH || frameLength > capacity - index) {
                    return corrupt("frameLength=" + frameLength + " at index=" + index + " capacity=" + capacity);
                }
                final int type = segment.get(ValueLayout.JAVA_INT, HEADER_LENGTH + index + 4L);
                final int recordLength = ShmRingDescriptor.align(frameLength, alignment);
                // a writer never has more than a lap in flight (the header after its last record is free room
                // too): records past it, e.g. a lap of padding, would keep this loop going for ever
                if (position + recordLength - head > capacity - RECORD_HEADER_LENGTH) {
                    return corrupt("records past a whole lap at index=" + index + ": " + (position - head)
                        + " bytes read in this poll, capacity=" + capacity);
                }
                if (type == TYPE_MESSAGE) {
                    final int length = frameLength - RECORD_HEADER_LENGTH;
                    if (length > maxMessageLength) {
                        return corrupt("length=" + length + " > maxMessageLength=" + maxMessageLength + " at index=" + index);
                    }
                    position += recordLength;
                    count++;
                    handler.onMessage(segment, HEADER_LENGTH + index + (long)RECORD_HEADER_LENGTH, length);
                    if (stopRequested) {
                        stopRequested = false;
                        break;
                    }
                } else if (type == TYPE_PADDING) {
                    position += recordLength;
                } else {
                    return corrupt("type=" + type + " at index=" + index);
                }
            }
        } finally {
            if (position != head) {
                this.head = position;
                consumed += count;
                consumedRelease(consumed);
                headRelease(position);
            }
        }
        return count;
    }

    /**
     * Makes the {@link #poll} in progress return after the message being delivered, which counts as consumed;
     * called from the handler (one that closes its channel, say). Without a poll in progress it does nothing.
     */
    public void stopPoll() {
        stopRequested = true;
    }

    /**
     * Whether a record (message or padding) is waiting; does not consume it.
     *
     * @return true if {@link #poll} would find something
     */
    public boolean hasRecord() {
        return frameLengthAcquire((int)head & mask) != 0;
    }

    /**
     * Whether the writer closed the ring in an orderly way; what it wrote before may still be waiting.
     *
     * @return true once the writer's state is closed
     */
    public boolean isWriterClosed() {
        // acquire: pairs with the release in ShmRingWriter.close(), so every record before it is visible
        return (int)INT.getAcquire(segment, (long)WRITER_STATE_OFFSET) == WRITER_CLOSED;
    }

    /**
     * Sleeps in the kernel until the writer commits, closes, or {@code timeoutNs} passes: announces the
     * sleep in the futex word, re-checks the ring, and only then waits. Race-free against a concurrent
     * commit (see the handshake in {@link ShmRingDescriptor}), so the timeout only bounds how long the caller
     * goes without checking the peer's liveness. Until the writer has acknowledged that this reader sleeps
     * (on its next commit or heartbeat) it parks for a short, growing while instead, because the writer does
     * not check the futex word before that. Requires {@link ShmFutex#isAvailable()}.
     *
     * @param timeoutNs the longest sleep
     * @return true if it waited (it may still have been woken at once)
     */
    public boolean sleep(final long timeoutNs) {
        if (!acknowledged && !wakeUpsAcknowledged()) {
            return parkUntilAcknowledged(timeoutNs);
        }
        // opaque: the fence below orders it; the writer swaps the word back to awake before it wakes us
        INT.setOpaque(segment, (long)FUTEX_OFFSET, FUTEX_SLEEPING);
        // store-load: the futex word before the re-check of the ring; pairs with the writer's fence between
        // its length release and its read of the futex word (ShmRingWriter.wakeReaderIfAsleep)
        VarHandle.fullFence();
        if (hasRecord() || isWriterClosed()) {
            INT.setOpaque(segment, (long)FUTEX_OFFSET, FUTEX_AWAKE);
            return false;
        }
        // expects SLEEPING: if the writer swapped the word since the re-check, the wait returns at once
        futexWaits++;
        ShmFutex.await(futexWord, FUTEX_SLEEPING, timespec, timeoutNs);
        // on a timeout or a spurious return the writer did not clear the word; clear it so it issues no
        // needless wake
        INT.setOpaque(segment, (long)FUTEX_OFFSET, FUTEX_AWAKE);
        return true;
    }

    private boolean wakeUpsAcknowledged() {
        if (!announced) {
            announced = true;
            // volatile: the writer reads this flag (opaque) on every commit until it acknowledges it
            INT.setVolatile(segment, (long)READER_MAY_SLEEP_OFFSET, 1);
        }
        // acquire: pairs with the release in ShmRingWriter.acknowledgeWakeUps, so the re-check in sleep()
        // sees every record published before the acknowledgement; later ones run the fenced handshake
        acknowledged = (int)INT.getAcquire(segment, (long)WAKE_UPS_ACKNOWLEDGED_OFFSET) != 0;
        return acknowledged;
    }

    private boolean parkUntilAcknowledged(final long timeoutNs) {
        if (hasRecord() || isWriterClosed()) {
            return false;
        }
        LockSupport.parkNanos(Math.min(timeoutNs, unacknowledgedParkNs));
        unacknowledgedParkNs = Math.min(MAX_UNACKNOWLEDGED_PARK_NS, unacknowledgedParkNs * 2);
        return true;
    }

    /**
     * How many times this reader waited on the futex.
     *
     * @return the count
     */
    public long futexWaits() {
        return futexWaits;
    }

    /**
     * Why the ring was declared corrupt.
     *
     * @return the reason, or {@code null}
     */
    public String corruption() {
        return corruption;
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
     * The most records one lap of the ring holds: each takes a record header at least.
     *
     * @return records
     */
    int recordsPerLap() {
        return capacity / ShmRingDescriptor.RECORD_HEADER_LENGTH;
    }

    /**
     * The most records to read once the writer's process is gone. Everything written before it went fits in one lap,
     * and the reader is never more than a lap behind: two laps deliver all of it, and bound a ring that still fills
     * (a child that inherited the mapping, a hostile peer) without ever cutting short what was there when it went.
     *
     * @return records
     */
    long goneWriterDrainBound() {
        return 2L * recordsPerLap();
    }

    /**
     * Largest payload the ring carries.
     *
     * @return bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    private int corrupt(final String reason) {
        corruption = reason;
        return CORRUPT;
    }

    private int frameLengthAcquire(final int index) {
        // acquire: pairs with ShmRingWriter.frameLengthRelease, making the payload and type visible
        return (int)INT.getAcquire(segment, HEADER_LENGTH + (long)index);
    }

    private void headRelease(final long head) {
        // release: the reader is done with every byte before head; pairs with ShmRingWriter.headAcquire
        LONG.setRelease(segment, (long)HEAD_OFFSET, head);
    }

    private void consumedRelease(final long consumed) {
        // release: pairs with ShmRingWriter.consumedAcquire
        LONG.setRelease(segment, (long)CONSUMED_OFFSET, consumed);
    }
}
