package dev.peregrine.broadcast;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Memory layout of a broadcast log file: one writer, many readers, a ring of fixed-size record slots.
 *
 * <pre>
 *    0        8      12       16       20       24       28      32               40               64
 *   +--------+------+--------+--------+--------+--------+-------+----------------+----------------+
 *   | magic  |vers- |capacity|max rec |slot    |readers |policy |initial position| idle timeout ms|  read-only
 *   |PGBCAST1|ion   |(slots) |length  |length  |        |       |                |  (40..48)      |  after creation
 *   +--------+------+--------+--------+--------+--------+-------+----------------+----------------+
 *   64: writer state (4) | writer pid (4) | writer generation (4)                      to 128 |  a writer, rarely
 *  128: TAIL slot    | tail position (8): next position to write             padding to 256 |  the writer
 *  256: ATTACH slot  | attach epoch (8), added to by each attaching reader   padding to 384 |  readers
 *  384: ACK slot     | attach epoch acknowledged by the writer (8)            padding to 512 |  the writer
 *  512: WAIT slot    | futex word (4) | sleepers (4) | futex readers (4) | wake request (4)  to 640 |  readers; writer
 *  640: readers' table, "readers" entries of 128 bytes each:
 *       +----------------------------+-----------------+-------------+-------------+----------------+
 *       | state word (8): generation | position (8)    | evict reason| name length | name (64 bytes)|
 *       |   (high 32) | state (low)  | next to read    | (4)         | (4)         |                |
 *       +----------------------------+-----------------+-------------+-------------+----------------+
 *  640 + 128 * readers: data, "capacity" slots of "slot length" bytes (a multiple of 64):
 *       +------------------+------------+-----------+----------------------------------------------+
 *       | sequence (8)     | length (4) | unused (4)| payload (length, at most max record length)  |
 *       +------------------+------------+-----------+----------------------------------------------+
 * </pre>
 *
 * <p>Positions count records and are 64-bit; they wrap past {@code Long.MAX_VALUE} like any two's-complement
 * counter, so they are only ever compared by subtraction. The record at position {@code p} lives in slot
 * {@code p & (capacity - 1)}.
 *
 * <p>A record is a sequence lock. The writer stores the slot's sequence {@code = p}, then a store-store fence, then
 * the length and payload, then the tail {@code p + 1} with release. A reader acquires the tail; a record below it was
 * complete when the tail was stored. It reads the record (copies it out under {@code DROP}), then a load-load fence,
 * then the sequence again: the record was not overwritten while read exactly if the sequence is still {@code p}, since
 * a writer that reuses the slot changes the sequence before any byte of the payload.
 *
 * <p>A reader's entry: the state word (generation and state) is changed by compare-and-set only, by the reader that
 * attaches or detaches and by a writer that evicts; each attach and each eviction adds one to the generation, so a
 * reader that finds another generation in its entry knows it was evicted (the reason is in its entry). The reader
 * alone stores its position, with release.
 */
public final class BroadcastDescriptor {
    /** "PGBCAST1" in ASCII, little-endian. */
    public static final long MAGIC = 0x3154534143424750L;
    /** Layout version; a file with another version is refused. */
    public static final int VERSION = 2;
    /** Offset of the magic number. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the capacity in records, a power of two. */
    public static final int CAPACITY_OFFSET = 12;
    /** Offset of the maximum record length. */
    public static final int MAX_RECORD_LENGTH_OFFSET = 16;
    /** Offset of the slot length. */
    public static final int SLOT_LENGTH_OFFSET = 20;
    /** Offset of the number of entries in the readers' table. */
    public static final int READERS_OFFSET = 24;
    /** Offset of the policy ({@link BroadcastPolicy#ordinal()}). */
    public static final int POLICY_OFFSET = 28;
    /** Offset of the position of the first record ever written. */
    public static final int INITIAL_POSITION_OFFSET = 32;
    /** Offset of the idle time after which a writer under {@code BLOCK} evicts a reader that holds it back. */
    public static final int IDLE_TIMEOUT_MS_OFFSET = 40;
    /** Offset of the writer state: {@link #WRITER_NONE}, {@link #WRITER_ACTIVE} or {@link #WRITER_CLOSED}. */
    public static final int WRITER_STATE_OFFSET = 64;
    /** Offset of the low 32 bits of the writer's pid, for diagnostics only (liveness is its lock). */
    public static final int WRITER_PID_OFFSET = 68;
    /** Offset of the writer generation: one more for each writer that opened the log. */
    public static final int WRITER_GENERATION_OFFSET = 72;
    /** Offset of the tail: the position the next record will have. */
    public static final int TAIL_OFFSET = 128;
    /** Offset of the attach epoch. */
    public static final int ATTACH_EPOCH_OFFSET = 256;
    /** Offset of the attach epoch the writer has taken into account. */
    public static final int ATTACH_ACK_OFFSET = 384;
    /** Offset of the futex word, changed by the writer to wake sleeping readers. */
    public static final int FUTEX_OFFSET = 512;
    /** Offset of the number of readers asleep (or about to be) on the futex word. */
    public static final int SLEEPERS_OFFSET = 516;
    /** Offset of the number of attached readers that may sleep on the futex word (for monitors). */
    public static final int FUTEX_READERS_OFFSET = 520;
    /**
     * Offset of the wake request: a reader about to sleep sets it to 1; the writer, after a record, clears it and
     * wakes every sleeper only if it was set, so readers already woken but not yet running cost no more wake-ups.
     */
    public static final int WAKE_REQUEST_OFFSET = 524;
    /** Offset of the readers' table. */
    public static final int READERS_TABLE_OFFSET = 640;
    /** Length of one entry of the readers' table. */
    public static final int READER_ENTRY_LENGTH = 128;
    /** Offset in an entry of its state word. */
    public static final int ENTRY_STATE_OFFSET = 0;
    /** Offset in an entry of the reader's position. */
    public static final int ENTRY_POSITION_OFFSET = 8;
    /** Offset in an entry of the eviction reason. */
    public static final int ENTRY_REASON_OFFSET = 16;
    /** Offset in an entry of the name's length. */
    public static final int ENTRY_NAME_LENGTH_OFFSET = 20;
    /** Offset in an entry of the name. */
    public static final int ENTRY_NAME_OFFSET = 24;
    /** Longest reader name, in bytes of UTF-8. */
    public static final int MAX_NAME_LENGTH = 64;
    /** Offset in a slot of the record's sequence (its position). */
    public static final int RECORD_SEQUENCE_OFFSET = 0;
    /** Offset in a slot of the record's length. */
    public static final int RECORD_LENGTH_OFFSET = 8;
    /** Length of a record header; the payload follows it. */
    public static final int RECORD_HEADER_LENGTH = 16;
    /** Entry state: free. */
    public static final int ENTRY_FREE = 0;
    /** Entry state: taken by an attaching reader, not yet counted by the writer. */
    public static final int ENTRY_CLAIMED = 1;
    /** Entry state: a reader is attached. */
    public static final int ENTRY_ATTACHED = 2;
    /** Entry state: the reader was evicted; the entry may be taken again. */
    public static final int ENTRY_EVICTED = 3;
    /** Eviction reason: the reader's process is gone (its lock was free). */
    public static final int REASON_DEAD = 1;
    /** Eviction reason: the reader held the writer back without moving for the idle timeout. */
    public static final int REASON_IDLE = 2;
    /** Eviction reason: the reader's position in the table made no sense. */
    public static final int REASON_CORRUPT = 3;
    /** Writer state: no writer has opened the log yet. */
    public static final int WRITER_NONE = 0;
    /** Writer state: a writer has it open (if its lock is held). */
    public static final int WRITER_ACTIVE = 1;
    /** Writer state: the last writer closed it in an orderly way. */
    public static final int WRITER_CLOSED = 2;
    /** Smallest capacity in records. */
    public static final int MIN_CAPACITY = 2;
    /** Largest capacity in records. */
    public static final int MAX_CAPACITY = 1 << 24;
    /** Largest maximum record length. */
    public static final int MAX_RECORD_LENGTH = 1 << 20;
    /** Largest readers' table. */
    public static final int MAX_READERS = 4096;

    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private BroadcastDescriptor() {
    }

    /**
     * The slot length for a maximum record length: header plus payload, rounded up to a cache line.
     *
     * @param maxRecordLength the longest record
     * @return the slot length
     */
    public static int slotLength(final int maxRecordLength) {
        return (RECORD_HEADER_LENGTH + maxRecordLength + 63) & ~63;
    }

    /**
     * Offset of the data area.
     *
     * @param readers entries in the readers' table
     * @return the offset
     */
    public static long dataOffset(final int readers) {
        return READERS_TABLE_OFFSET + (long)READER_ENTRY_LENGTH * readers;
    }

    /**
     * Bytes of a log file.
     *
     * @param capacity records
     * @param maxRecordLength the longest record
     * @param readers entries in the readers' table
     * @return the length
     */
    public static long fileLength(final int capacity, final int maxRecordLength, final int readers) {
        return dataOffset(readers) + (long)capacity * slotLength(maxRecordLength);
    }

    /**
     * Checks creation parameters.
     *
     * @param capacity a power of two in [{@link #MIN_CAPACITY}, {@link #MAX_CAPACITY}]
     * @param maxRecordLength in [0, {@link #MAX_RECORD_LENGTH}]
     * @param readers in [1, {@link #MAX_READERS}]
     * @throws IllegalArgumentException naming the bad value
     */
    public static void checkParameters(final int capacity, final int maxRecordLength, final int readers) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " must be a power of two in [" + MIN_CAPACITY
                + ", " + MAX_CAPACITY + "]");
        }
        if (maxRecordLength < 0 || maxRecordLength > MAX_RECORD_LENGTH) {
            throw new IllegalArgumentException("maxRecordLength=" + maxRecordLength + " must be in [0, "
                + MAX_RECORD_LENGTH + "]");
        }
        if (readers < 1 || readers > MAX_READERS) {
            throw new IllegalArgumentException("readers=" + readers + " must be in [1, " + MAX_READERS + "]");
        }
    }

    /**
     * The parameters of a log, read from its header once and checked: the file can be written by others, so a
     * reader or writer takes its parameters from this snapshot and never from the file again.
     *
     * @param capacity records, a power of two
     * @param maxRecordLength the longest record
     * @param slotLength bytes per slot
     * @param readers entries in the readers' table
     * @param policy the policy
     * @param initialPosition the position of the first record ever written
     * @param idleTimeoutMs the idle eviction time, 0 for none
     */
    record Geometry(int capacity, int maxRecordLength, int slotLength, int readers, BroadcastPolicy policy,
        long initialPosition, long idleTimeoutMs) {
        long dataOffset() {
            return BroadcastDescriptor.dataOffset(readers);
        }

        long slotOffset(final long position) {
            return dataOffset() + (position & (capacity - 1)) * (long)slotLength;
        }

        long entryOffset(final int index) {
            return READERS_TABLE_OFFSET + (long)READER_ENTRY_LENGTH * index;
        }
    }

    /**
     * Writes a fresh header into a zero-filled segment, the magic last (release).
     *
     * @param segment the mapped file
     * @param capacity records
     * @param maxRecordLength the longest record
     * @param readers entries in the readers' table
     * @param policy the policy
     * @param initialPosition the first record's position
     * @param idleTimeoutMs idle eviction time under {@code BLOCK}, 0 for none
     */
    static void initialise(final MemorySegment segment, final int capacity, final int maxRecordLength,
        final int readers, final BroadcastPolicy policy, final long initialPosition, final long idleTimeoutMs) {
        checkParameters(capacity, maxRecordLength, readers);
        segment.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
        segment.set(ValueLayout.JAVA_INT, CAPACITY_OFFSET, capacity);
        segment.set(ValueLayout.JAVA_INT, MAX_RECORD_LENGTH_OFFSET, maxRecordLength);
        segment.set(ValueLayout.JAVA_INT, SLOT_LENGTH_OFFSET, slotLength(maxRecordLength));
        segment.set(ValueLayout.JAVA_INT, READERS_OFFSET, readers);
        segment.set(ValueLayout.JAVA_INT, POLICY_OFFSET, policy.ordinal());
        segment.set(ValueLayout.JAVA_LONG, INITIAL_POSITION_OFFSET, initialPosition);
        segment.set(ValueLayout.JAVA_LONG, IDLE_TIMEOUT_MS_OFFSET, idleTimeoutMs);
        segment.set(ValueLayout.JAVA_LONG, TAIL_OFFSET, initialPosition);
        // release: every field above happens-before a party that acquires the magic
        LONG.setRelease(segment, (long)MAGIC_OFFSET, MAGIC);
    }

    /**
     * Reads each header field once and checks it against the file's real size.
     *
     * @param segment the mapped file
     * @param fileSize the file's size as the file system tells it
     * @return the checked parameters
     * @throws IllegalArgumentException why the file is refused
     */
    static Geometry geometry(final MemorySegment segment, final long fileSize) {
        if (fileSize < READERS_TABLE_OFFSET || segment.byteSize() < READERS_TABLE_OFFSET) {
            throw new IllegalArgumentException("file is " + fileSize + " bytes, shorter than a header ("
                + READERS_TABLE_OFFSET + ")");
        }
        final long magic = (long)LONG.getAcquire(segment, (long)MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new IllegalArgumentException("magic=0x" + Long.toHexString(magic) + " is not a broadcast log's");
        }
        final int version = segment.get(ValueLayout.JAVA_INT, VERSION_OFFSET);
        if (version != VERSION) {
            throw new IllegalArgumentException("version=" + version + ", this code reads " + VERSION);
        }
        final int capacity = segment.get(ValueLayout.JAVA_INT, CAPACITY_OFFSET);
        final int maxRecordLength = segment.get(ValueLayout.JAVA_INT, MAX_RECORD_LENGTH_OFFSET);
        final int slotLength = segment.get(ValueLayout.JAVA_INT, SLOT_LENGTH_OFFSET);
        final int readers = segment.get(ValueLayout.JAVA_INT, READERS_OFFSET);
        final int policy = segment.get(ValueLayout.JAVA_INT, POLICY_OFFSET);
        final long initialPosition = segment.get(ValueLayout.JAVA_LONG, INITIAL_POSITION_OFFSET);
        final long idleTimeoutMs = segment.get(ValueLayout.JAVA_LONG, IDLE_TIMEOUT_MS_OFFSET);
        checkParameters(capacity, maxRecordLength, readers);
        if (slotLength != slotLength(maxRecordLength)) {
            throw new IllegalArgumentException("slotLength=" + slotLength + " does not match maxRecordLength="
                + maxRecordLength);
        }
        if (policy < 0 || policy >= BroadcastPolicy.values().length) {
            throw new IllegalArgumentException("policy=" + policy + " is unknown");
        }
        if (idleTimeoutMs < 0) {
            throw new IllegalArgumentException("idleTimeoutMs=" + idleTimeoutMs + " is negative");
        }
        final long needed = fileLength(capacity, maxRecordLength, readers);
        if (fileSize < needed || segment.byteSize() < needed) {
            throw new IllegalArgumentException("file is " + Math.min(fileSize, segment.byteSize())
                + " bytes, its header needs " + needed + " (shrunk?)");
        }
        return new Geometry(capacity, maxRecordLength, slotLength, readers, BroadcastPolicy.values()[policy],
            initialPosition, idleTimeoutMs);
    }
}
