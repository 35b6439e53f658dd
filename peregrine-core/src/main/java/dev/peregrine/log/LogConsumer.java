package dev.peregrine.log;

import dev.peregrine.internal.RingMemory;
import dev.peregrine.reactor.IdleStrategy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

import static dev.peregrine.log.LogRingDescriptor.ABANDONED_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.HEADER_LENGTH;
import static dev.peregrine.log.LogRingDescriptor.HEAD_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.LONG;
import static dev.peregrine.log.LogRingDescriptor.TYPE_PADDING;
import static dev.peregrine.log.LogRingDescriptor.WRITTEN_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.aligned;
import static dev.peregrine.log.LogRingDescriptor.lap;
import static dev.peregrine.log.LogRingDescriptor.recordLength;
import static dev.peregrine.log.LogRingDescriptor.state;
import static dev.peregrine.log.LogRingDescriptor.stateAcquire;
import static dev.peregrine.log.LogRingDescriptor.type;

/**
 * The logger's thread: drains committed records in order, formats each into a reused buffer and writes the buffer to
 * the file whenever it is full or the ring is empty. Pads over a claim that stayed open past the claim timeout.
 * Allocates nothing in steady state.
 */
final class LogConsumer implements Runnable {
    private static final int DRAIN_LIMIT = 1024;
    private static final int ABANDONED_CLAIMS = 16;

    private final MemorySegment segment;
    private final int capacity;
    private final long mask;
    private final long claimTimeoutNs;
    private final IdleStrategy idle;
    private final FileChannel channel;
    private final Path file;
    private final BooleanSupplier closing;
    private final MemorySegment out;
    private final ByteBuffer outBuffer;
    private final long flushAt;
    private final AtomicLongArray abandonedClaims = new AtomicLongArray(ABANDONED_CLAIMS);
    private int nextAbandonedSlot;
    private long outPosition;
    private long stuckPosition = -1;
    private long stuckSinceNs;
    private volatile IOException failure;

    LogConsumer(final MemorySegment segment, final int capacity, final LoggerOptions options, final FileChannel channel,
                final Path file, final BooleanSupplier closing) {
        this.segment = segment;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.claimTimeoutNs = options.claimTimeoutNs();
        this.idle = options.idleStrategy().get();
        this.channel = channel;
        this.file = file;
        this.closing = closing;
        final int maxLine = LogLineFormat.maxLineLength(options.maxPayloadLength());
        final int outLength = Math.max(options.writeBufferLength(), 2 * maxLine);
        final Arena arena = Arena.ofAuto();
        this.out = arena.allocate(outLength, 8);
        this.outBuffer = out.asByteBuffer();
        this.flushAt = outLength - maxLine;
        for (int i = 0; i < ABANDONED_CLAIMS; i++) {
            abandonedClaims.set(i, -1);
        }
    }

    @Override
    public void run() {
        try {
            while (true) {
                // read before the drain: a record committed before close() was called is drained after this read
                final boolean closed = closing.getAsBoolean();
                final int work = drain();
                if (work == 0) {
                    flush();
                    final long head = (long)LONG.get(segment, (long)HEAD_OFFSET);
                    if (closed && stateAcquire(segment, recordOffset(head)) == 0) {
                        break; // nothing committed, nor a claim open that could still be (waited out, then padded)
                    }
                }
                idle.idle(work);
            }
        } finally {
            flush();
            try {
                channel.close();
            } catch (final IOException ex) {
                if (failure == null) {
                    failure = ex;
                }
            }
        }
    }

    /**
     * Whether the consumer padded over this claim (among the last few), for a late commit to learn its fate.
     *
     * @param claim a claim's position
     * @return true if it was padded over
     */
    boolean wasAbandoned(final long claim) {
        for (int i = 0; i < ABANDONED_CLAIMS; i++) {
            if (abandonedClaims.get(i) == claim) {
                return true;
            }
        }
        return false;
    }

    /** The first failure to write the file, or null. */
    IOException failure() {
        return failure;
    }

    private int drain() {
        final long head = (long)LONG.get(segment, (long)HEAD_OFFSET); // the consumer is its only writer
        long position = head;
        int work = 0;
        // at most one lap: what this drain consumed is zeroed only at its end, so a full ring's head record, met again
        // a lap later, would read as a new one
        while (work < DRAIN_LIMIT && position - head < capacity) {
            final long offset = recordOffset(position);
            final long state = stateAcquire(segment, offset); // pairs with the producer's release or compare-and-set
            if (state == 0) {
                break; // nothing yet, or a producer between its tail and its state word
            }
            final int recordLength = recordLength(state);
            if (recordLength < 0) {
                if (!claimTimedOut(position)) {
                    break;
                }
                padOver(position, offset, state);
                continue; // padding now, or committed by a producer that won the race
            }
            if (type(state) != TYPE_PADDING) {
                if (outPosition > flushAt) {
                    flush();
                }
                outPosition = LogLineFormat.format(segment, offset, recordLength, out, outPosition);
                LONG.setRelease(segment, (long)WRITTEN_OFFSET, (long)LONG.get(segment, (long)WRITTEN_OFFSET) + 1);
            }
            work++;
            position += aligned(recordLength);
        }
        if (position != head) {
            zero(head, position);
            LONG.setRelease(segment, (long)HEAD_OFFSET, position); // pairs with the claim's head acquire: zeroed room
        }
        return work;
    }

    private boolean claimTimedOut(final long position) {
        final long nowNs = System.nanoTime();
        if (position != stuckPosition) {
            stuckPosition = position;
            stuckSinceNs = nowNs;
        }
        return nowNs - stuckSinceNs >= claimTimeoutNs;
    }

    /** The claim goes into the table before the compare-and-set, so that a producer whose own one fails finds it. */
    private void padOver(final long position, final long offset, final long state) {
        final long previous = abandonedClaims.get(nextAbandonedSlot);
        abandonedClaims.set(nextAbandonedSlot, position);
        if (LONG.compareAndSet(segment, offset, state, state(-recordLength(state), TYPE_PADDING, lap(state)))) {
            nextAbandonedSlot = (nextAbandonedSlot + 1) % ABANDONED_CLAIMS;
            LONG.getAndAdd(segment, (long)ABANDONED_OFFSET, 1L);
            stuckPosition = -1;
        } else {
            abandonedClaims.set(nextAbandonedSlot, previous); // the producer committed (or aborted) it in time
        }
    }

    private void flush() {
        if (outPosition == 0) {
            return;
        }
        if (failure == null) {
            outBuffer.clear().limit((int)outPosition);
            try {
                while (outBuffer.hasRemaining()) {
                    channel.write(outBuffer);
                }
            } catch (final IOException ex) {
                failure = ex; // reported by close(), naming the file; what follows is formatted and discarded
            }
        }
        outPosition = 0;
    }

    private void zero(final long from, final long to) {
        RingMemory.zero(segment, HEADER_LENGTH, capacity, from, to);
    }

    private long recordOffset(final long position) {
        return HEADER_LENGTH + (position & mask);
    }

    @Override
    public String toString() {
        return "logger of " + file;
    }
}
