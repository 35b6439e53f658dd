package dev.peregrine.bench.transports;

/**
 * The sequence numbers of echoes that arrived but were not yet handed to the harness: one poll of a
 * datagram endpoint (or a reactor cycle) can deliver several echoes at once when more than one message is
 * in flight (the harness's fixed-rate mode). A ring of fixed capacity; allocates nothing.
 */
final class EchoSequences {
    private static final int CAPACITY = 1 << 16;
    private static final int MASK = CAPACITY - 1;
    private final long[] sequences = new long[CAPACITY];
    private long head;
    private long tail;

    /**
     * Keeps an arrived echo.
     *
     * @param sequence its sequence number
     * @throws IllegalStateException if more echoes are waiting than the ring holds (the harness stopped polling)
     */
    void add(final long sequence) {
        if (tail - head == CAPACITY) {
            throw new IllegalStateException("more than " + CAPACITY + " echoes waiting to be polled");
        }
        sequences[(int)(tail++ & MASK)] = sequence;
    }

    /**
     * Takes the oldest waiting echo.
     *
     * @return its sequence number, or -1 if none is waiting
     */
    long poll() {
        return head == tail ? -1 : sequences[(int)(head++ & MASK)];
    }

    /**
     * Whether an echo is waiting.
     *
     * @return true if {@link #poll()} would return one
     */
    boolean isEmpty() {
        return head == tail;
    }
}
