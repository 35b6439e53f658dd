package dev.peregrine.mold;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * The memory layout of a {@link MoldUDP64MessageStore}, in a file or off-heap, and the check of a file's header.
 *
 * <p>Layout (native byte order but for the packets, one file or one off-heap segment):
 * <pre>
 *  0       8        12             16              24          40           48          56          64
 * +-------+--------+--------------+---------------+-----------+------------+-----------+-----------+
 * | magic | version| max messages | data capacity | session   | first      | next      | write     |
 * |       | (2)    | (n)          | (bytes)       | (10 + 6)  | sequence   | sequence  | position  |
 * +-------+--------+--------------+---------------+-----------+------------+-----------+-----------+
 *  64                72                80    128
 * +-----------------+-----------------+-----+
 * | anchor sequence | anchor position | pad |
 * +-----------------+-----------------+-----+
 * | index: max(2, n / 32) entries of 16 bytes, entry = (sequence &gt;&gt;&gt; 6) &amp; (entries - 1):            |
 * |        the first message appended in that block of 64: its sequence (8), its data position (8)     |
 * +----------------------------------------------------------------------------------------------------+
 * | data: a ring of data-capacity bytes holding packets: length (2, big-endian: message length + 1,    |
 * |       0 for a message of 65 535 bytes, which no SoupBinTCP packet carries), 'S', the message.      |
 * |       A packet never wraps: where one does not fit, the ring's rest is skipped (a type of 0 marks   |
 * |       it where 3 bytes are left).                                                                  |
 * +----------------------------------------------------------------------------------------------------+
 * </pre>
 * Positions grow without bound; a position's place in the ring is {@code position % capacity}. The anchor is a
 * message at or before the oldest kept whose packet and every one after it are intact: a walk from it reaches any
 * kept message. Version 1 (an index entry per message, bare messages) is refused with the reason.
 *
 */
final class MoldUDP64StoreLayout {
    /** log2 of the messages per index entry ({@link MoldUDP64MessageStore#BLOCK_MESSAGES}). */
    static final int BLOCK_SHIFT = 6;
    static final byte PACKET_TYPE = 'S';
    /** The type byte that marks the ring's skipped rest. */
    static final byte SKIP = 0;
    static final long MAGIC = 0x3436_5044_4C4F_4D50L; // "PMOLDP64"
    static final int VERSION = 2;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int MAX_MESSAGES_OFFSET = 12;
    static final int DATA_CAPACITY_OFFSET = 16;
    static final int SESSION_OFFSET = 24;
    static final int FIRST_SEQUENCE_OFFSET = 40;
    static final int NEXT_SEQUENCE_OFFSET = 48;
    static final int WRITE_POSITION_OFFSET = 56;
    static final int ANCHOR_SEQUENCE_OFFSET = 64;
    static final int ANCHOR_POSITION_OFFSET = 72;
    static final int HEADER_LENGTH = 128;
    static final int INDEX_ENTRY_LENGTH = 16;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    /** A packet's length field, big-endian as SoupBinTCP sends it. */
    static final ValueLayout.OfShort PACKET_LENGTH = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MoldUDP64StoreLayout() {
    }

    /**
     * Whether a non-empty file is a store of this session (or of any, for a null session).
     *
     * @throws IOException if it is not a store, is one of another layout version, or its header is damaged: nothing
     *     to overwrite
     */
    static boolean isStoreOf(final FileChannel channel, final long existing, final String session) throws IOException {
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
            final int messages = header.get(INT, MAX_MESSAGES_OFFSET);
            final long data = header.get(LONG, DATA_CAPACITY_OFFSET);
            if (version != VERSION) {
                throw new IOException("a message store of layout version=" + version + ", not " + VERSION
                    + (version == 1 ? " (version 1 kept bare messages and an index entry for each; version 2 keeps"
                    + " SoupBinTCP packets): written by an earlier Peregrine, which reads it; to start afresh, remove it"
                    : "") + ": refused and left as it is");
            }
            if (messages <= 0 || Integer.bitCount(messages) != 1 || data < MoldUDP64MessageStore.PACKET_HEADER_LENGTH + MoldUDP64Layout.MAX_MESSAGE_LENGTH
                || data > (1L << 42) || length(messages, data) != existing) {
                throw new IOException("a damaged message store, max messages=" + messages + " data capacity=" + data
                    + " in a file of " + existing + " bytes: refused and left as it is");
            }
            return session == null || MemorySegment.mismatch(header, SESSION_OFFSET,
                SESSION_OFFSET + MoldUDP64Layout.SESSION_LENGTH, MoldUDP64Layout.session(session), 0,
                MoldUDP64Layout.SESSION_LENGTH) == -1;
        }
    }

    static int maxMessages(final int maxMessages, final long maxBytes) {
        if (maxMessages < 1 || maxMessages > 1 << 30) {
            throw new IllegalArgumentException("maxMessages=" + maxMessages + " must be in [1, 2^30]");
        }
        if (maxBytes < MoldUDP64Layout.MAX_MESSAGE_LENGTH || maxBytes > 1L << 40) {
            throw new IllegalArgumentException("maxBytes=" + maxBytes + " must be in [65535, 2^40]");
        }
        return maxMessages == 1 ? 1 : Integer.highestOneBit(maxMessages - 1) << 1;
    }

    /** The ring: the message bytes and a packet header for each message, so that maxBytes of messages fit. */
    static long dataCapacity(final int maxMessages, final long maxBytes) {
        return maxBytes + (long)MoldUDP64MessageStore.PACKET_HEADER_LENGTH * maxMessages;
    }

    /** Index entries: enough that no entry of a kept block is reused while at most maxMessages are kept. */
    static int indexSlots(final int maxMessages) {
        return Math.max(2, maxMessages >>> (BLOCK_SHIFT - 1));
    }

    static long length(final int maxMessages, final long dataCapacity) {
        return HEADER_LENGTH + (long)indexSlots(maxMessages) * INDEX_ENTRY_LENGTH + dataCapacity;
    }
}
