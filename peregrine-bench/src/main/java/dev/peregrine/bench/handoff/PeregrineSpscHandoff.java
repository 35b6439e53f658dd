package dev.peregrine.bench.handoff;

import dev.peregrine.handoff.WorkerHandler;
import dev.peregrine.handoff.WorkerRing;
import dev.peregrine.handoff.WorkerRingDescriptor;
import dev.peregrine.peers.handoff.HandoffConsumer;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffMessage;
import dev.peregrine.peers.handoff.HandoffProducer;
import dev.peregrine.peers.handoff.HandoffQueue;
import dev.peregrine.peers.handoff.HandoffSetup;
import dev.peregrine.peers.handoff.HandoffSink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Peregrine's {@link WorkerRing} ({@code peregrine-spsc}), the reactor-to-worker ring: the producer writes each
 * message with {@code tryWrite} (a copy from its own off-heap buffer, the ring's only write), the consumer reads with
 * {@code read(handler, limit)}. A producer's batch is claimed whole ({@code tryClaimBatch}: the records' headers
 * written, their payloads written in place) and published once ({@code publish}), as a Disruptor batch is claimed
 * with {@code tryNext(n)} and published once.
 */
public final class PeregrineSpscHandoff implements HandoffImplementation {
    /** The name on the command line. */
    public static final String NAME = "peregrine-spsc";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean manyProducers() {
        return false;
    }

    @Override
    public String description() {
        return "WorkerRing (off-heap), tryWrite per message, a batch by tryClaimBatch then published once, read(limit)";
    }

    @Override
    public HandoffQueue open(final HandoffSetup setup) {
        HandoffImplementation.checkProducers(this, setup);
        return new Queue(setup);
    }

    private static final class Queue implements HandoffQueue, HandoffConsumer, WorkerHandler {
        private final HandoffSetup setup;
        private final WorkerRing ring;
        private final Arena arena = Arena.ofShared();
        private HandoffSink sink;

        Queue(final HandoffSetup setup) {
            this.setup = setup;
            this.ring = new WorkerRing(setup.ringBytes(WorkerRingDescriptor.RECORD_HEADER_LENGTH,
                WorkerRingDescriptor.MIN_CAPACITY));
        }

        @Override
        public HandoffProducer producer(final int index) {
            final MemorySegment source = arena.allocate(setup.size(), 8);
            source.copyFrom(MemorySegment.ofArray(HandoffMessage.payload(setup.size())));
            return new Producer(ring, source);
        }

        @Override
        public HandoffConsumer consumer() {
            return this;
        }

        @Override
        public int poll(final HandoffSink sink) {
            this.sink = sink;
            return ring.read(this, setup.readLimit());
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            sink.onMessage(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.SEQUENCE_OFFSET),
                buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.TIMESTAMP_OFFSET));
        }

        @Override
        public void close() {
            ring.close();
            arena.close();
        }
    }

    private static final class Producer implements HandoffProducer {
        private final WorkerRing ring;
        private final MemorySegment buffer;
        private final MemorySegment source;
        private final int size;
        private final int stride;
        private final int maxBatch;

        Producer(final WorkerRing ring, final MemorySegment source) {
            this.ring = ring;
            this.buffer = ring.buffer();
            this.source = source;
            this.size = (int)source.byteSize();
            this.stride = WorkerRingDescriptor.aligned(WorkerRingDescriptor.RECORD_HEADER_LENGTH + size);
            this.maxBatch = ring.maxBatchCount(size);
        }

        @Override
        public boolean offer(final long sequence, final long timestampNs) {
            source.set(ValueLayout.JAVA_LONG_UNALIGNED, HandoffMessage.SEQUENCE_OFFSET, sequence);
            source.set(ValueLayout.JAVA_LONG_UNALIGNED, HandoffMessage.TIMESTAMP_OFFSET, timestampNs);
            return ring.tryWrite(WorkerRingDescriptor.TYPE_MESSAGE, 0, source, 0, size);
        }

        @Override
        public int offerBatch(final long firstSequence, final int wanted) {
            final int count = Math.min(wanted, maxBatch);
            final long first = ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 0, size, count);
            if (first < 0) {
                return 0; // no room for the whole batch now
            }
            for (int i = 0; i < count; i++) {
                final long offset = first + (long)i * stride;
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.SEQUENCE_OFFSET, firstSequence + i);
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.TIMESTAMP_OFFSET, 0L);
                MemorySegment.copy(source, HandoffMessage.MIN_SIZE, buffer, offset + HandoffMessage.MIN_SIZE,
                    size - HandoffMessage.MIN_SIZE);
            }
            ring.publish(); // the batch shows at once, as a Disruptor batch does with one cursor update
            return count;
        }
    }
}
