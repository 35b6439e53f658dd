package dev.peregrine.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What the off-heap rings share about their data areas: zeroing what a consumer has taken, so that the producer's
 * next lap meets zeros where no record has been written yet. Stateless; any thread.
 */
public final class RingMemory {
    private static final int ZERO_CHUNK = 4096;
    /** A zeroed block copied from: one for every ring, never written, held for the JVM's life. */
    private static final MemorySegment ZEROS = Arena.global().allocate(ZERO_CHUNK, 8);

    private RingMemory() {
    }

    /**
     * Zeroes the ring positions {@code [from, to)} of a data area, wrapping at its end; allocates nothing.
     *
     * @param ring the ring's memory
     * @param dataOffset where the data area starts in it
     * @param capacity the data area's bytes, a power of two
     * @param from the first position (a running byte count, not an index)
     * @param to one past the last position, at most {@code capacity} past {@code from}
     */
    public static void zero(final MemorySegment ring, final long dataOffset, final int capacity, final long from,
                            final long to) {
        final long mask = capacity - 1;
        long position = from;
        while (position < to) {
            final long index = position & mask;
            final long length = Math.min(Math.min(to - position, capacity - index), ZERO_CHUNK);
            MemorySegment.copy(ZEROS, 0, ring, dataOffset + index, length);
            position += length;
        }
    }
}
