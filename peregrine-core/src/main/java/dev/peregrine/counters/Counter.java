package dev.peregrine.counters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One 64-bit counter in a {@link CountersManager}'s file, written by one thread only (its owner).
 *
 * <p>The owner keeps the value in a plain field and stores it to its slot with release on each change: one
 * plain store on x86, no read of shared memory, no allocation. Readers in any process see the latest value
 * published. A counter made when every slot was taken, or after its manager closed, is <em>detached</em>:
 * it counts the same way, in memory nobody else reads ({@link #id()} is -1).
 *
 * <p>Not thread-safe: one writing thread; {@link #close()} (which frees the slot) on that thread, after its
 * last write.
 */
public final class Counter implements AutoCloseable {
    /** Where a closed counter's late writes go, so that they never reach a slot reused by another counter. */
    private static final MemorySegment SINK = Arena.global().allocate(CountersDescriptor.VALUE_LENGTH, 128);

    private final CountersManager manager;
    private final int id;
    private final int generation;
    private MemorySegment segment;
    private long offset;
    private long value;
    private boolean closed;

    Counter(final CountersManager manager, final int id, final int generation, final MemorySegment segment,
        final long offset) {
        this.manager = manager;
        this.id = id;
        this.generation = generation;
        this.segment = segment;
        this.offset = offset;
    }

    /**
     * Adds one.
     */
    public void increment() {
        final long next = value + 1;
        value = next;
        CountersDescriptor.LONG.setRelease(segment, offset, next); // pairs with the reader's acquire of the value
    }

    /**
     * Adds an amount.
     *
     * @param delta what to add
     */
    public void add(final long delta) {
        final long next = value + delta;
        value = next;
        CountersDescriptor.LONG.setRelease(segment, offset, next); // pairs with the reader's acquire of the value
    }

    /**
     * Sets the value, for a gauge (a level rather than a count).
     *
     * @param newValue the value
     */
    public void set(final long newValue) {
        value = newValue;
        CountersDescriptor.LONG.setRelease(segment, offset, newValue); // pairs with the reader's acquire of the value
    }

    /**
     * Raises the value to {@code candidate} if it is higher, for a maximum.
     *
     * @param candidate the new value if higher
     */
    public void max(final long candidate) {
        if (candidate > value) {
            set(candidate);
        }
    }

    /**
     * The value, as the owner last wrote it; owner thread only.
     *
     * @return the value
     */
    public long get() {
        return value;
    }

    /**
     * The counter's id (its slot in the file), or -1 if detached.
     *
     * @return the id
     */
    public int id() {
        return id;
    }

    int generation() {
        return generation;
    }

    /**
     * Whether the counter has no slot in a file (every slot was taken, or its manager was closed).
     *
     * @return true if detached
     */
    public boolean isDetached() {
        return id < 0;
    }

    /**
     * Frees the slot; it is reused only after the manager's reuse delay. Idempotent. Writes after this still
     * count in {@link #get()} but reach no slot.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            segment = SINK;
            offset = 0;
            if (manager != null && id >= 0) {
                manager.free(this);
            }
        }
    }

    @Override
    public String toString() {
        return "Counter[id=" + id + ", value=" + value + "]";
    }
}
