package dev.peregrine.bench.fanout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The bench's message: a sequence and an intended send time, then zeros up to the size.
 *
 * <pre>
 *   0          8          16        size
 *   +----------+----------+---------+
 *   | sequence | send ns  | zeros   |   both little-endian longs
 *   +----------+----------+---------+
 * </pre>
 */
public final class FanoutMessage {
    /** The smallest message: the sequence and the send time. */
    public static final int MIN_SIZE = 16;
    /** The largest message. */
    public static final int MAX_SIZE = 4096;
    /** Where the sequence is. */
    public static final int SEQUENCE_OFFSET = 0;
    /** Where the send time is. */
    public static final int SEND_NS_OFFSET = 8;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private FanoutMessage() {
    }

    /**
     * Writes the header of a message.
     *
     * @param message the buffer
     * @param sequence the sequence
     * @param sendNs the intended send time
     */
    public static void write(final MemorySegment message, final long sequence, final long sendNs) {
        message.set(LONG, SEQUENCE_OFFSET, sequence);
        message.set(LONG, SEND_NS_OFFSET, sendNs);
    }

    /**
     * The sequence of a message.
     *
     * @param buffer the buffer
     * @param offset where the message starts
     * @return the sequence
     */
    public static long sequence(final MemorySegment buffer, final long offset) {
        return buffer.get(LONG, offset + SEQUENCE_OFFSET);
    }

    /**
     * The send time of a message.
     *
     * @param buffer the buffer
     * @param offset where the message starts
     * @return the send time
     */
    public static long sendNs(final MemorySegment buffer, final long offset) {
        return buffer.get(LONG, offset + SEND_NS_OFFSET);
    }
}
