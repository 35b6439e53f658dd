package dev.peregrine.peers.handoff;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The message every {@code bench handoff} queue carries, little-endian:
 * <pre>
 *   0                   8                   16                    size
 *   +-------------------+-------------------+---------- ... ------+
 *   | tagged sequence   | timestamp (ns)    | payload             |
 *   +-------------------+-------------------+---------- ... ------+
 * </pre>
 * The tagged sequence carries the producer's index in its top byte ({@link #tag}) and that producer's own count
 * from 0 in the rest, so that one consumer checks each producer's order. The timestamp is the intended send time of
 * a paced run ({@link System#nanoTime()}), 0 in a throughput run.
 */
public final class HandoffMessage {
    /** Where the tagged sequence is. */
    public static final int SEQUENCE_OFFSET = 0;
    /** Where the timestamp is. */
    public static final int TIMESTAMP_OFFSET = 8;
    /** The shortest message: the sequence and the timestamp. */
    public static final int MIN_SIZE = 16;
    /** The longest message the bench sends. */
    public static final int MAX_SIZE = 4096;
    /** The most producers a tag can name. */
    public static final int MAX_PRODUCERS = 128;

    private static final int TAG_SHIFT = 56;
    private static final long SEQUENCE_MASK = (1L << TAG_SHIFT) - 1;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private HandoffMessage() {
    }

    /**
     * A producer's sequence tagged with the producer's index.
     *
     * @param producer the producer's index, from 0 to {@link #MAX_PRODUCERS} - 1
     * @param sequence its count from 0
     * @return the tagged sequence
     */
    public static long tag(final int producer, final long sequence) {
        return ((long)producer << TAG_SHIFT) | sequence;
    }

    /**
     * The producer's index of a tagged sequence.
     *
     * @param tagged from {@link #tag}
     * @return the index
     */
    public static int producerOf(final long tagged) {
        return (int)(tagged >>> TAG_SHIFT);
    }

    /**
     * The producer's own count of a tagged sequence.
     *
     * @param tagged from {@link #tag}
     * @return the count
     */
    public static long sequenceOf(final long tagged) {
        return tagged & SEQUENCE_MASK;
    }

    /**
     * Checks a message size.
     *
     * @param size bytes
     * @return the size
     * @throws IllegalArgumentException outside [{@link #MIN_SIZE}, {@link #MAX_SIZE}]
     */
    public static int checkSize(final int size) {
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new IllegalArgumentException("size=" + size + " is not in [" + MIN_SIZE + ", " + MAX_SIZE + "]");
        }
        return size;
    }

    /**
     * A message's bytes as a producer starts from: a recognisable payload after the header.
     *
     * @param size bytes
     * @return a new array
     */
    public static byte[] payload(final int size) {
        final byte[] bytes = new byte[checkSize(size)];
        for (int i = MIN_SIZE; i < size; i++) {
            bytes[i] = (byte)i;
        }
        return bytes;
    }

    /**
     * Writes the header into a message held in a byte array.
     *
     * @param bytes the message
     * @param sequence the tagged sequence
     * @param timestampNs the timestamp
     */
    public static void putHeader(final byte[] bytes, final long sequence, final long timestampNs) {
        LONG.set(bytes, SEQUENCE_OFFSET, sequence);
        LONG.set(bytes, TIMESTAMP_OFFSET, timestampNs);
    }

    /**
     * The tagged sequence of a message held in a byte array.
     *
     * @param bytes the message
     * @return the tagged sequence
     */
    public static long sequence(final byte[] bytes) {
        return (long)LONG.get(bytes, SEQUENCE_OFFSET);
    }

    /**
     * The timestamp of a message held in a byte array.
     *
     * @param bytes the message
     * @return the timestamp
     */
    public static long timestamp(final byte[] bytes) {
        return (long)LONG.get(bytes, TIMESTAMP_OFFSET);
    }
}
