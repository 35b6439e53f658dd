package dev.peregrine.peers.netty;

/**
 * A single-threaded queue of longs that grows when full (it only grows if more messages are in flight than
 * ever before, so it stops allocating once warm).
 */
final class LongRing {
    private long[] values = new long[1024];
    private long head;
    private long tail;

    void add(final long value) {
        if (tail - head == values.length) {
            final long[] bigger = new long[values.length * 2];
            for (long i = head; i < tail; i++) {
                bigger[(int) (i & (bigger.length - 1))] = values[(int) (i & (values.length - 1))];
            }
            values = bigger;
        }
        values[(int) (tail++ & (values.length - 1))] = value;
    }

    boolean isEmpty() {
        return head == tail;
    }

    long remove() {
        return values[(int) (head++ & (values.length - 1))];
    }
}
