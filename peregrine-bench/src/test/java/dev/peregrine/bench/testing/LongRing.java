package dev.peregrine.bench.testing;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A single-producer single-consumer ring of longs for the in-memory test transport; allocates nothing.
 */
final class LongRing {
    private final AtomicLongArray slots;
    private final int mask;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();

    LongRing(final int capacityPowerOfTwo) {
        slots = new AtomicLongArray(capacityPowerOfTwo);
        mask = capacityPowerOfTwo - 1;
    }

    boolean offer(final long value) {
        final long t = tail.get();
        if (t - head.get() > mask) {
            return false;
        }
        slots.lazySet((int)(t & mask), value);
        tail.lazySet(t + 1);
        return true;
    }

    long poll() {
        final long h = head.get();
        if (h == tail.get()) {
            return -1;
        }
        final long value = slots.get((int)(h & mask));
        head.lazySet(h + 1);
        return value;
    }
}
