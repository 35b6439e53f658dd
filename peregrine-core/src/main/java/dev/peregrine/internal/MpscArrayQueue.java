package dev.peregrine.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

abstract class MpscProducerFields extends CacheLinePadding {
    volatile long producerIndex;
    volatile long producerLimit;
}

abstract class MpscPad1 extends MpscProducerFields {
    byte p1_00, p1_01, p1_02, p1_03, p1_04, p1_05, p1_06, p1_07, p1_08, p1_09, p1_0a, p1_0b, p1_0c, p1_0d, p1_0e, p1_0f;
    byte p1_10, p1_11, p1_12, p1_13, p1_14, p1_15, p1_16, p1_17, p1_18, p1_19, p1_1a, p1_1b, p1_1c, p1_1d, p1_1e, p1_1f;
    byte p1_20, p1_21, p1_22, p1_23, p1_24, p1_25, p1_26, p1_27, p1_28, p1_29, p1_2a, p1_2b, p1_2c, p1_2d, p1_2e, p1_2f;
    byte p1_30, p1_31, p1_32, p1_33, p1_34, p1_35, p1_36, p1_37, p1_38, p1_39, p1_3a, p1_3b, p1_3c, p1_3d, p1_3e, p1_3f;
    byte p1_40, p1_41, p1_42, p1_43, p1_44, p1_45, p1_46, p1_47, p1_48, p1_49, p1_4a, p1_4b, p1_4c, p1_4d, p1_4e, p1_4f;
    byte p1_50, p1_51, p1_52, p1_53, p1_54, p1_55, p1_56, p1_57, p1_58, p1_59, p1_5a, p1_5b, p1_5c, p1_5d, p1_5e, p1_5f;
    byte p1_60, p1_61, p1_62, p1_63, p1_64, p1_65, p1_66, p1_67, p1_68, p1_69, p1_6a, p1_6b, p1_6c, p1_6d, p1_6e, p1_6f;
    byte p1_70, p1_71, p1_72, p1_73, p1_74, p1_75, p1_76, p1_77, p1_78, p1_79, p1_7a, p1_7b, p1_7c, p1_7d, p1_7e, p1_7f;
    byte p1_80, p1_81, p1_82, p1_83, p1_84, p1_85, p1_86, p1_87;
}

abstract class MpscConsumerFields extends MpscPad1 {
    volatile long consumerIndex;
}

abstract class MpscPad2 extends MpscConsumerFields {
    byte p2_00, p2_01, p2_02, p2_03, p2_04, p2_05, p2_06, p2_07, p2_08, p2_09, p2_0a, p2_0b, p2_0c, p2_0d, p2_0e, p2_0f;
    byte p2_10, p2_11, p2_12, p2_13, p2_14, p2_15, p2_16, p2_17, p2_18, p2_19, p2_1a, p2_1b, p2_1c, p2_1d, p2_1e, p2_1f;
    byte p2_20, p2_21, p2_22, p2_23, p2_24, p2_25, p2_26, p2_27, p2_28, p2_29, p2_2a, p2_2b, p2_2c, p2_2d, p2_2e, p2_2f;
    byte p2_30, p2_31, p2_32, p2_33, p2_34, p2_35, p2_36, p2_37, p2_38, p2_39, p2_3a, p2_3b, p2_3c, p2_3d, p2_3e, p2_3f;
    byte p2_40, p2_41, p2_42, p2_43, p2_44, p2_45, p2_46, p2_47, p2_48, p2_49, p2_4a, p2_4b, p2_4c, p2_4d, p2_4e, p2_4f;
    byte p2_50, p2_51, p2_52, p2_53, p2_54, p2_55, p2_56, p2_57, p2_58, p2_59, p2_5a, p2_5b, p2_5c, p2_5d, p2_5e, p2_5f;
    byte p2_60, p2_61, p2_62, p2_63, p2_64, p2_65, p2_66, p2_67, p2_68, p2_69, p2_6a, p2_6b, p2_6c, p2_6d, p2_6e, p2_6f;
    byte p2_70, p2_71, p2_72, p2_73, p2_74, p2_75, p2_76, p2_77, p2_78, p2_79, p2_7a, p2_7b, p2_7c, p2_7d, p2_7e, p2_7f;
    byte p2_80, p2_81, p2_82, p2_83, p2_84, p2_85, p2_86, p2_87;
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
