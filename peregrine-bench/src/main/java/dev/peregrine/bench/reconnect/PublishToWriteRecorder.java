package dev.peregrine.bench.reconnect;

import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/**
 * Server-side publish-to-write latency of one connection, on the server's reactor thread, with no hook in the
 * library: byte positions in the connection's outbound stream tell when a message reached the socket.
 *
 * <ul>
 *   <li>At publish, the caller passes the connection's queued position ({@code bytesWritten + pendingBytes})
 *       before and after the publish, and the publish time. The message is measured only if the publish queued
 *       exactly its own packet ({@code frameBytes}): the connection was caught up. Otherwise it is counted as
 *       not caught up.</li>
 *   <li>At each write to the connection's socket ({@link #onWritten}, from the transport's
 *       {@link dev.peregrine.tcp.TcpWriteListener}, as the write returns) the caller passes {@code bytesWritten};
 *       each entry whose position it reached is recorded as {@code now - publishTime}. So the figure ends at the
 *       write that took the message's last byte, not at a later duty cycle that noticed it.</li>
 *   <li>The writes are counted, and those the socket did not take whole (bytes left for OP_WRITE: the peer is not
 *       reading fast enough), with the most bytes left after one.</li>
 * </ul>
 *
 * <p>Entries wait in a preallocated ring; a publish that finds it full is counted, not measured. Allocates nothing.
 * Not thread-safe: one reactor thread.
 */
public final class PublishToWriteRecorder {
    private final long[] positions;
    private final long[] publishedNs;
    private final boolean[] inWindow;
    private final int mask;
    private final int frameBytes;
    private final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    private final Histogram outside = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    private long head;
    private long tail;
    private long notCaughtUp;
    private long overflowed;
    private long lastMatchedPosition = -1;
    private long writtenAtLastMatch = -1;
    private long writes;
    private long partialWrites;
    private int mostPending;
    private long[] trace; // null, or each entry's latency by its number (a diagnosis)

    /**
     * Makes a recorder.
     *
     * @param capacity entries that may wait for their write, a power of two
     * @param frameBytes bytes one published message takes in the stream (its whole packet)
     */
    public PublishToWriteRecorder(final int capacity, final int frameBytes) {
        if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " must be a power of two");
        }
        if (frameBytes <= 0) {
            throw new IllegalArgumentException("frameBytes=" + frameBytes + " must be positive");
        }
        this.positions = new long[capacity];
        this.publishedNs = new long[capacity];
        this.inWindow = new boolean[capacity];
        this.mask = capacity - 1;
        this.frameBytes = frameBytes;
    }

    /**
     * A message was published.
     *
     * @param positionBefore the connection's queued position before the publish, negative if it has none
     * @param positionAfter its queued position after the publish
     * @param publishNs when it was published
     */
    public void published(final long positionBefore, final long positionAfter, final long publishNs) {
        published(positionBefore, positionAfter, publishNs, true);
    }

    /**
     * A message was published, inside the measured window or not: its write goes into {@link #histogram()} if it
     * was, else into {@link #outsideWindow()}.
     *
     * @param positionBefore the connection's queued position before the publish, negative if it has none
     * @param positionAfter its queued position after the publish
     * @param publishNs when it was published
     * @param windowed whether it was published inside the measured window
     */
    public void published(final long positionBefore, final long positionAfter, final long publishNs,
                          final boolean windowed) {
        if (positionBefore < 0 || positionAfter - positionBefore != frameBytes) {
            notCaughtUp++;
            return;
        }
        if (tail - head == positions.length) {
            overflowed++;
            return;
        }
        final int slot = (int)(tail & mask);
        positions[slot] = positionAfter;
        publishedNs[slot] = publishNs;
        inWindow[slot] = windowed;
        tail++;
    }

    /**
     * A write to the connection's socket, as it happens: counts it, then records what it completed.
     *
     * @param bytesWritten the connection's bytes handed to its socket, this write included
     * @param bytesPending its bytes still waiting after the write
     * @param nowNs now, on the clock of the publish times
     * @return messages recorded
     */
    public int onWritten(final long bytesWritten, final int bytesPending, final long nowNs) {
        writes++;
        if (bytesPending > 0) {
            partialWrites++;
            mostPending = Math.max(mostPending, bytesPending);
        }
        return written(bytesWritten, nowNs);
    }

    /** @return writes to the connection's socket seen by {@link #onWritten} */
    public long writes() {
        return writes;
    }

    /** @return writes after which bytes were left for the socket to take later (it was full) */
    public long partialWrites() {
        return partialWrites;
    }

    /** @return the most bytes left waiting after one write */
    public int mostPending() {
        return mostPending;
    }

    /**
     * Records every waiting message that the bytes written so far include.
     *
     * @param bytesWritten the connection's bytes handed to its socket, negative if it is gone (nothing recorded)
     * @param nowNs now, on the clock of the publish times
     * @return messages recorded
     */
    public int written(final long bytesWritten, final long nowNs) {
        int recorded = 0;
        while (head < tail && bytesWritten >= 0 && positions[(int)(head & mask)] <= bytesWritten) {
            final long latency = nowNs - publishedNs[(int)(head & mask)];
            if (trace != null && head < trace.length) {
                trace[(int)head] = latency;
            }
            final Histogram into = inWindow[(int)(head & mask)] ? histogram : outside;
            into.recordValue(Math.max(0, Math.min(into.getHighestTrackableValue(), latency)));
            lastMatchedPosition = positions[(int)(head & mask)];
            writtenAtLastMatch = bytesWritten;
            head++;
            recorded++;
        }
        return recorded;
    }

    /**
     * Keeps each entry's latency in {@code latencies}, by the entry's number (from 0, in publish order), as it is
     * recorded: for a diagnosis that splits the tail. Entries past its length are not kept.
     *
     * @param latencies where they go, or null for none
     */
    public void trace(final long[] latencies) {
        this.trace = latencies;
    }

    /** @return entries taken at publish so far (measured messages): the next entry's number */
    public long measured() {
        return tail;
    }

    /** @return entries whose write was seen so far */
    public long recorded() {
        return head;
    }

    /** @return messages measured at publish whose write was not seen yet */
    public long waiting() {
        return tail - head;
    }

    /**
     * The position of the last message recorded: a check of the matching. Once the stream stops, the last message
     * is matched by the write that ends with it, so this equals {@link #writtenAtLastMatch()} unless something was
     * written after it in the same write.
     *
     * @return the position, -1 before the first
     */
    public long lastMatchedPosition() {
        return lastMatchedPosition;
    }

    /** @return the bytes written that matched the last message recorded, -1 before the first */
    public long writtenAtLastMatch() {
        return writtenAtLastMatch;
    }

    /** @return messages not measured because the connection was not caught up at their publish */
    public long notCaughtUp() {
        return notCaughtUp;
    }

    /** @return messages not measured because the ring was full */
    public long overflowed() {
        return overflowed;
    }

    /** @return the publish-to-write times recorded for messages published inside the measured window, in ns */
    public Histogram histogram() {
        return histogram;
    }

    /** @return the publish-to-write times recorded for messages published outside the measured window, in ns */
    public Histogram outsideWindow() {
        return outside;
    }
}
