package dev.peregrine.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Memory layout of one single-producer single-consumer ring in a mapped file: a header of
 * {@link #HEADER_LENGTH} bytes followed by a data area of {@code capacity} bytes (a power of two).
 *
 * <pre>
 *   0               8       12      16      20      24      28                      64
 *   +---------------+-------+-------+-------+-------+-------+-----------------------+
 *   | magic         |version|capac- |max    |max    |record |  unused               |  read-only
 *   | "PGSHMRNG"    |       |ity    |msg len|msgs   |align  |                       |  after creation
 *   +---------------+-------+-------+-------+-------+-------+-----------------------+
 *  64               68      72              80                                     128
 *   +---------------+-------+---------------+---------------------------------------+
 *   | writer state  |writer |heartbeat      |  unused                               |  writer, rarely
 *   | ACTIVE/CLOSED |pid    |(writer clock) |                                       |
 *   +---------------+-------+---------------+---------------------------------------+
 * 128: TAIL slot  | tail position (8), informative                 | padding to 256  |  writer, rarely
 * 256: HEAD slot  | head position (8) | messages consumed (8)      | padding to 384  |  reader
 * 384: WAIT slot  | futex word (4) | reader may sleep (4) | ack (4) | padding to 512 |  reader (writer: word, ack)
 * 512: data area, capacity bytes (a power of two) of records aligned to "record align" (8 to 64):
 *
 *   +----------------+----------------+-------------------------------+---------+
 *   | frame length 4 | type 4         | payload (frame length - 8)    | to align|
 *   +----------------+----------------+-------------------------------+---------+
 * </pre>
 *
 * <p>The frame length (header plus payload, never 0 for a written record) is stored last with release
 * semantics and read with acquire: a reader that sees a non-zero length sees the type and the payload.
 * The writer keeps the free room just past its tail zeroed (topped up after each commit, a couple of KiB
 * ahead, so the zeroing is off the path of the next message) and never publishes a record before the header
 * that follows it is zero: the reader always meets either a zero (nothing yet) or a published length, never
 * a stale one from the previous lap. A {@link #TYPE_PADDING} record fills the end of the data area when the
 * next record does not fit before the wrap, and marks an aborted claim; readers skip it.
 *
 * <p>The record alignment is the ring's choice, stored in its header: {@link #CACHE_LINE_ALIGNMENT} (the
 * default) starts every record on a cache line, so a message of up to 56 bytes is one line for the reader to
 * fetch and never straddles two, the lower latency; {@link #MIN_ALIGNMENT} packs records, fewer lines per
 * small message, the higher one-way throughput (both measured in BENCHMARKS.md).
 *
 * <p>Futex wake-ups are a Dekker handshake on the futex word and the record length: the reader stores
 * {@link #FUTEX_SLEEPING}, full fence, re-checks the ring, then {@code FUTEX_WAIT}s expecting
 * {@link #FUTEX_SLEEPING}; the writer releases the length, full fence, reads the word and, if sleeping, swaps
 * it to {@link #FUTEX_AWAKE} and {@code FUTEX_WAKE}s. Either the reader's re-check sees the record or the
 * writer sees the word; a wake between re-check and wait makes the wait return at once (the word changed).
 * The writer's fence is only paid for a reader that sleeps: the reader first sets
 * {@link #READER_MAY_SLEEP_OFFSET} and parks briefly until the writer, which reads that flag (no fence) on
 * each commit and heartbeat, releases {@link #WAKE_UPS_ACKNOWLEDGED_OFFSET}; from then on every commit is
 * fenced. Records published before the acknowledgement are seen by the reader's acquire of it.
 */
public final class ShmRingDescriptor {
    /** "PGSHMRNG" in ASCII, little-endian. */
    public static final long MAGIC = 0x474E524D48534750L;
    /**
     * Layout version; a file with another version is refused. Version 3: the record alignment is a header
     * field (8 before). Version 2: the reader sleeps only after the writer acknowledged its announcement, and
     * the tail word is informative (version 1 could lose a wake-up and stored the tail per message).
     */
    public static final int VERSION = 3;
    /** Offset of the magic number. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the data capacity in bytes. */
    public static final int CAPACITY_OFFSET = 12;
    /** Offset of the maximum payload length. */
    public static final int MAX_MESSAGE_LENGTH_OFFSET = 16;
    /** Offset of the maximum number of messages in flight. */
    public static final int MAX_MESSAGES_OFFSET = 20;
    /** Offset of the record alignment in bytes. */
    public static final int RECORD_ALIGNMENT_OFFSET = 24;
    /** Offset of the writer state ({@link #WRITER_ACTIVE} or {@link #WRITER_CLOSED}). */
    public static final int WRITER_STATE_OFFSET = 64;
    /** Offset of the low 32 bits of the writer's process id, for diagnostics. */
    public static final int WRITER_PID_OFFSET = 68;
    /** Offset of the writer's heartbeat (its clock, updated now and then). */
    public static final int HEARTBEAT_OFFSET = 72;
    /**
     * Offset of the tail position, on its own 128-byte slot; informative only (for monitors), stored on the
     * writer's heartbeat and close, not per message: records are published by their length.
     */
    public static final int TAIL_OFFSET = 128;
    /** Offset of the head position, on its own 128-byte slot. */
    public static final int HEAD_OFFSET = 256;
    /** Offset of the count of messages consumed, next to the head. */
    public static final int CONSUMED_OFFSET = 264;
    /**
     * Offset of the 32-bit futex word on which a reader sleeps, on its own 128-byte slot: {@link #FUTEX_AWAKE}
     * or {@link #FUTEX_SLEEPING}. The reader sets it to sleeping, the writer swaps it back to awake and wakes.
     */
    public static final int FUTEX_OFFSET = 384;
    /** Offset of the flag by which a reader announces that it wants to sleep on the futex. */
    public static final int READER_MAY_SLEEP_OFFSET = 388;
    /**
     * Offset of the writer's acknowledgement of {@link #READER_MAY_SLEEP_OFFSET}: from the commit that sets
     * it on, the writer runs the fenced futex check on every commit; the reader sleeps only once it is set.
     */
    public static final int WAKE_UPS_ACKNOWLEDGED_OFFSET = 392;
    /** Futex word value: the reader is not (about to be) asleep; a commit needs no system call. */
    public static final int FUTEX_AWAKE = 0;
    /** Futex word value: the reader is, or is about to be, asleep in {@code FUTEX_WAIT}. */
    public static final int FUTEX_SLEEPING = 1;
    /** Length of the header; the data area starts here. */
    public static final int HEADER_LENGTH = 512;
    /** Length of a record header. */
    public static final int RECORD_HEADER_LENGTH = 8;
    /** Smallest record alignment: packed records. */
    public static final int MIN_ALIGNMENT = 8;
    /** Largest record alignment, and the default: one cache line. */
    public static final int CACHE_LINE_ALIGNMENT = 64;
    /** Record type of a message. */
    public static final int TYPE_MESSAGE = 1;
    /** Record type of padding (end of the data area, or an aborted claim). */
    public static final int TYPE_PADDING = 2;
    /** Writer state: open. */
    public static final int WRITER_ACTIVE = 1;
    /** Writer state: closed in an orderly way; what was written is still to be read. */
    public static final int WRITER_CLOSED = 2;
    /** Smallest data capacity. */
    public static final int MIN_CAPACITY = 1024;
    /** Largest data capacity. */
    public static final int MAX_CAPACITY = 1 << 30;

    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private ShmRingDescriptor() {
    }

    /**
     * Bytes of the file holding a ring.
     *
     * @param capacity the data capacity
     * @return header plus data
     */
    public static long fileLength(final int capacity) {
        return (long)HEADER_LENGTH + capacity;
    }

    /**
     * Largest payload a ring of this capacity can take: an empty ring must always accept a maximal
     * record, wherever the wrap point is, so a record plus the zeroed header after it fits in half.
     *
     * @param capacity the data capacity
     * @return the largest allowed maximum message length
     */
    public static int maxMessageLengthFor(final int capacity) {
        return capacity / 2 - RECORD_HEADER_LENGTH - CACHE_LINE_ALIGNMENT;
    }

    /**
     * Checks ring parameters.
     *
     * @param capacity data capacity, a power of two in [{@link #MIN_CAPACITY}, {@link #MAX_CAPACITY}]
     * @param maxMessageLength largest payload, in [0, {@link #maxMessageLengthFor}]
     * @param maxMessages most messages in flight, at least 1
     * @throws IllegalArgumentException naming the bad value
     */
    public static void checkParameters(final int capacity, final int maxMessageLength, final int maxMessages) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " must be a power of two in ["
                + MIN_CAPACITY + ", " + MAX_CAPACITY + "]");
        }
        if (maxMessageLength < 0 || maxMessageLength > maxMessageLengthFor(capacity)) {
            throw new IllegalArgumentException("maxMessageLength=" + maxMessageLength + " must be in [0, "
                + maxMessageLengthFor(capacity) + "] for capacity=" + capacity);
        }
        if (maxMessages < 1) {
            throw new IllegalArgumentException("maxMessages=" + maxMessages + " must be at least 1");
        }
    }

    /**
     * Checks a record alignment.
     *
     * @param alignment a power of two in [{@link #MIN_ALIGNMENT}, {@link #CACHE_LINE_ALIGNMENT}]
     * @throws IllegalArgumentException naming the bad value
     */
    public static void checkAlignment(final int alignment) {
        if (alignment < MIN_ALIGNMENT || alignment > CACHE_LINE_ALIGNMENT || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("recordAlignment=" + alignment + " must be a power of two in ["
                + MIN_ALIGNMENT + ", " + CACHE_LINE_ALIGNMENT + "]");
        }
    }

    /**
     * Writes a fresh header with cache-line record alignment; see
     * {@link #initialise(MemorySegment, int, int, int, int)}.
     *
     * @param segment the mapped file, at least {@link #fileLength} bytes
     * @param capacity data capacity
     * @param maxMessageLength largest payload
     * @param maxMessages most messages in flight
     */
    public static void initialise(final MemorySegment segment, final int capacity, final int maxMessageLength,
        final int maxMessages) {
        initialise(segment, capacity, maxMessageLength, maxMessages, CACHE_LINE_ALIGNMENT);
    }

    /**
     * Writes a fresh header into a zero-filled segment; the magic number is stored last (release), so a
     * segment with a valid magic has a complete header.
     *
     * @param segment the mapped file, at least {@link #fileLength} bytes
     * @param capacity data capacity
     * @param maxMessageLength largest payload
     * @param maxMessages most messages in flight
     * @param alignment record alignment; see {@link #checkAlignment}
     */
    public static void initialise(final MemorySegment segment, final int capacity, final int maxMessageLength,
        final int maxMessages, final int alignment) {
        checkParameters(capacity, maxMessageLength, maxMessages);
        checkAlignment(alignment);
        if (segment.byteSize() < fileLength(capacity)) {
            throw new IllegalArgumentException("segment.byteSize=" + segment.byteSize() + " < fileLength="
                + fileLength(capacity));
        }
        segment.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
        segment.set(ValueLayout.JAVA_INT, CAPACITY_OFFSET, capacity);
        segment.set(ValueLayout.JAVA_INT, MAX_MESSAGE_LENGTH_OFFSET, maxMessageLength);
        segment.set(ValueLayout.JAVA_INT, MAX_MESSAGES_OFFSET, maxMessages);
        segment.set(ValueLayout.JAVA_INT, RECORD_ALIGNMENT_OFFSET, alignment);
        segment.set(ValueLayout.JAVA_INT, WRITER_STATE_OFFSET, WRITER_ACTIVE);
        segment.set(ValueLayout.JAVA_INT, WRITER_PID_OFFSET, (int)ProcessHandle.current().pid());
        // release: every header field above happens-before a reader that acquires the magic
        LONG.setRelease(segment, (long)MAGIC_OFFSET, MAGIC);
    }

    /**
     * Checks that a segment holds a ring this code may trust: magic, version, size and parameters.
     *
     * @param segment the mapped file
     * @param expectedCapacity the capacity agreed on, or 0 to take the header's word for it
     * @param expectedMaxMessageLength the maximum agreed on, or -1 to take the header's word for it
     * @return {@code null} if the ring is valid, otherwise why it is refused
     */
    public static String validate(final MemorySegment segment, final int expectedCapacity,
        final int expectedMaxMessageLength) {
        try {
            geometry(segment, expectedCapacity, expectedMaxMessageLength);
            return null;
        } catch (final IllegalArgumentException ex) {
            return ex.getMessage();
        }
    }

    /**
     * The parameters of a ring, read from its header once and checked as {@link #validate} checks them. The header
     * lies in a file the other process can still write: a field read again after the check could hold anything (a
     * record alignment of 0 would keep a reader on one padding record forever), so a reader or a writer takes its
     * parameters from this snapshot and never from the file again.
     *
     * @param capacity the data area's bytes, a power of two
     * @param maxMessageLength the longest message
     * @param maxMessages most messages in the ring at once
     * @param alignment every record's start and length are multiples of this
     */
    record Geometry(int capacity, int maxMessageLength, int maxMessages, int alignment) {
    }

    /**
     * Reads each header field once, then checks what was read.
     *
     * @param segment the mapped file
     * @param expectedCapacity the capacity agreed on, or 0 to take the header's word for it
     * @param expectedMaxMessageLength the maximum agreed on, or -1 to take the header's word for it
     * @return the checked parameters
     * @throws IllegalArgumentException why the ring is refused
     */
    static Geometry geometry(final MemorySegment segment, final int expectedCapacity,
        final int expectedMaxMessageLength) {
        if (segment.byteSize() < HEADER_LENGTH) {
            throw new IllegalArgumentException("size=" + segment.byteSize() + " is smaller than the header ("
                + HEADER_LENGTH + " bytes)");
        }
        // acquire: pairs with the release of the magic in initialise()
        final long magic = (long)LONG.getAcquire(segment, (long)MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new IllegalArgumentException("magic=0x" + Long.toHexString(magic) + " is not a Peregrine ring"
                + " (expected 0x" + Long.toHexString(MAGIC) + ")");
        }
        final int version = segment.get(ValueLayout.JAVA_INT, VERSION_OFFSET);
        if (version != VERSION) {
            throw new IllegalArgumentException("version=" + version + " is not the supported layout version " + VERSION);
        }
        final int capacity = segment.get(ValueLayout.JAVA_INT, CAPACITY_OFFSET);
        final int maxMessageLength = segment.get(ValueLayout.JAVA_INT, MAX_MESSAGE_LENGTH_OFFSET);
        final int maxMessages = segment.get(ValueLayout.JAVA_INT, MAX_MESSAGES_OFFSET);
        final int alignment = segment.get(ValueLayout.JAVA_INT, RECORD_ALIGNMENT_OFFSET);
        try {
            checkParameters(capacity, maxMessageLength, maxMessages);
            checkAlignment(alignment);
        } catch (final IllegalArgumentException ex) {
            throw new IllegalArgumentException("bad header: " + ex.getMessage(), ex);
        }
        if (expectedCapacity != 0 && capacity != expectedCapacity) {
            throw new IllegalArgumentException("capacity=" + capacity + " does not match the agreed capacity="
                + expectedCapacity);
        }
        if (expectedMaxMessageLength >= 0 && maxMessageLength != expectedMaxMessageLength) {
            throw new IllegalArgumentException("maxMessageLength=" + maxMessageLength + " does not match the agreed"
                + " maxMessageLength=" + expectedMaxMessageLength);
        }
        if (segment.byteSize() != fileLength(capacity)) {
            throw new IllegalArgumentException("size=" + segment.byteSize() + " does not match capacity=" + capacity
                + " (expected " + fileLength(capacity) + " bytes)");
        }
        return new Geometry(capacity, maxMessageLength, maxMessages, alignment);
    }

    /**
     * Rounds a length up to a record alignment.
     *
     * @param length a length
     * @param alignment the ring's record alignment, a power of two
     * @return the aligned length
     */
    public static int align(final int length, final int alignment) {
        return (length + alignment - 1) & -alignment;
    }

    /**
     * The record alignment of a validated ring.
     *
     * @param segment the ring
     * @return its record alignment
     */
    public static int alignmentOf(final MemorySegment segment) {
        return segment.get(ValueLayout.JAVA_INT, RECORD_ALIGNMENT_OFFSET);
    }
}
