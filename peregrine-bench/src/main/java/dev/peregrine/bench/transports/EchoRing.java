package dev.peregrine.bench.transports;


import dev.peregrine.peers.BenchMessageLayout;
import java.lang.foreign.MemorySegment;

/**
 * The echoes a Peregrine TCP ping client has read and not yet handed to {@code poll()}: the sequence fields
 * ({@link BenchMessageLayout}) of the replies, in the order they came, so that several arriving in one duty cycle are all returned, one per
 * poll. A reply of the wrong length, or one more than the ring holds, is kept as a failure for the polling
 * side to throw: thrown from {@code onMessage} it would only close the channel. Reactor thread only.
 */
final class EchoRing {
    private final long[] ring;
    private final int mask;
    private final int replySize;
    private final int sequenceLength;
    private long head;
    private long tail;
    private IllegalStateException failure;

    /**
     * @param capacity echoes held before polling, a power of two
     * @param replySize the length every reply must have
     * @param sequenceLength bytes of each reply's sequence field
     */
    EchoRing(final int capacity, final int replySize, final int sequenceLength) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " must be a power of two");
        }
        this.ring = new long[capacity];
        this.mask = capacity - 1;
        this.replySize = replySize;
        this.sequenceLength = sequenceLength;
    }

    /** Keeps a reply's sequence number, or the reason it cannot. */
    void onReply(final MemorySegment buffer, final long offset, final int length) {
        if (failure != null) {
            return;
        }
        if (tail - head == ring.length) {
            failure = new IllegalStateException("more than " + ring.length + " echoes waiting to be polled");
            return;
        }
        final long sequence = length >= sequenceLength ? BenchMessageLayout.sequence(buffer, offset, sequenceLength) : -1;
        if (length != replySize) {
            failure = new IllegalStateException("reply of length=" + length + " to sequence=" + sequence
                + ", expected replySize=" + replySize);
            return;
        }
        ring[(int)(tail++ & mask)] = sequence;
    }

    boolean isEmpty() {
        return head == tail;
    }

    /** Throws the failure kept by {@link #onReply}, if any. */
    void throwIfFailed() {
        if (failure != null) {
            throw failure;
        }
    }

    /** The oldest echo's sequence field; the ring must not be {@link #isEmpty() empty}. */
    long take() {
        return ring[(int)(head++ & mask)];
    }
}
