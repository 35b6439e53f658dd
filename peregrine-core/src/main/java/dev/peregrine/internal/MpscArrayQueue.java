package dev.peregrine.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

abstract class MpscPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class MpscProducerFields extends MpscPad0 {
    volatile long producerIndex;
    volatile long producerLimit;
}

abstract class MpscPad1 extends MpscProducerFields {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}

abstract class MpscConsumerFields extends MpscPad1 {
    volatile long consumerIndex;
}

abstract class MpscPad2 extends MpscConsumerFields {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}

/**
 * A bounded lock-free multi-producer single-consumer queue (the JCTools design on VarHandles): producers
 * claim a slot with a CAS on the producer index and publish the element with a release store; the one
 * consumer reads it with an acquire load. Producer and consumer indexes sit on their own cache-line pairs.
 *
 * @param <E> element type
 */
public final class MpscArrayQueue<E> extends MpscPad2 {
    private static final VarHandle PRODUCER_INDEX;
    private static final VarHandle PRODUCER_LIMIT;
    private static final VarHandle CONSUMER_INDEX;
    private static final VarHandle ELEMENTS = MethodHandles.arrayElementVarHandle(Object[].class);

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            PRODUCER_INDEX = lookup.findVarHandle(MpscProducerFields.class, "producerIndex", long.class);
            PRODUCER_LIMIT = lookup.findVarHandle(MpscProducerFields.class, "producerLimit", long.class);
            CONSUMER_INDEX = lookup.findVarHandle(MpscConsumerFields.class, "consumerIndex", long.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Object[] elements;
    private final int mask;
    private final int capacity;

    /**
     * Creates a queue.
     *
     * @param requestedCapacity the least capacity; rounded up to a power of two
     */
    public MpscArrayQueue(final int requestedCapacity) {
        if (requestedCapacity < 2 || requestedCapacity > (1 << 30)) {
            throw new IllegalArgumentException("capacity=" + requestedCapacity + " must be in [2, 2^30]");
        }
        capacity = 1 << (32 - Integer.numberOfLeadingZeros(requestedCapacity - 1));
        mask = capacity - 1;
        elements = new Object[capacity];
        PRODUCER_LIMIT.setRelease(this, (long)capacity);
    }

    /**
     * Adds an element; safe from any thread.
     *
     * @param element not null
     * @return false if the queue is full
     */
    public boolean offer(final E element) {
        if (element == null) {
            throw new IllegalArgumentException("element=null");
        }
        final long index = claim();
        if (index < 0) {
            return false;
        }
        publish(index, element);
        return true;
    }

    /** The first half of {@link #offer}: claims a slot; -1 if the queue is full. Package-private for tests. */
    long claim() {
        long limit = (long)PRODUCER_LIMIT.getAcquire(this);
        long index;
        do {
            index = (long)PRODUCER_INDEX.getAcquire(this);
            if (index >= limit) {
                // pairs with the consumer's release store of consumerIndex in poll()
                limit = (long)CONSUMER_INDEX.getAcquire(this) + capacity;
                if (index >= limit) {
                    return -1;
                }
                PRODUCER_LIMIT.setRelease(this, limit);
            }
        } while (!PRODUCER_INDEX.compareAndSet(this, index, index + 1));
        return index;
    }

    /** The second half of {@link #offer}: publishes the element in a claimed slot. Package-private for tests. */
    void publish(final long index, final E element) {
        // pairs with the consumer's acquire load of the slot in poll()
        ELEMENTS.setRelease(elements, (int)(index & mask), element);
    }

    /**
     * Removes the oldest element; only the one consumer thread may call this.
     *
     * <p>Never waits: when the oldest slot is claimed by a producer that has not published it yet (one
     * preempted between its claim and its store, say), this answers null and the element comes on a later
     * call, still before every element claimed after it (FIFO is kept). {@link #size()} counts such a slot.
     *
     * @return the element, or null if the queue is empty or its oldest element is not published yet
     */
    @SuppressWarnings("unchecked")
    public E poll() {
        final long index = (long)CONSUMER_INDEX.getOpaque(this);
        final int slot = (int)(index & mask);
        // pairs with the producer's release store of the slot in publish()
        final Object element = ELEMENTS.getAcquire(elements, slot);
        if (element == null) {
            // empty, or claimed and not yet published: the duty cycle retries on its next pass rather than spin
            // for as long as the producer stays descheduled
            return null;
        }
        ELEMENTS.setOpaque(elements, slot, null);
        // pairs with the producers' acquire load of consumerIndex in offer()
        CONSUMER_INDEX.setRelease(this, index + 1);
        return (E)element;
    }

    /**
     * Removes up to {@code limit} elements and hands each to {@code consumer}; consumer thread only.
     *
     * @param consumer receives the elements, in order
     * @param limit the most elements to take
     * @return the number taken
     */
    public int drain(final Consumer<? super E> consumer, final int limit) {
        int count = 0;
        E element;
        while (count < limit && (element = poll()) != null) {
            count++;
            consumer.accept(element);
        }
        return count;
    }

    /**
     * Capacity, a power of two.
     *
     * @return the capacity
     */
    public int capacity() {
        return capacity;
    }

    /**
     * Elements now queued; a snapshot when producers are active.
     *
     * @return the size
     */
    public int size() {
        final long consumer = (long)CONSUMER_INDEX.getAcquire(this);
        final long producer = (long)PRODUCER_INDEX.getAcquire(this);
        return (int)Math.max(0, Math.min(capacity, producer - consumer));
    }
}
