package dev.peregrine.bench.handoff;

import dev.peregrine.channel.Transport;
import dev.peregrine.handoff.CommandRingDescriptor;
import dev.peregrine.handoff.CommandRingOptions;
import dev.peregrine.handoff.ReactorCommandRing;
import dev.peregrine.peers.handoff.HandoffConsumer;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffMessage;
import dev.peregrine.peers.handoff.HandoffProducer;
import dev.peregrine.peers.handoff.HandoffQueue;
import dev.peregrine.peers.handoff.HandoffSetup;
import dev.peregrine.peers.handoff.HandoffSink;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;

/**
 * Peregrine's {@link ReactorCommandRing} ({@code peregrine-mpsc}), the any-thread-to-reactor ring, measured without a
 * socket: producers claim, write the message in place and commit; the consumer is the ring's own drain
 * ({@link ReactorCommandRing#doWork}, at most the read limit a call) into a {@link SinkTransport} registered with it,
 * whose {@code send} hands the message to the bench. The ring's reactor is made but never run: the consumer thread
 * calls the drain as the reactor's cycle would, and is the reactor thread for the ring's purposes. A commit still
 * asks the reactor to wake, which costs it one volatile read when the reactor is not asleep (never, here). A batch
 * is claimed whole ({@link ReactorCommandRing#tryClaimBatch}), written in place and committed once, as a Disruptor
 * batch is claimed with {@code tryNext(n)} and published once.
 */
public final class PeregrineMpscHandoff implements HandoffImplementation {
    /** The name on the command line. */
    public static final String NAME = "peregrine-mpsc";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean manyProducers() {
        return true;
    }

    @Override
    public String description() {
        return "ReactorCommandRing (off-heap), tryClaim/commit per message, a batch by tryClaimBatch and one commit,"
            + " its drain (doWork, drain limit = read limit) into a Transport whose send is the consumer";
    }

    @Override
    public HandoffQueue open(final HandoffSetup setup) {
        return new Queue(setup);
    }

    /**
     * A transport with no socket: what the ring drains to it is handed to a sink. Only {@code send} and the closes
     * are called by the ring; the rest refuse.
     */
    static final class SinkTransport implements Transport {
        private HandoffSink sink;

        void sink(final HandoffSink sink) {
            this.sink = sink;
        }

        @Override
        public long listen(final SocketAddress localAddress) {
            throw new UnsupportedOperationException("a sink has no socket: localAddress=" + localAddress);
        }

        @Override
        public long connect(final SocketAddress remoteAddress) {
            throw new UnsupportedOperationException("a sink has no socket: remoteAddress=" + remoteAddress);
        }

        @Override
        public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            sink.onMessage(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.SEQUENCE_OFFSET),
                buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.TIMESTAMP_OFFSET));
            return 0;
        }

        @Override
        public void close(final long id) {
        }

        @Override
        public void close() {
        }
    }

    private static final class Queue implements HandoffQueue, HandoffConsumer {
        private final HandoffSetup setup;
        private final Reactor reactor;
        private final ReactorCommandRing ring;
        private final SinkTransport transport = new SinkTransport();
        private final Arena arena = Arena.ofShared();
        private final int transportIndex;

        Queue(final HandoffSetup setup) {
            this.setup = setup;
            this.reactor = new Reactor(new ReactorOptions().name("bench-handoff"));
            this.ring = new ReactorCommandRing(reactor, new CommandRingOptions()
                .capacity(setup.ringBytes(CommandRingDescriptor.RECORD_HEADER_LENGTH, CommandRingDescriptor.MIN_CAPACITY))
                .drainLimit(setup.readLimit()));
            this.transportIndex = ring.register(transport);
        }

        @Override
        public HandoffProducer producer(final int index) {
            // off-heap, as peregrine-spsc's: every copy into the ring is native to native, so that the JIT's profile of
            // MemorySegment.copy does not mix heap and native sources between the two rows
            final MemorySegment source = arena.allocate(setup.size(), 8);
            source.copyFrom(MemorySegment.ofArray(HandoffMessage.payload(setup.size())));
            return new Producer(ring, transportIndex, index, source);
        }

        @Override
        public HandoffConsumer consumer() {
            return this;
        }

        @Override
        public int poll(final HandoffSink sink) {
            transport.sink(sink);
            return ring.doWork(System.nanoTime());
        }

        @Override
        public void close() {
            ring.close();
            reactor.close();
            arena.close();
        }
    }

    private static final class Producer implements HandoffProducer {
        private final ReactorCommandRing ring;
        private final MemorySegment buffer;
        private final int transportIndex;
        private final long channelId;
        private final MemorySegment source;
        private final int size;
        private final int maxBatch;

        Producer(final ReactorCommandRing ring, final int transportIndex, final long channelId,
                 final MemorySegment source) {
            this.ring = ring;
            this.buffer = ring.buffer();
            this.transportIndex = transportIndex;
            this.channelId = channelId;
            this.source = source;
            this.size = (int)source.byteSize();
            this.maxBatch = ring.maxBatchCount(size);
        }

        @Override
        public boolean offer(final long sequence, final long timestampNs) {
            final long claim = ring.tryClaim(transportIndex, channelId, size);
            if (claim < 0) {
                return false; // BACK_PRESSURED: the ring is full (the sink never refuses, so never the flag)
            }
            fill(ring.offset(claim), sequence, timestampNs);
            // ABANDONED: the claim outlived the ring's claim timeout (a producer descheduled for a second) and was
            // padded over, so nothing of it arrives; the bench offers the message again
            return ring.commit(claim) == 0;
        }

        @Override
        public int offerBatch(final long firstSequence, final int wanted) {
            final int count = Math.min(wanted, maxBatch);
            if (count < 1) { // a message too long for a batch: one by one
                return offer(firstSequence, 0) ? 1 : 0;
            }
            final long claim = ring.tryClaimBatch(transportIndex, channelId, size, count);
            if (claim < 0) {
                return 0; // BACK_PRESSURED: no room for the whole batch now
            }
            final long first = ring.batchOffset(claim, 0); // checked once; the rest follow at the documented stride
            final long stride = CommandRingDescriptor.aligned(size);
            for (int i = 0; i < count; i++) {
                fill(first + i * stride, firstSequence + i, 0);
            }
            return ring.commit(claim) == 0 ? count : 0; // ABANDONED: none of it arrives, the bench offers it again
        }

        private void fill(final long offset, final long sequence, final long timestampNs) {
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.SEQUENCE_OFFSET, sequence);
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + HandoffMessage.TIMESTAMP_OFFSET, timestampNs);
            MemorySegment.copy(source, HandoffMessage.MIN_SIZE, buffer, offset + HandoffMessage.MIN_SIZE,
                size - HandoffMessage.MIN_SIZE);
        }
    }
}
