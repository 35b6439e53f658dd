package dev.peregrine.peers.handoff;

import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscArrayQueue;
import org.jctools.queues.SpscArrayQueue;

/**
 * JCTools 4.0.5 {@link MpscArrayQueue} ({@code jctools-mpsc}) carrying pooled message objects, so that nothing is
 * allocated per message: each producer owns a pool of them, and the consumer returns each message to its
 * producer's pool through an {@link SpscArrayQueue} (the consumer its producer, the producer its consumer). The
 * pools hold the setup's capacity together, so the main queue never refuses an offer: a full hand-over shows as an
 * empty pool. Producers batch with {@code fill}, the consumer with {@code drain(consumer, limit)}.
 */
public final class JctoolsHandoff implements HandoffImplementation {
    /** The name on the command line. */
    public static final String NAME = "jctools-mpsc";

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
        return "MpscArrayQueue of pooled messages returned through a per-producer SpscArrayQueue; fill(supplier, n),"
            + " drain(consumer, limit)";
    }

    @Override
    public HandoffQueue open(final HandoffSetup setup) {
        return new Queue(setup);
    }

    /** A pooled message: its bytes and the pool it goes back to. */
    static final class Message {
        final byte[] bytes;
        final SpscArrayQueue<Message> home;

        Message(final int size, final SpscArrayQueue<Message> home) {
            this.bytes = new byte[size];
            this.home = home;
        }
    }

    private static final class Queue implements HandoffQueue, HandoffConsumer {
        private final HandoffSetup setup;
        private final MpscArrayQueue<Message> queue;
        private final MessagePassingQueue.Consumer<Message> drainer = this::onMessage;
        private HandoffSink sink;

        Queue(final HandoffSetup setup) {
            this.setup = setup;
            this.queue = new MpscArrayQueue<>(setup.capacity());
        }

        @Override
        public HandoffProducer producer(final int index) {
            final int pooled = setup.capacity() / setup.producers();
            final SpscArrayQueue<Message> pool = new SpscArrayQueue<>(pooled);
            for (int i = 0; i < pooled; i++) {
                pool.offer(new Message(setup.size(), pool));
            }
            return new Producer(queue, pool, HandoffMessage.payload(setup.size()), setup.readLimit());
        }

        @Override
        public HandoffConsumer consumer() {
            return this;
        }

        @Override
        public int poll(final HandoffSink sink) {
            this.sink = sink;
            return queue.drain(drainer, setup.readLimit());
        }

        private void onMessage(final Message message) {
            sink.onMessage(HandoffMessage.sequence(message.bytes), HandoffMessage.timestamp(message.bytes));
            message.home.offer(message); // never full: it held this message before
        }

        @Override
        public void close() {
        }
    }

    private static final class Producer implements HandoffProducer {
        private final MpscArrayQueue<Message> queue;
        private final SpscArrayQueue<Message> pool;
        private final byte[] source;
        private final Message[] batch;
        private final MessagePassingQueue.Consumer<Message> stash = this::stash;
        private final MessagePassingQueue.Supplier<Message> next = this::next;
        private int stashed;
        private int taken;

        Producer(final MpscArrayQueue<Message> queue, final SpscArrayQueue<Message> pool, final byte[] source,
                 final int batchLimit) {
            this.queue = queue;
            this.pool = pool;
            this.source = source;
            this.batch = new Message[Math.max(batchLimit, 1024)];
        }

        @Override
        public boolean offer(final long sequence, final long timestampNs) {
            final Message message = pool.relaxedPoll();
            if (message == null) {
                return false;
            }
            fill(message.bytes, sequence, timestampNs);
            queue.offer(message); // never full: the pools hold no more than its capacity
            return true;
        }

        @Override
        public int offerBatch(final long firstSequence, final int count) {
            stashed = 0;
            pool.drain(stash, Math.min(count, batch.length));
            for (int i = 0; i < stashed; i++) {
                fill(batch[i].bytes, firstSequence + i, 0);
            }
            taken = 0;
            while (taken < stashed) {
                queue.fill(next, stashed - taken);
            }
            return stashed;
        }

        private void stash(final Message message) {
            batch[stashed++] = message;
        }

        private Message next() {
            final Message message = batch[taken];
            batch[taken++] = null;
            return message;
        }

        private void fill(final byte[] bytes, final long sequence, final long timestampNs) {
            System.arraycopy(source, HandoffMessage.MIN_SIZE, bytes, HandoffMessage.MIN_SIZE,
                bytes.length - HandoffMessage.MIN_SIZE);
            HandoffMessage.putHeader(bytes, sequence, timestampNs);
        }
    }
}
