package dev.peregrine.mold;

import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.peregrine.mold.MoldUDP64StoreLayout.ANCHOR_POSITION_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.ANCHOR_SEQUENCE_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.DATA_CAPACITY_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.FIRST_SEQUENCE_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.HEADER_LENGTH;
import static dev.peregrine.mold.MoldUDP64StoreLayout.INDEX_ENTRY_LENGTH;
import static dev.peregrine.mold.MoldUDP64StoreLayout.INT;
import static dev.peregrine.mold.MoldUDP64StoreLayout.MAGIC;
import static dev.peregrine.mold.MoldUDP64StoreLayout.MAGIC_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.MAX_MESSAGES_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.NEXT_SEQUENCE_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.SESSION_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.VERSION;
import static dev.peregrine.mold.MoldUDP64StoreLayout.VERSION_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.WRITE_POSITION_OFFSET;
import static dev.peregrine.mold.MoldUDP64StoreLayout.BLOCK_SHIFT;
import static dev.peregrine.mold.MoldUDP64StoreLayout.PACKET_TYPE;
import static dev.peregrine.mold.MoldUDP64StoreLayout.SKIP;
import static dev.peregrine.mold.MoldUDP64StoreLayout.LONG;
import static dev.peregrine.mold.MoldUDP64StoreLayout.PACKET_LENGTH;

/**
 * The most recent messages of one session, kept off-heap for the re-request server and for SoupBinTCP clients: a
 * bounded window of at most {@code maxMessages} messages and {@code maxBytes} bytes of them; older messages are
 * forgotten. Appending and copying allocate nothing.
 *
 * <p>Each message is kept as the SoupBinTCP Sequenced Data packet that carries it (2-byte big-endian packet length,
 * type {@code 'S'}, the message), so that a run of consecutive messages is one contiguous range of bytes a SoupBinTCP
 * server sends as it is ({@link #packetRun}). A MoldUDP64 answer copies each message into a message block
 * ({@link #copyBlocks}). The index holds one entry per {@value #BLOCK_MESSAGES} messages, for seeks: a message is
 * found from its block's entry by a walk of at most {@value #BLOCK_MESSAGES} - 1 length fields, each checked. The
 * byte bound forgets a block of them at a time where it can, so that appending never reads an old packet: the store
 * may hold up to 63 messages fewer than its bytes would allow.
 *
 * <p>The store can live in a memory-mapped file, so that a restarted publisher or re-request server goes
 * on from where it stopped; {@link MoldUDP64StoreLayout} draws the file. A file of an earlier layout version is
 * refused with the reason.
 *
 * <p>Not thread-safe: one reactor thread owns the store (publisher and re-request server on one reactor).
 */
public final class MoldUDP64MessageStore implements AutoCloseable {
    /** Messages per index entry. */
    public static final int BLOCK_MESSAGES = 64;
    /** What a kept packet adds to its message: the length field and the type. */
    public static final int PACKET_HEADER_LENGTH = 3;
    /** The longest message a kept packet can carry as SoupBinTCP Sequenced Data (its length field counts the type). */
    public static final int MAX_PACKET_MESSAGE_LENGTH = 0xFFFE;
    private final Arena arena;
    /** The locked file of a mapped store, null in memory. */
    private final MoldUDP64StoreFile file;
    final MemorySegment segment;
    private final MemorySegment session;
    /** The ring of packets, and a read-only view of it for {@link #packetRun}'s readers. */
    final MemorySegment data;
    private final MemorySegment dataView;
    final int messageMask;
    private final int slotMask;
    private final long indexBase;
    final long dataCapacity;
    long firstSequence;
    long nextSequence;
    long writePosition;
    /** {@code writePosition % dataCapacity}, kept so that an append divides nothing. */
    private long writeOffset;
    long anchorSequence;
    long anchorPosition;
    private int copiedBytes;
    private long runOffset;
    private int runBytes;
    /** Where the last {@link #seek} found its message in the ring. */
    private long seekOffset;
    // the start and the end of the last run: the next run of the same client, or the same run for the next
    // caught-up client, starts at one of them, without a walk
    private long runStartSequence;
    private long runStartPosition;
    private long runEndSequence;
    private long runEndPosition;
    /** The last message too long for a SoupBinTCP packet, or (reopened) the last one not appended here. */
    private long lastUnsendable;
    /** Messages of the open {@link #claim}, 0 if none; and the length of each one's packet. */
    private int claimed;
    private int claimPacket;
    /** Where the packets of the last {@link #reserve} start, as a position and in the ring. */
    private long reservedPosition;
    private long reservedOffset;

    MoldUDP64MessageStore(final Arena arena, final MoldUDP64StoreFile file, final MemorySegment segment,
        final boolean fresh, final MemorySegment session, final int maxMessages, final long dataCapacity) {
        this.arena = arena;
        this.file = file;
        this.segment = segment;
        if (fresh) {
            segment.asSlice(0, HEADER_LENGTH).fill((byte)0);
            segment.set(LONG, MAGIC_OFFSET, MAGIC);
            segment.set(INT, VERSION_OFFSET, VERSION);
            segment.set(INT, MAX_MESSAGES_OFFSET, maxMessages);
            segment.set(LONG, DATA_CAPACITY_OFFSET, dataCapacity);
            MemorySegment.copy(session, 0, segment, SESSION_OFFSET, MoldUDP64Layout.SESSION_LENGTH);
            segment.set(LONG, FIRST_SEQUENCE_OFFSET, 1);
            segment.set(LONG, NEXT_SEQUENCE_OFFSET, 1);
            segment.set(LONG, WRITE_POSITION_OFFSET, 0);
            segment.set(LONG, ANCHOR_SEQUENCE_OFFSET, 1);
            segment.set(LONG, ANCHOR_POSITION_OFFSET, 0);
        }
        final int messages = segment.get(INT, MAX_MESSAGES_OFFSET);
        final int slots = MoldUDP64StoreLayout.indexSlots(messages);
        this.messageMask = messages - 1;
        this.slotMask = slots - 1;
        this.dataCapacity = segment.get(LONG, DATA_CAPACITY_OFFSET);
        this.indexBase = HEADER_LENGTH;
        this.data = segment.asSlice(HEADER_LENGTH + (long)slots * INDEX_ENTRY_LENGTH, this.dataCapacity);
        this.dataView = data.asReadOnly();
        this.session = segment.asSlice(SESSION_OFFSET, MoldUDP64Layout.SESSION_LENGTH);
        this.firstSequence = segment.get(LONG, FIRST_SEQUENCE_OFFSET);
        this.nextSequence = segment.get(LONG, NEXT_SEQUENCE_OFFSET);
        this.writePosition = segment.get(LONG, WRITE_POSITION_OFFSET);
        this.anchorSequence = segment.get(LONG, ANCHOR_SEQUENCE_OFFSET);
        this.anchorPosition = segment.get(LONG, ANCHOR_POSITION_OFFSET);
        this.writeOffset = Math.floorMod(writePosition, this.dataCapacity);
        this.lastUnsendable = nextSequence - 1; // a reopened file's packets are walked by each run, as at its check
    }

    /**
     * Creates a store in off-heap memory.
     *
     * @param session the session's name
     * @param maxMessages most messages kept; rounded up to a power of two
     * @param maxBytes most message bytes kept, at least {@link MoldUDP64Layout#MAX_MESSAGE_LENGTH} (the ring adds
     *     {@value #PACKET_HEADER_LENGTH} bytes a message for the packet headers)
     * @return the store, empty; its first message will be number 1
     */
    public static MoldUDP64MessageStore inMemory(final String session, final int maxMessages, final long maxBytes) {
        final int messages = MoldUDP64StoreLayout.maxMessages(maxMessages, maxBytes);
        final long dataCapacity = MoldUDP64StoreLayout.dataCapacity(messages, maxBytes);
        final Arena arena = Arena.ofShared();
        final MemorySegment segment = arena.allocate(MoldUDP64StoreLayout.length(messages, dataCapacity), 64);
        return new MoldUDP64MessageStore(arena, null, segment, true, MoldUDP64Layout.session(session), messages,
            dataCapacity);
    }

    /**
     * Opens a store in a memory-mapped file: an existing file of the same session goes on from its last
     * message; a missing or empty file, or a store of another session, is started afresh with these capacities.
     * Any other file (one that is not a store, a store of another layout version, or a store whose header or
     * packets are damaged) is refused and left as it is.
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
        return MoldUDP64StoreOpener.mapped(file, session, maxMessages, maxBytes);
    }

    /**
     * Why {@link #mapped} would refuse a file whose header it reads, or null if it would take it: a missing or empty
     * file, or a store of any session with a sound header, is taken; something that is not a regular file, a file
     * that is not a store (or a store of another layout version), or a file another store holds now (of this process
     * or another) is refused. The file is only read. A store whose packets are damaged passes here and is refused by
     * {@link #mapped}, which reads it whole.
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
                MoldUDP64StoreLayout.isStoreOf(channel, existing, null);
            }
        });
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
        anchorSequence = sequence;
        segment.set(LONG, FIRST_SEQUENCE_OFFSET, sequence);
        segment.set(LONG, NEXT_SEQUENCE_OFFSET, sequence);
        segment.set(LONG, ANCHOR_SEQUENCE_OFFSET, sequence);
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
        if (claimed != 0) {
            throw new IllegalStateException("append refused: a claim of claimCount=" + claimed + " is open");
        }
        final long sequence = nextSequence;
        final int packet = PACKET_HEADER_LENGTH + length;
        final long ringOffset = reserve(packet, 1);
        data.set(PACKET_LENGTH, ringOffset, (short)(length + 1)); // 65 535 wraps to 0: no SoupBinTCP packet carries it
        data.set(ValueLayout.JAVA_BYTE, ringOffset + 2, PACKET_TYPE);
        MemorySegment.copy(buffer, offset, data, ringOffset + PACKET_HEADER_LENGTH, length);
        if (length > MAX_PACKET_MESSAGE_LENGTH) {
            lastUnsendable = sequence;
        }
        keep(sequence, 1, packet);
        return sequence;
    }

    /**
     * Claims room for a run of up to {@code count} messages of {@code length} bytes each, one packet after another in
     * the ring, for the caller to write the messages in place: message {@code i} (from 0) goes at the returned offset
     * plus {@code i * (length + }{@value #PACKET_HEADER_LENGTH}{@code )} of {@link #claimBuffer()}. The store writes
     * every packet's header now and forgets now what the run will overwrite (as {@link #append} would); one
     * {@link #commitClaim()} numbers and keeps the whole run, {@link #abortClaim()} gives it up. The run is cut short,
     * never below one message, to what fits before the ring's end and to {@code maxMessages}: {@link #claimCount()}
     * says how many were claimed. The {@link #append} of a publisher with many messages of one length at hand: the
     * store's bookkeeping (bounds, index, header) is paid once per run. Allocates nothing.
     *
     * @param length every message's length, 0 to {@link #MAX_PACKET_MESSAGE_LENGTH}
     * @param count most messages, at least 1
     * @return the offset in {@link #claimBuffer()} where the first message goes
     * @throws IllegalArgumentException if {@code length} or {@code count} is out of range
     * @throws IllegalStateException if a claim is open
     */
    public long claim(final int length, final int count) {
        if (length < 0 || length > MAX_PACKET_MESSAGE_LENGTH || count < 1) {
            throw new IllegalArgumentException("length=" + length + " must be in [0, " + MAX_PACKET_MESSAGE_LENGTH
                + "] and count=" + count + " at least 1");
        }
        if (claimed != 0) {
            throw new IllegalStateException("claim refused: a claim of claimCount=" + claimed + " is open");
        }
        final int packet = PACKET_HEADER_LENGTH + length;
        final long room = (dataCapacity - writeOffset) / packet;
        // a run never wraps: cut at the ring's end if a message fits before it, else start at the ring's start
        final int fits = (int)Math.min(Math.min(count, messageMask + 1L), room > 0 ? room : dataCapacity / packet);
        final long ringOffset = reserve(packet, fits);
        final short field = (short)(length + 1);
        for (long at = ringOffset, end = ringOffset + (long)fits * packet; at < end; at += packet) {
            data.set(PACKET_LENGTH, at, field);
            data.set(ValueLayout.JAVA_BYTE, at + 2, PACKET_TYPE);
        }
        claimed = fits;
        claimPacket = packet;
        return ringOffset + PACKET_HEADER_LENGTH;
    }

    /**
     * The memory of the open claim: the store's ring, writable. Only the claimed messages may be written.
     *
     * @return the ring
     */
    public MemorySegment claimBuffer() {
        return data;
    }

    /**
     * The messages of the open claim.
     *
     * @return the count, 0 if no claim is open
     */
    public int claimCount() {
        return claimed;
    }

    /**
     * Keeps the messages of the open claim, numbered in order from {@link #nextSequence()}.
     *
     * @return the first one's sequence number
     * @throws IllegalStateException if no claim is open
     */
    public long commitClaim() {
        final int count = claimed;
        if (count == 0) {
            throw new IllegalStateException("commitClaim: no claim is open");
        }
        claimed = 0;
        final long sequence = nextSequence;
        keep(sequence, count, claimPacket);
        return sequence;
    }

    /** Gives up the open claim, if any: nothing of it is kept (what it made the store forget stays forgotten). */
    public void abortClaim() {
        claimed = 0;
    }

    /**
     * Makes room for {@code count} packets of {@code packet} bytes from the write position, or from the ring's start
     * when they do not fit before its end: forgets first what they overwrite (bytes of the ring, an index entry), so
     * that if the writing fails (a source shorter than said, the process dies) every message still kept is intact.
     *
     * @return the offset in the ring of the first packet; its position is left in {@link #reservedPosition}
     */
    private long reserve(final int packet, final int count) {
        final long sequence = nextSequence;
        final long bytes = (long)packet * count;
        final long skipOffset = writeOffset;
        final boolean wraps = skipOffset + bytes > dataCapacity;
        final long position = wraps ? writePosition + dataCapacity - skipOffset : writePosition;
        final long ringOffset = wraps ? 0 : skipOffset;
        final long last = sequence + count - 1;
        long first = firstSequence;
        if (last - first > messageMask) {
            first = last - messageMask; // the count bound: nothing in the ring is touched by it
        }
        if (position + bytes - anchorPosition > dataCapacity) { // the new bytes reach the anchor's: forget them
            first = forgetOverwritten(first, sequence, position, position + bytes);
        }
        if (first != firstSequence) {
            firstSequence = first;
            segment.set(LONG, FIRST_SEQUENCE_OFFSET, first);
        }
        VarHandle.storeStoreFence(); // the forgetting above before the overwriting that follows, for a reopened file
        if (wraps && dataCapacity - skipOffset >= PACKET_HEADER_LENGTH) {
            data.set(ValueLayout.JAVA_BYTE, skipOffset + 2, SKIP); // a walk that reaches it goes on at the ring's start
        }
        reservedPosition = position;
        reservedOffset = ringOffset;
        return ringOffset;
    }

    /** Counts {@code count} packets of {@code packet} bytes written from {@link #reservedPosition}: index, header. */
    private void keep(final long sequence, final int count, final int packet) {
        final long position = reservedPosition;
        final long end = sequence + count;
        // a block's first message gets an entry, and the first message ever
        for (long block = writePosition == 0 ? sequence : sequence + BLOCK_MESSAGES - 1 & -BLOCK_MESSAGES; block < end;
             block = block + BLOCK_MESSAGES & -BLOCK_MESSAGES) {
            final long entry = entryOf(block);
            segment.set(LONG, entry, block);
            segment.set(LONG, entry + 8, position + (block - sequence) * packet);
        }
        final long bytes = (long)count * packet;
        final long written = position + bytes;
        final long after = reservedOffset + bytes;
        VarHandle.storeStoreFence(); // the messages whole before the header counts them
        nextSequence = end;
        writePosition = written;
        writeOffset = after == dataCapacity ? 0 : after;
        segment.set(LONG, WRITE_POSITION_OFFSET, written);
        segment.set(LONG, NEXT_SEQUENCE_OFFSET, end);
    }

    /**
     * Forgets the oldest messages whose bytes a new packet at {@code position} up to {@code end} would overwrite, and
     * makes the oldest one kept the anchor (written to the header before any byte is overwritten). It forgets whole
     * blocks of {@value #BLOCK_MESSAGES} while the index knows where the next one starts, so that no old packet is
     * read (each would be a cache miss far behind the newest): up to 63 messages more than the bytes need are
     * forgotten. Packet by packet only within the newest block.
     *
     * @return the oldest message kept, the new one if no other
     */
    private long forgetOverwritten(final long oldestCounted, final long sequence, final long position, final long end) {
        long anchor = anchorSequence;
        long at = anchorPosition;
        // blocks below the oldest counted one are forgotten already, and their entries may have been reused
        long block = Math.max((anchor >>> BLOCK_SHIFT) + 1, oldestCounted >>> BLOCK_SHIFT);
        while (end - at > dataCapacity && block << BLOCK_SHIFT < sequence) {
            anchor = block << BLOCK_SHIFT;
            at = segment.get(LONG, entryOf(anchor) + 8);
            block++;
        }
        if (end - at > dataCapacity) {
            long offset = at % dataCapacity;
            while (anchor < sequence && end - at > dataCapacity) {
                final int packet = PACKET_HEADER_LENGTH + lengthAt(offset);
                at += packet;
                offset += packet;
                anchor++;
                if (skipsToStart(offset)) {
                    at += dataCapacity - offset;
                    offset = 0;
                }
            }
            if (anchor == sequence) {
                at = position;
            }
        }
        anchorSequence = anchor;
        anchorPosition = at;
        segment.set(LONG, ANCHOR_SEQUENCE_OFFSET, anchor);
        segment.set(LONG, ANCHOR_POSITION_OFFSET, at);
        return Math.max(oldestCounted, anchor);
    }

    /**
     * Finds a run of consecutive kept messages, from {@code sequence} on, whose packets lie one after another in
     * the ring ({@link #ring()}): bytes a SoupBinTCP server sends as they are, {@link #runBytes()} of them from
     * {@link #runOffset()}. The run ends before {@code maxCount} messages, before a message that would take it past
     * {@code maxBytes} (the first one is taken whatever its length), at the ring's end, and before a message longer
     * than {@link #MAX_PACKET_MESSAGE_LENGTH}. Every length is checked against the ring before it is counted, but
     * those of packets appended by this store, which it checked then: whole blocks of them are skipped by the index.
     * Allocates nothing.
     *
     * @param sequence the first message wanted
     * @param maxCount most messages, at least 1
     * @param maxBytes most bytes, unless the first packet alone is longer
     * @return the messages in the run; 0 if the first is longer than {@link #MAX_PACKET_MESSAGE_LENGTH} (see
     *     {@link #messageLength}); -1 if the store does not hold it
     */
    public int packetRun(final long sequence, final int maxCount, final long maxBytes) {
        runBytes = 0;
        if (sequence < firstSequence || sequence >= nextSequence || maxCount < 1) {
            return -1;
        }
        final long start = seek(sequence);
        final long startOffset = seekOffset;
        final long last = sequence + Math.min(nextSequence - sequence, maxCount);
        final long byteLimit = Math.min(maxBytes, Integer.MAX_VALUE); // runBytes() is an int
        // every packet from sequence on appended here from checked lengths, none too long for SoupBinTCP: the whole
        // rest, or whole blocks of it, are taken from the header or the index without reading a length again
        long next = sequence > lastUnsendable
            ? MoldUDP64RunIndex.end(this, sequence, start, startOffset, last, byteLimit) : sequence;
        long offset = startOffset + MoldUDP64RunIndex.position(this, next, sequence, start) - start;
        while (next < last) {
            if (skipsToStart(offset)) {
                break; // the ring's end: the rest of the run starts at the ring's start
            }
            final int length = lengthAt(offset);
            final long after = offset + PACKET_HEADER_LENGTH + length;
            if (length > MAX_PACKET_MESSAGE_LENGTH || after > dataCapacity
                || after - startOffset > byteLimit && next > sequence) {
                break;
            }
            offset = after;
            next++;
        }
        runOffset = startOffset;
        runBytes = (int)(offset - startOffset);
        runStartSequence = sequence;
        runStartPosition = start;
        runEndSequence = next;
        runEndPosition = start + runBytes;
        return (int)(next - sequence);
    }

    /**
     * Where the last {@link #packetRun} starts in {@link #ring()}.
     *
     * @return the offset
     */
    public long runOffset() {
        return runOffset;
    }

    /**
     * The length of the last {@link #packetRun}, packet headers included.
     *
     * @return bytes
     */
    public int runBytes() {
        return runBytes;
    }

    /**
     * The ring of packets, read-only, for the runs {@link #packetRun} finds; a view valid while the store is open.
     * Bytes outside a run found since the last {@link #append} mean nothing.
     *
     * @return the ring
     */
    public MemorySegment ring() {
        return dataView;
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
        seek(sequence);
        long at = seekOffset;
        int written = 0;
        int copied = 0;
        for (long s = sequence; s < last; s++) {
            if (skipsToStart(at)) {
                at = 0;
            }
            final int length = lengthAt(at);
            if (written + MoldUDP64Layout.BLOCK_HEADER_LENGTH + length > maxBytes) {
                break;
            }
            MoldUDP64Layout.putMessageLength(buffer, offset + written, length);
            MemorySegment.copy(data, at + PACKET_HEADER_LENGTH, buffer,
                offset + written + MoldUDP64Layout.BLOCK_HEADER_LENGTH, length);
            written += MoldUDP64Layout.BLOCK_HEADER_LENGTH + length;
            at += PACKET_HEADER_LENGTH + length;
            copied++;
        }
        copiedBytes = written;
        return copied;
    }

    /**
     * The length of one message kept in the store; allocates nothing.
     *
     * @param sequence the message
     * @return its length, or -1 if the store does not hold it
     */
    public int messageLength(final long sequence) {
        if (sequence < firstSequence || sequence >= nextSequence) {
            return -1;
        }
        seek(sequence);
        return lengthAt(seekOffset);
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
        seek(sequence);
        final int length = lengthAt(seekOffset);
        MemorySegment.copy(data, seekOffset + PACKET_HEADER_LENGTH, buffer, offset, length);
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

    /**
     * The position of a kept message ({@code anchorSequence <= sequence < nextSequence}), its place in the ring left
     * in {@link #seekOffset}: from the last run's start or end, or a walk of fewer than {@value #BLOCK_MESSAGES}
     * packets from its block's index entry (or from the anchor, when the block's first message is older). A walk
     * never reads outside the ring, whatever the lengths say.
     */
    private long seek(final long sequence) {
        long at;
        long position;
        if (sequence == runEndSequence) {
            at = sequence;
            position = runEndPosition;
        } else if (sequence == runStartSequence) {
            at = sequence;
            position = runStartPosition;
        } else {
            final long entry = entryOf(sequence);
            final long entrySequence = segment.get(LONG, entry);
            if (entrySequence >>> BLOCK_SHIFT == sequence >>> BLOCK_SHIFT && entrySequence <= sequence
                && entrySequence >= anchorSequence) {
                at = entrySequence;
                position = segment.get(LONG, entry + 8);
            } else {
                at = anchorSequence;
                position = anchorPosition;
            }
        }
        long offset = position % dataCapacity;
        while (true) {
            if (skipsToStart(offset)) {
                position += dataCapacity - offset;
                offset = 0;
            }
            if (at == sequence) {
                break;
            }
            final int packet = PACKET_HEADER_LENGTH + lengthAt(offset);
            position += packet;
            offset += packet;
            at++;
        }
        seekOffset = offset;
        return position;
    }

    /**
     * Whether the ring's rest from {@code offset} is skipped: fewer than a packet header's bytes are left, or the type
     * is not a packet's (the mark an append leaves where the next packet did not fit). A walk goes on at the start.
     */
    boolean skipsToStart(final long offset) {
        return dataCapacity - offset < PACKET_HEADER_LENGTH || data.get(ValueLayout.JAVA_BYTE, offset + 2) != PACKET_TYPE;
    }

    /** The message length a packet's length field says (it counts the type; 0 stands for 65 535). */
    int lengthAt(final long offset) {
        return Short.toUnsignedInt(data.get(PACKET_LENGTH, offset)) + 0xFFFF & 0xFFFF;
    }

    /** Where the index entry of a message's block (sequence, then position of its first message) sits. */
    long entryOf(final long sequence) {
        return indexBase + (sequence >>> BLOCK_SHIFT & slotMask) * INDEX_ENTRY_LENGTH;
    }
}
