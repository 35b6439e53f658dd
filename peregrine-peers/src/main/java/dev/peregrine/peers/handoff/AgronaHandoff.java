package dev.peregrine.peers.handoff;

import dev.peregrine.peers.aeron.AeronDriverSettings;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Agrona's ring buffers, as Aeron 1.51.0 bundles them: {@link OneToOneRingBuffer} ({@code agrona-spsc}) or
 * {@link ManyToOneRingBuffer} ({@code agrona-mpsc}) over a direct buffer sized for the setup's capacity. A producer
 * claims room with {@code tryClaim}, writes the message in place and commits; the consumer reads with
 * {@code read(handler, limit)}. Agrona has no batch claim: a producer's batch is a claim and a commit per message.
 */
public final class AgronaHandoff implements HandoffImplementation {
    /** The one-producer ring's name. */
    public static final String SPSC = "agrona-spsc";
    /** The many-producer ring's name. */
    public static final String MPSC = "agrona-mpsc";

    private static final int MSG_TYPE_ID = 1;
    private static final int RECORD_HEADER_LENGTH = 8; // Agrona's RecordDescriptor.HEADER_LENGTH

    private final boolean many;

    /**
     * Creates one of the two.
     *
     * @param many {@code ManyToOneRingBuffer} if true, {@code OneToOneRingBuffer} if false
     */
    public AgronaHandoff(final boolean many) {
        this.many = many;
    }

    @Override
    public String name() {
        return many ? MPSC : SPSC;
    }

    @Override
    public boolean manyProducers() {
        return many;
    }

    @Override
    public String description() {
        return (many ? "ManyToOneRingBuffer" : "OneToOneRingBuffer") + " (Agrona of Aeron 1.51.0), tryClaim/commit,"
            + " read(handler, limit)";
    }

    @Override
    public List<String> jvmArguments() {
        return AeronDriverSettings.JVM_ARGUMENTS;
    }

    @Override
    public HandoffQueue open(final HandoffSetup setup) {
        HandoffImplementation.checkProducers(this, setup);
        return new Queue(setup, many);
    }

    private static final class Queue implements HandoffQueue, HandoffConsumer {
        private final HandoffSetup setup;
        private final RingBuffer ring;
        private final MessageHandler handler = this::onMessage;
        private HandoffSink sink;

        Queue(final HandoffSetup setup, final boolean many) {
            this.setup = setup;
            final int bytes = setup.ringBytes(RECORD_HEADER_LENGTH, 1024);
            final UnsafeBuffer buffer = new UnsafeBuffer(
                ByteBuffer.allocateDirect(bytes + RingBufferDescriptor.TRAILER_LENGTH));
            this.ring = many ? new ManyToOneRingBuffer(buffer) : new OneToOneRingBuffer(buffer);
        }

        @Override
        public HandoffProducer producer(final int index) {
            return new Producer(ring, HandoffMessage.payload(setup.size()));
        }

        @Override
        public HandoffConsumer consumer() {
            return this;
        }

        @Override
        public int poll(final HandoffSink sink) {
            this.sink = sink;
            return ring.read(handler, setup.readLimit());
        }

        private void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index,
                               final int length) {
            sink.onMessage(buffer.getLong(index + HandoffMessage.SEQUENCE_OFFSET),
                buffer.getLong(index + HandoffMessage.TIMESTAMP_OFFSET));
        }

        @Override
        public void close() {
        }
    }

    private static final class Producer implements HandoffProducer {
        private final RingBuffer ring;
        private final byte[] source;

        Producer(final RingBuffer ring, final byte[] source) {
            this.ring = ring;
            this.source = source;
        }

        @Override
        public boolean offer(final long sequence, final long timestampNs) {
            final int index = ring.tryClaim(MSG_TYPE_ID, source.length);
            if (index < 0) {
                return false;
            }
            final var buffer = ring.buffer();
            buffer.putLong(index + HandoffMessage.SEQUENCE_OFFSET, sequence);
            buffer.putLong(index + HandoffMessage.TIMESTAMP_OFFSET, timestampNs);
            buffer.putBytes(index + HandoffMessage.MIN_SIZE, source, HandoffMessage.MIN_SIZE,
                source.length - HandoffMessage.MIN_SIZE);
            ring.commit(index);
            return true;
        }

        @Override
        public int offerBatch(final long firstSequence, final int count) {
            int taken = 0;
            while (taken < count && offer(firstSequence + taken, 0)) {
                taken++;
            }
            return taken;
        }
    }
}
