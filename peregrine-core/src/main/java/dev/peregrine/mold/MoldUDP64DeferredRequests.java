package dev.peregrine.mold;

import java.net.InetSocketAddress;

/**
 * The requests a {@link MoldUDP64RequestServer} could not answer yet because their source host was over its rate
 * budget: a bounded queue in arrival order, made up front, so that a request is answered late rather than dropped.
 *
 * <ul>
 *   <li>Every entry names its source's rate bucket; a bucket holds at most {@code perSource} entries, so one host
 *       cannot fill the queue and it is no new target.</li>
 *   <li>A request from the same source (address and port) for the same first sequence number as one that waits is
 *       merged into it (the larger count is kept): a listener asking again is not queued twice.</li>
 *   <li>Entries leave in arrival order among those whose bucket has budget ({@link #take}); a served entry leaves a
 *       hole that the head skips, and a full ring with holes is compacted before it refuses.</li>
 * </ul>
 *
 * <p>Nothing allocates: the sender is the reference the endpoint handed in (an immutable address), kept until the
 * entry is served. Not thread-safe: the server's reactor thread.
 */
final class MoldUDP64DeferredRequests {
    /** {@link #offer} result: merged into a request of the same source and range that waits already. */
    static final int MERGED = 1;
    /** {@link #offer} result: queued. */
    static final int QUEUED = 0;
    /** {@link #offer} result: dropped, the source has {@code perSource} entries waiting. */
    static final int SOURCE_FULL = -1;
    /** {@link #offer} result: dropped, the queue is full. */
    static final int QUEUE_FULL = -2;

    private final int capacity;
    private final int perSource;
    private final InetSocketAddress[] senders;
    private final long[] sequences;
    private final int[] counts;
    private final int[] buckets;
    private final int[] waitingPerBucket;
    /** Ring positions, growing: the entry of position p is at p % capacity; null sender marks a served hole. */
    private long head;
    private long tail;
    private int size;

    MoldUDP64DeferredRequests(final int capacity, final int perSource, final int bucketCount) {
        if (capacity < 1 || perSource < 1) {
            throw new IllegalArgumentException("deferredRequests=" + capacity + " deferredPerSource=" + perSource
                + ": both must be at least 1");
        }
        this.capacity = capacity;
        this.perSource = Math.min(perSource, capacity);
        this.senders = new InetSocketAddress[capacity];
        this.sequences = new long[capacity];
        this.counts = new int[capacity];
        this.buckets = new int[capacity];
        this.waitingPerBucket = new int[bucketCount];
    }

    /**
     * Queues a request, or merges it into one of the same source and first sequence number.
     *
     * @return {@link #QUEUED}, {@link #MERGED}, {@link #SOURCE_FULL} or {@link #QUEUE_FULL}
     */
    int offer(final int bucket, final InetSocketAddress sender, final long sequence, final int count) {
        if (waitingPerBucket[bucket] > 0) {
            for (long p = head; p < tail; p++) {
                final int i = (int)(p % capacity);
                if (senders[i] != null && buckets[i] == bucket && sequences[i] == sequence && sameSource(senders[i], sender)) {
                    counts[i] = Math.max(counts[i], count);
                    return MERGED;
                }
            }
            if (waitingPerBucket[bucket] >= perSource) {
                return SOURCE_FULL;
            }
        }
        if (tail - head == capacity) {
            if (size == capacity) {
                return QUEUE_FULL;
            }
            compact();
        }
        final int i = (int)(tail++ % capacity);
        senders[i] = sender;
        sequences[i] = sequence;
        counts[i] = count;
        buckets[i] = bucket;
        waitingPerBucket[bucket]++;
        size++;
        return QUEUED;
    }

    private static boolean sameSource(final InetSocketAddress a, final InetSocketAddress b) {
        return a == b || a.getPort() == b.getPort() && a.getAddress().equals(b.getAddress());
    }

    /** Moves the waiting entries to the front of the ring, in their order, closing the holes. */
    private void compact() {
        long to = head;
        for (long p = head; p < tail; p++) {
            final int i = (int)(p % capacity);
            if (senders[i] != null) {
                final int j = (int)(to % capacity);
                if (j != i) {
                    senders[j] = senders[i];
                    sequences[j] = sequences[i];
                    counts[j] = counts[i];
                    buckets[j] = buckets[i];
                    senders[i] = null;
                }
                to++;
            }
        }
        tail = to;
    }

    /** Whether the source bucket has requests waiting: a new request of it queues behind them (oldest first). */
    boolean waiting(final int bucket) {
        return waitingPerBucket[bucket] > 0;
    }

    /** Requests waiting. */
    int size() {
        return size;
    }

    /** The ring position of the oldest entry, for a walk to {@link #end()} with {@link #bucketAt}. */
    long start() {
        return head;
    }

    /** One past the newest entry's ring position. */
    long end() {
        return tail;
    }

    /** The bucket of the entry at ring position {@code p}, or -1 for a hole. */
    int bucketAt(final long p) {
        final int i = (int)(p % capacity);
        return senders[i] == null ? -1 : buckets[i];
    }

    InetSocketAddress senderAt(final long p) {
        return senders[(int)(p % capacity)];
    }

    long sequenceAt(final long p) {
        return sequences[(int)(p % capacity)];
    }

    int countAt(final long p) {
        return counts[(int)(p % capacity)];
    }

    /** Removes the entry at ring position {@code p} (it was served); the head moves past holes. */
    void take(final long p) {
        final int i = (int)(p % capacity);
        waitingPerBucket[buckets[i]]--;
        senders[i] = null;
        size--;
        while (head < tail && senders[(int)(head % capacity)] == null) {
            head++;
        }
    }
}
