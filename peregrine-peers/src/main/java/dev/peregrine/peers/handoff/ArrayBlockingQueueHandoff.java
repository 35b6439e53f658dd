package dev.peregrine.peers.handoff;

import java.util.ArrayList;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * {@link ArrayBlockingQueue} ({@code abq}) carrying pooled message objects, each returned to its producer's pool (a
 * second {@code ArrayBlockingQueue}) by the consumer. The pools hold the setup's capacity together, so the main
 * queue never refuses an offer. Producers offer one at a time (the queue has no batch offer); the consumer takes
 * one with {@code poll()} when the read limit is 1 (never {@code take()}: the bench's loop does the waiting), else
 * up to the limit with {@code drainTo}. Its lock, when contended, may allocate a waiter's node: the bench shows it.
 */
public final class ArrayBlockingQueueHandoff implements HandoffImplementation {
    /** The name on the command line. */
    public static final String NAME = "abq";

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
        return "ArrayBlockingQueue of pooled messages returned through a per-producer ArrayBlockingQueue; offer,"
            + " poll() (drainTo when batching)";
    }

    @Override
    public HandoffQueue open(final HandoffSetup setup) {
        return new Queue(setup);
    }

    /** A pooled message: its bytes and the pool it goes back to. */
    static final class Message {
        final byte[] bytes;
        final ArrayBlockingQueue<Message> home;

        Message(final int size, final ArrayBlockingQueue<Message> home) {
            this.bytes = new byte[size];
            this.home = home;
        }
    }

    private static final class Queue implements HandoffQueue, HandoffConsumer {
        private final HandoffSetup setup;
        private final ArrayBlockingQueue<Message> queue;
        private final ArrayList<Message> drained;

        Queue(final HandoffSetup setup) {
            this.setup = setup;
            this.queue = new ArrayBlockingQueue<>(setup.capacity());
            this.drained = new ArrayList<>(setup.readLimit());
        }

        @Override
        public HandoffProducer producer(final int index) {
            final int pooled = setup.capacity() / setup.producers();
            final ArrayBlockingQueue<Message> pool = new ArrayBlockingQueue<>(pooled);
            for (int i = 0; i < pooled; i++) {
                pool.offer(new Message(setup.size(), pool));
            }
            return new Producer(queue, pool, HandoffMessage.payload(setup.size()));
        }

        @Override
        public HandoffConsumer consumer() {
            return this;
        }

        @Override
        public int poll(final HandoffSink sink) {
            if (setup.readLimit() == 1) {
                final Message message = queue.poll();
                if (message == null) {
                    return 0;
                }
                deliver(sink, message);
                return 1;
            }
            final int count = queue.drainTo(drained, setup.readLimit());
            for (int i = 0; i < count; i++) {
                deliver(sink, drained.get(i));
            }
            drained.clear();
            return count;
        }

        private static void deliver(final HandoffSink sink, final Message message) {
            sink.onMessage(HandoffMessage.sequence(message.bytes), HandoffMessage.timestamp(message.bytes));
            message.home.offer(message); // never full: it held this message before
        }

        @Override
        public void close() {
        }
    }

    private static final class Producer implements HandoffProducer {
        private final ArrayBlockingQueue<Message> queue;
        private final ArrayBlockingQueue<Message> pool;
        private final byte[] source;

        Producer(final ArrayBlockingQueue<Message> queue, final ArrayBlockingQueue<Message> pool, final byte[] source) {
            this.queue = queue;
            this.pool = pool;
            this.source = source;
        }

        @Override
        public boolean offer(final long sequence, final long timestampNs) {
            final Message message = pool.poll();
            if (message == null) {
                return false;
            }
            System.arraycopy(source, HandoffMessage.MIN_SIZE, message.bytes, HandoffMessage.MIN_SIZE,
                message.bytes.length - HandoffMessage.MIN_SIZE);
            HandoffMessage.putHeader(message.bytes, sequence, timestampNs);
            queue.offer(message); // never full: the pools hold no more than its capacity
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
