package dev.peregrine.peers.handoff;

import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.YieldingWaitStrategy;
import com.lmax.disruptor.dsl.ProducerType;

/**
 * The LMAX Disruptor 4.0.0: a {@link RingBuffer} of preallocated events, each holding a message's bytes; the
 * single-producer sequencer for one producer, the multi-producer one for two. Producers claim with
 * {@code tryNext(n)} and publish a batch with {@code publish(lo, hi)}; the consumer is an {@link EventPoller} (the
 * Disruptor's pull-side batch handler: it processes every event published since its last call, then moves its
 * sequence once), so that the bench's own loop waits the same way for every queue. The wait strategy is
 * {@link BusySpinWaitStrategy} (one producer) or {@link YieldingWaitStrategy} (two producers, threads yielding); with
 * a poller it only decides what a publication signals, and neither signals anything.
 */
public final class DisruptorHandoff implements HandoffImplementation {
    /** The name on the command line. */
    public static final String NAME = "disruptor";

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
        return "RingBuffer of preallocated events, tryNext(n)/publish(lo,hi), EventPoller; single-producer sequencer"
            + " for 1 producer, multi for 2; BusySpinWaitStrategy (YieldingWaitStrategy when yielding)";
    }

    @Override
    public HandoffQueue open(final HandoffSetup setup) {
        return new Queue(setup);
    }

    /** A preallocated event: one message's bytes. */
    static final class Event {
        final byte[] bytes;

        Event(final int size) {
            this.bytes = new byte[size];
        }
    }

    private static final class Queue implements HandoffQueue, HandoffConsumer {
        private final HandoffSetup setup;
        private final RingBuffer<Event> ring;
        private final EventPoller<Event> poller;
        private final EventPoller.Handler<Event> handler = this::onEvent;
        private HandoffSink sink;
        private int delivered;

        Queue(final HandoffSetup setup) {
            this.setup = setup;
            final int size = setup.size();
            this.ring = RingBuffer.create(setup.producers() > 1 ? ProducerType.MULTI : ProducerType.SINGLE,
                () -> new Event(size), setup.capacity(),
                setup.yielding() ? new YieldingWaitStrategy() : new BusySpinWaitStrategy());
            this.poller = ring.newPoller();
            ring.addGatingSequences(poller.getSequence());
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
            delivered = 0;
            try {
                poller.poll(handler);
            } catch (final RuntimeException ex) {
                throw ex;
            } catch (final Exception ex) {
                throw new IllegalStateException("the poller's handler threw", ex);
            }
            return delivered;
        }

        private boolean onEvent(final Event event, final long sequence, final boolean endOfBatch) {
            sink.onMessage(HandoffMessage.sequence(event.bytes), HandoffMessage.timestamp(event.bytes));
            return ++delivered < setup.readLimit();
        }

        @Override
        public void close() {
        }
    }

    private static final class Producer implements HandoffProducer {
        private final RingBuffer<Event> ring;
        private final byte[] source;

        Producer(final RingBuffer<Event> ring, final byte[] source) {
            this.ring = ring;
            this.source = source;
        }

        @Override
        public boolean offer(final long sequence, final long timestampNs) {
            final long slot;
            try {
                slot = ring.tryNext();
            } catch (final InsufficientCapacityException full) { // a preallocated instance: no garbage
                return false;
            }
            fill(ring.get(slot).bytes, sequence, timestampNs);
            ring.publish(slot);
            return true;
        }

        @Override
        public int offerBatch(final long firstSequence, final int wanted) {
            final int count = Math.min(wanted, ring.getBufferSize()); // a claim of more never succeeds
            final long high;
            try {
                high = ring.tryNext(count);
            } catch (final InsufficientCapacityException full) {
                return 0;
            }
            final long low = high - count + 1;
            for (long slot = low; slot <= high; slot++) {
                fill(ring.get(slot).bytes, firstSequence + (slot - low), 0);
            }
            ring.publish(low, high);
            return count;
        }

        private void fill(final byte[] bytes, final long sequence, final long timestampNs) {
            System.arraycopy(source, HandoffMessage.MIN_SIZE, bytes, HandoffMessage.MIN_SIZE,
                bytes.length - HandoffMessage.MIN_SIZE);
            HandoffMessage.putHeader(bytes, sequence, timestampNs);
        }
    }
}
