package dev.peregrine.mold;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The most recent messages of one session, kept off-heap for the re-request server: a bounded window of
 * at most {@code maxMessages} messages and {@code maxBytes} bytes; older messages are forgotten.
 * Appending and copying allocate nothing.
 *
 * <p>The store can live in a memory-mapped file, so that a restarted publisher or re-request server goes
 * on from where it stopped. Layout (native byte order, one file or one off-heap segment):
 * <pre>
 *  0       8        12             16              24          40           48          56          64    128
 * +-------+--------+--------------+---------------+-----------+------------+-----------+-----------+-----+
 * | magic | version| index        | data capacity | session   | first      | next      | write     | pad |
 * |       |        | capacity (n) | (bytes)       | (10 + 6)  | sequence   | sequence  | position  |     |
 * +-------+--------+--------------+---------------+-----------+------------+-----------+-----------+-----+
 * | index: n entries of 16 bytes, entry = sequence &amp; (n - 1): data position (8), length (4), pad (4) |
 * +------------------------------------------------------------------------------------------------------+
 * | data: a ring of data-capacity bytes; a message never wraps (the rest of the ring is skipped)         |
 * +------------------------------------------------------------------------------------------------------+
 * </pre>
 * Positions grow without bound; a position's place in the ring is {@code position % capacity}.
 *
 * <p>Not thread-safe: one reactor thread owns the store (publisher and re-request server on one reactor).
 */
public final class MoldUDP64MessageStore implements AutoCloseable {
    private static final long MAGIC = 0x3436_5044_4C4F_4D50L; // "PMOLDP64"
    private static final int VERSION = 1;
    private static final int MAGIC_OFFSET = 0;
    private static final int VERSION_OFFSET = 8;
    private static final int INDEX_CAPACITY_OFFSET = 12;
    private static final int DATA_CAPACITY_OFFSET = 16;
    private static final int SESSION_OFFSET = 24;
    private static final int FIRST_SEQUENCE_OFFSET = 40;
    private static final int NEXT_SEQUENCE_OFFSET = 48;
    private static final int WRITE_POSITION_OFFSET = 56;
    private static final int HEADER_LENGTH = 128;
    private static final int INDEX_ENTRY_LENGTH = 16;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private final Arena arena;
    /** The locked file of a mapped store, null in memory. */
    private final MoldUDP64StoreFile file;
    private final MemorySegment segment;
    private final MemorySegment session;
    private final int indexMask;
    private final long indexBase;
    private final long dataBase;
    private final long dataCapacity;
    private long firstSequence;
    private long nextSequence;
    private long writePosition;
    private int copiedBytes;
    /**
     * At most the data position of the oldest message kept ({@link #firstSequence}): what {@link #append} compares
     * with before it reads that message's index entry. 0 (always a floor) until an append that had to look.
     */
    private long firstPositionFloor;

    private MoldUDP64MessageStore(final Arena arena, final MoldUDP64StoreFile file, final MemorySegment segment,
        final boolean fresh, final MemorySegment session, final int maxMessages, final long maxBytes) {
        this.arena = arena;
        this.file = file;
        this.segment = segment;
        if (fresh) {
            segment.asSlice(0, HEADER_LENGTH).fill((byte)0);
            segment.set(LONG, MAGIC_OFFSET, MAGIC);
            segment.set(INT, VERSION_OFFSET, VERSION);
            segment.set(INT, INDEX_CAPACITY_OFFSET, maxMessages);
            segment.set(LONG, DATA_CAPACITY_OFFSET, maxBytes);
            MemorySegment.copy(session, 0, segment, SESSION_OFFSET, MoldUDP64Layout.SESSION_LENGTH);
            segment.set(LONG, FIRST_SEQUENCE_OFFSET, 1);
            segment.set(LONG, NEXT_SEQUENCE_OFFSET, 1);
            segment.set(LONG, WRITE_POSITION_OFFSET, 0);
        }
        final int indexCapacity = segment.get(INT, INDEX_CAPACITY_OFFSET);
        this.indexMask = indexCapacity - 1;
        this.dataCapacity = segment.get(LONG, DATA_CAPACITY_OFFSET);
        this.indexBase = HEADER_LENGTH;
        this.dataBase = HEADER_LENGTH + (long)indexCapacity * INDEX_ENTRY_LENGTH;
        this.session = segment.asSlice(SESSION_OFFSET, MoldUDP64Layout.SESSION_LENGTH);
        this.firstSequence = segment.get(LONG, FIRST_SEQUENCE_OFFSET);
        this.nextSequence = segment.get(LONG, NEXT_SEQUENCE_OFFSET);
        this.writePosition = segment.get(LONG, WRITE_POSITION_OFFSET);
    }

    /**
     * Creates a store in off-heap memory.
     *
     * @param session the session's name
     * @param maxMessages most messages kept; rounded up to a power of two
     * @param maxBytes most message bytes kept, at least {@link MoldUDP64Layout#MAX_MESSAGE_LENGTH}
     * @return the store, empty; its first message will be number 1
     */
    public static MoldUDP64MessageStore inMemory(final String session, final int maxMessages, final long maxBytes) {
        final int indexCapacity = indexCapacity(maxMessages, maxBytes);
        final Arena arena = Arena.ofShared();
        final MemorySegment segment = arena.allocate(length(indexCapacity, maxBytes), 64);
        return new MoldUDP64MessageStore(arena, null, segment, true, MoldUDP64Layout.session(session), indexCapacity,
            maxBytes);
    }

    /**
     * Opens a store in a memory-mapped file: an existing file of the same session goes on from its last
     * message; a missing or empty file, or a store of another session, is started afresh with these capacities.
     * Any other file (one that is not a store, or a store whose header or index is damaged) is refused and left
     * as it is.
     *
     * <p>The store holds an exclusive lock on the file until {@link #close()}: a file another store has open, in
     * this process or another, is refused as in use. A file started afresh gets all its blocks at once
     * ({@code posix_fallocate}, or zeros written where that cannot be called), so that a file system without room
     * for it is refused here rather than failing a later append through the mapping.
     *
     * @param file the file
     * @param session the session's name, or null to take it from an existing file
     * @param maxMessages most messages kept (for a new file); rounded up to a power of two
     * @param maxBytes most message bytes kept (for a new file)
     * @return the store
     * @throws UncheckedIOException naming the file and the reason if it is in use, cannot be mapped or given its
     *     blocks, is not a store or is a damaged one
     */
    public static MoldUDP64MessageStore mapped(final Path file, final String session, final int maxMessages, final long maxBytes) {
        final int wantedIndex = indexCapacity(maxMessages, maxBytes);
        try {
            final MoldUDP64StoreFile storeFile = MoldUDP64StoreFile.open(file);
            final Arena arena = Arena.ofShared();
            try {
                final FileChannel channel = storeFile.channel();
                final long existing = channel.size();
                final boolean fresh = existing == 0 || !isStoreOf(channel, existing, session);
                if (fresh && session == null) {
                    throw new IllegalArgumentException("file=" + file + " holds no message store and session=null");
                }
                final long length = fresh ? length(wantedIndex, maxBytes) : existing;
                if (fresh) {
                    storeFile.startAfresh(length);
                }
                final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
                final MoldUDP64MessageStore store = new MoldUDP64MessageStore(arena, storeFile, segment, fresh,
                    fresh ? MoldUDP64Layout.session(session) : null, wantedIndex, maxBytes);
                final String damage = fresh ? null : store.damage();
                if (damage != null) {
                    throw new IOException("a damaged message store, " + damage + ": refused and left as it is");
                }
                return store;
            } catch (final IOException | RuntimeException | Error ex) {
                arena.close();
                storeFile.close();
                throw ex;
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot map message store file=" + file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Why {@link #mapped} would refuse a file whose header it reads, or null if it would take it: a missing or empty
     * file, or a store of any session with a sound header, is taken; something that is not a regular file, a file
     * that is not a store, or a file another store holds now (of this process or another) is refused. The file is
     * only read. A store whose index is damaged passes here and is refused by {@link #mapped}, which reads it whole.
     *
     * @param file the file
     * @return the reason, or null
     */
    public static String refusalOf(final Path file) {
        if (!Files.exists(file)) {
            return null;
        }
        if (!Files.isRegularFile(file)) {
            return "not a regular file";
        }
        return MoldUDP64StoreFile.refusal(file, channel -> {
            final long existing = channel.size();
            if (existing > 0) {
                isStoreOf(channel, existing, null);
            }
        });
    }

    /**
     * Whether a non-empty file is a store of this session (or of any, for a null session).
     *
     * @throws IOException if it is not a store, or its header is damaged: nothing to overwrite
     */
    private static boolean isStoreOf(final FileChannel channel, final long existing, final String session) throws IOException {
        if (existing < HEADER_LENGTH) {
            throw new IOException("not a MoldUDP64 message store (" + existing + " bytes, shorter than a store's header of "
                + HEADER_LENGTH + "): refused and left as it is");
        }
        try (Arena probe = Arena.ofConfined()) {
            final MemorySegment header = channel.map(FileChannel.MapMode.READ_ONLY, 0, HEADER_LENGTH, probe);
            final long magic = header.get(LONG, MAGIC_OFFSET);
            if (magic != MAGIC) {
                throw new IOException("not a MoldUDP64 message store (magic=0x" + Long.toHexString(magic)
                    + "): refused and left as it is");
            }
            final int version = header.get(INT, VERSION_OFFSET);
            final int index = header.get(INT, INDEX_CAPACITY_OFFSET);
            final long data = header.get(LONG, DATA_CAPACITY_OFFSET);
            if (version != VERSION) {
                throw new IOException("a message store of layout version=" + version + ", not " + VERSION
                    + ": refused and left as it is");
            }
            if (index <= 0 || Integer.bitCount(index) != 1 || data < MoldUDP64Layout.MAX_MESSAGE_LENGTH
                || length(index, data) != existing) {
                throw new IOException("a damaged message store, index capacity=" + index + " data capacity=" + data
                    + " in a file of " + existing + " bytes: refused and left as it is");
            }
            return session == null || MemorySegment.mismatch(header, SESSION_OFFSET,
                SESSION_OFFSET + MoldUDP64Layout.SESSION_LENGTH, MoldUDP64Layout.session(session), 0,
                MoldUDP64Layout.SESSION_LENGTH) == -1;
        }
    }

    /**
     * What is wrong with a reopened store's sequences and index, as the constructor took them, or null if nothing:
     * each message kept must lie whole within the last data-capacity bytes written, so that appending and copying
     * stay inside the ring.
     */
    private String damage() {
        final long first = firstSequence;
        final long next = nextSequence;
        final long written = writePosition;
        if (first < 1 || next < first || next - first > indexMask + 1L || next == Long.MAX_VALUE) {
            return "firstSequence=" + first + " nextSequence=" + next + " with an index of " + (indexMask + 1L);
        }
        if (written < 0 || written > Long.MAX_VALUE / 2) { // 2^62 bytes: never written, and far from overflowing
            return "writePosition=" + written;
        }
        for (long sequence = first; sequence < next; sequence++) {
            final long position = positionOf(sequence);
            final int length = segment.get(INT, entryOf(sequence) + 8);
            if (length < 0 || length > MoldUDP64Layout.MAX_MESSAGE_LENGTH || position < 0 || position > written - length
                || written - position > dataCapacity || position % dataCapacity + length > dataCapacity) {
                return "message " + sequence + " at position=" + position + " length=" + length + " (writePosition="
                    + written + ", data capacity " + dataCapacity + ")";
            }
        }
        return null;
    }

    /**
     * Makes an empty store start at a later sequence number: its first message appended gets {@code sequence}. For a
     * store filled by someone who joined a session part-way (a MoldUDP64-to-SoupBinTCP gateway that first saw message
     * 5000): it holds nothing before, so a request for earlier messages is one it cannot serve. A mapped store keeps
     * it across a reopen.
     *
     * @param sequence the number of the first message, at least 1
     * @throws IllegalArgumentException if {@code sequence} is below 1 or is {@code Long.MAX_VALUE}
     * @throws IllegalStateException if the store holds a message, or ever did (its numbering is taken)
     */
    public void startAt(final long sequence) {
        if (sequence < 1 || sequence == Long.MAX_VALUE) {
            throw new IllegalArgumentException("sequence=" + sequence + " must be in [1, 2^63 - 2]");
        }
        if (nextSequence != 1 || writePosition != 0) {
            throw new IllegalStateException("startAt sequence=" + sequence + " refused: the store is numbered already,"
                + " firstSequence=" + firstSequence + " nextSequence=" + nextSequence);
        }
        firstSequence = sequence;
        nextSequence = sequence;
        segment.set(LONG, FIRST_SEQUENCE_OFFSET, sequence);
        segment.set(LONG, NEXT_SEQUENCE_OFFSET, sequence);
    }

    /**
     * Appends the next message. If it fails part-way (the copy from {@code buffer} throws, or the process dies),
     * the messages still kept are intact: at most those this one would have displaced are forgotten.
     *
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length, 0 to {@link MoldUDP64Layout#MAX_MESSAGE_LENGTH}
     * @return its sequence number
     */
    public long append(final MemorySegment buffer, final long offset, final int length) {
        if (length < 0 || length > MoldUDP64Layout.MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("length=" + length);
        }
        final long sequence = nextSequence;
        long position = writePosition;
        final long ringOffset = position % dataCapacity;
        final boolean wraps = ringOffset + length > dataCapacity;
        if (wraps) {
            position += dataCapacity - ringOffset; // a message never wraps: it can be copied in one piece
        }
        final long end = position + length;
        long first = firstSequence;
        if (sequence - first > indexMask) {
            first = sequence - indexMask; // the index slot of the oldest message is about to be reused
        }
        // the oldest kept message's index entry is far behind the newest, in memory nobody else touches: read it only
        // when this message's bytes can reach it (positions grow with sequence numbers, so the floor bounds them all)
        if (end - firstPositionFloor > dataCapacity) {
            while (first < sequence && end - positionOf(first) > dataCapacity) {
                first++;
            }
            firstPositionFloor = first < sequence ? positionOf(first) : position;
        }
        // forget first what this message overwrites (an index entry, bytes of the ring): if the copy throws (a
        // source shorter than offset + length) or the process dies part-way, every message still kept is intact
        firstSequence = first;
        segment.set(LONG, FIRST_SEQUENCE_OFFSET, first);
        VarHandle.storeStoreFence(); // the forgetting above before the overwriting below, for a file reopened after a crash
        final long entry = entryOf(sequence);
        segment.set(LONG, entry, position);
        segment.set(INT, entry + 8, length);
        MemorySegment.copy(buffer, offset, segment, dataBase + (wraps ? 0 : ringOffset), length); // position's place in the ring
        VarHandle.storeStoreFence(); // the message whole before the header counts it
        nextSequence = sequence + 1;
        writePosition = end;
        segment.set(LONG, WRITE_POSITION_OFFSET, end);
        segment.set(LONG, NEXT_SEQUENCE_OFFSET, sequence + 1);
        return sequence;
    }

    /**
     * Copies messages as MoldUDP64 message blocks (length, data), as many as fit whole.
     *
     * @param sequence the first wanted
     * @param count most messages wanted
     * @param buffer where to write the blocks
     * @param offset where the first block goes
     * @param maxBytes most bytes to write
     * @return the number of messages copied, 0 if {@code sequence} is not in the store;
     *     {@link #copiedBytes()} tells the bytes written
     */
    public int copyBlocks(final long sequence, final int count, final MemorySegment buffer, final long offset, final int maxBytes) {
        copiedBytes = 0;
        if (sequence < firstSequence || sequence >= nextSequence || count <= 0) {
            return 0;
        }
        final long last = Math.min(nextSequence, sequence + count);
        int written = 0;
        int copied = 0;
        for (long s = sequence; s < last; s++) {
            final long entry = entryOf(s);
            final int length = segment.get(INT, entry + 8);
            if (written + MoldUDP64Layout.BLOCK_HEADER_LENGTH + length > maxBytes) {
                break;
            }
            MoldUDP64Layout.putMessageLength(buffer, offset + written, length);
            MemorySegment.copy(segment, dataBase + segment.get(LONG, entry) % dataCapacity, buffer,
                offset + written + MoldUDP64Layout.BLOCK_HEADER_LENGTH, length);
            written += MoldUDP64Layout.BLOCK_HEADER_LENGTH + length;
            copied++;
        }
        copiedBytes = written;
        return copied;
    }

    /**
     * The length of one message kept in the store; allocates nothing. With {@link #copyMessage} it serves a
     * protocol that frames messages its own way (SoupBinTCP's Sequenced Data).
     *
     * @param sequence the message
     * @return its length, or -1 if the store does not hold it
     */
    public int messageLength(final long sequence) {
        if (sequence < firstSequence || sequence >= nextSequence) {
            return -1;
        }
        return segment.get(INT, entryOf(sequence) + 8);
    }

    /**
     * Copies one message, bare (no length field); allocates nothing.
     *
     * @param sequence the message
     * @param buffer where to write it; it must have room for {@link #messageLength(long)} bytes
     * @param offset where it goes
     * @return its length, or -1 if the store does not hold it (nothing written)
     */
    public int copyMessage(final long sequence, final MemorySegment buffer, final long offset) {
        if (sequence < firstSequence || sequence >= nextSequence) {
            return -1;
        }
        final long entry = entryOf(sequence);
        final int length = segment.get(INT, entry + 8);
        MemorySegment.copy(segment, dataBase + segment.get(LONG, entry) % dataCapacity, buffer, offset, length);
        return length;
    }

    /**
     * Bytes written by the last {@link #copyBlocks}.
     *
     * @return bytes
     */
    public int copiedBytes() {
        return copiedBytes;
    }

    /**
     * The oldest message still kept.
     *
     * @return its sequence number; equal to {@link #nextSequence()} when the store is empty
     */
    public long firstSequence() {
        return firstSequence;
    }

    /**
     * The number the next appended message gets.
     *
     * @return the sequence number
     */
    public long nextSequence() {
        return nextSequence;
    }

    /**
     * The session, encoded; a view valid while the store is open.
     *
     * @return 10 bytes
     */
    public MemorySegment session() {
        return session;
    }

    /** Writes a mapped store to disk, releases its memory, and lets the file go (its lock). */
    @Override
    public void close() {
        try {
            if (segment.isMapped()) {
                segment.force();
            }
            arena.close();
        } finally {
            if (file != null) {
                file.close();
            }
        }
    }

    private long positionOf(final long sequence) {
        return segment.get(LONG, entryOf(sequence));
    }

    /** Where a message's index entry (position, then length) sits. */
    private long entryOf(final long sequence) {
        return indexBase + (sequence & indexMask) * INDEX_ENTRY_LENGTH;
    }

    private static int indexCapacity(final int maxMessages, final long maxBytes) {
        if (maxMessages < 1 || maxMessages > 1 << 30) {
            throw new IllegalArgumentException("maxMessages=" + maxMessages + " must be in [1, 2^30]");
        }
        if (maxBytes < MoldUDP64Layout.MAX_MESSAGE_LENGTH || maxBytes > 1L << 40) {
            throw new IllegalArgumentException("maxBytes=" + maxBytes + " must be in [65535, 2^40]");
        }
        return maxMessages == 1 ? 1 : Integer.highestOneBit(maxMessages - 1) << 1;
    }

    private static long length(final int indexCapacity, final long maxBytes) {
        return HEADER_LENGTH + (long)indexCapacity * INDEX_ENTRY_LENGTH + maxBytes;
    }
}
