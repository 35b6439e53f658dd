package dev.peregrine.bench.handoff;

import dev.peregrine.bench.run.ThreadAllocation;
import dev.peregrine.peers.handoff.HandoffConsumer;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffMessage;
import dev.peregrine.peers.handoff.HandoffProducer;
import dev.peregrine.peers.handoff.HandoffQueue;
import dev.peregrine.peers.handoff.HandoffSetup;
import dev.peregrine.peers.handoff.HandoffSink;
import dev.peregrine.reactor.ThreadAffinity;
import org.HdrHistogram.Histogram;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * Runs {@code bench handoff}: threads of this JVM handing messages through one {@link HandoffImplementation}.
 * <ul>
 *   <li>{@link #latency}: one producer paced at a rate, one message per hand-over, its intended send time in the
 *       message; the consumer busy-polls and records receive time minus intended send time, so that a producer held
 *       up by a full queue or a descheduling is charged for every message it owes (coordinated omission corrected,
 *       as the bench's paced modes are). Both threads spin.</li>
 *   <li>{@link #throughput}: producers hand over batches of {@link #BATCH} as fast as the queue takes them, the
 *       consumer reads up to {@link #BATCH} a poll and checks every producer's sequence. With one producer both
 *       threads spin; with more, every thread yields ({@link Thread#yield()}) when its queue is empty or full, so
 *       that on two cores the run measures the queue and not the scheduler.</li>
 * </ul>
 * Allocation is measured per thread over the measured window ({@link ThreadAllocation}). The loops allocate nothing
 * per message: what shows is the queue's.
 *
 * <p>Every thread makes its own objects on its own thread before the run starts: its end of the queue
 * ({@link HandoffQueue#producer}, {@link HandoffQueue#consumer}) and whatever it writes per message (the consumer's
 * sequence checks and histogram). Objects made one after the other on one thread sit side by side in memory, and a
 * consumer writing its counters on the cache line of the producer's fields costs a line transfer per message that
 * belongs to neither queue: made on the main thread, the producer's and consumer's objects shared lines, and the
 * one-producer throughput of the same queue swung threefold from run to run with where they fell.
 */
public final class HandoffRunner {
    /** Messages every queue holds (a byte ring: this many records of the run's size). */
    public static final int CAPACITY = 8192;
    /** The producers' batch and the consumer's read limit in a throughput run. */
    public static final int BATCH = 256;
    private static final long HIGHEST_TRACKABLE_NS = 60_000_000_000L;
    private static final long NO_ALLOCATION_INFO = -1;

    private HandoffRunner() {
    }

    /**
     * A paced one-way latency run, one producer.
     *
     * @param implementation the queue
     * @param size message bytes
     * @param rate messages per second
     * @param warmupSeconds seconds sent before the measured ones
     * @param seconds measured seconds
     * @return the result
     */
    public static HandoffResult latency(final HandoffImplementation implementation, final int size, final long rate,
                                        final double warmupSeconds, final double seconds) {
        return latency(implementation, size, rate, warmupSeconds, seconds, false);
    }

    /**
     * A paced one-way latency run, one producer, its consumer spinning or yielding ({@link Thread#yield()}) when it
     * finds nothing: the way the separated stack's application thread and its reactor wait.
     *
     * @param implementation the queue
     * @param size message bytes
     * @param rate messages per second
     * @param warmupSeconds seconds sent before the measured ones
     * @param seconds measured seconds
     * @param yieldingConsumer whether the consumer yields when its poll finds nothing
     * @return the result
     */
    public static HandoffResult latency(final HandoffImplementation implementation, final int size, final long rate,
                                        final double warmupSeconds, final double seconds,
                                        final boolean yieldingConsumer) {
        if (rate < 1) {
            throw new IllegalArgumentException("rate=" + rate + " must be at least 1");
        }
        final long warmup = (long)Math.ceil(warmupSeconds * rate);
        final long measured = Math.max(1, (long)(seconds * rate));
        final Stop stop = new Stop(warmupSeconds + seconds);
        try (HandoffQueue queue = implementation.open(new HandoffSetup(size, 1, CAPACITY, 1, false))) {
            final LatencyConsumer consumer = new LatencyConsumer(queue, warmup, warmup + measured, stop,
                yieldingConsumer);
            final PacedProducer producer = new PacedProducer(queue, rate, warmup, warmup + measured, stop);
            runAll(stop, consumer, producer);
            final LatencySink sink = consumer.sink != null ? consumer.sink : new LatencySink(warmup, stop);
            return new HandoffResult(implementation.name(), size, 1, sink.histogram, sink.messagesPerSecond(),
                measured, perMessage(producer.allocated, measured), perMessage(sink.allocated, measured),
                stop.failure);
        }
    }

    /**
     * A throughput run.
     *
     * @param implementation the queue, a many-producer one for more than one producer
     * @param size message bytes
     * @param producers producer threads; with more than one every thread yields when it waits
     * @param warmupSeconds seconds before the window
     * @param seconds the measured window
     * @return the result
     */
    public static HandoffResult throughput(final HandoffImplementation implementation, final int size,
                                           final int producers, final double warmupSeconds, final double seconds) {
        final boolean yielding = producers > 1;
        final Stop stop = new Stop(warmupSeconds + seconds);
        try (HandoffQueue queue = implementation.open(new HandoffSetup(size, producers, CAPACITY, BATCH, yielding))) {
            final StreamProducer[] senders = new StreamProducer[producers];
            for (int i = 0; i < producers; i++) {
                senders[i] = new StreamProducer(queue, i, yielding, stop);
            }
            final StreamConsumer consumer = new StreamConsumer(queue, senders, yielding,
                (long)(warmupSeconds * 1e9), (long)(seconds * 1e9), stop);
            final Part[] all = new Part[producers + 1];
            all[0] = consumer;
            System.arraycopy(senders, 0, all, 1, producers);
            runAll(stop, all);
            long producerBytes = 0;
            for (final StreamProducer sender : senders) {
                producerBytes = sender.allocated < 0 || producerBytes < 0 ? NO_ALLOCATION_INFO
                    : producerBytes + sender.allocated;
            }
            final double elapsedSeconds = consumer.windowNs / 1e9;
            return new HandoffResult(implementation.name(), size, producers, null,
                consumer.windowMessages / elapsedSeconds, consumer.windowMessages,
                perMessage(producerBytes, consumer.windowMessages), perMessage(consumer.allocated,
                    consumer.windowMessages), stop.failure);
        }
    }

    private static double perMessage(final long bytes, final long messages) {
        return bytes < 0 || messages <= 0 ? Double.NaN : (double)bytes / messages;
    }

    /** One thread's share of a run: {@link #prepare} makes its objects on its own thread, then all run at once. */
    private interface Part extends Runnable {
        /** Makes this thread's objects; on the thread, before any part runs. */
        void prepare();
    }

    /**
     * Runs the parts, one thread each. Where the machine has a CPU for every thread, thread {@code i} (the consumer
     * is 0) is pinned to CPU {@code i}, for every queue alike: unpinned, the scheduler now and then put both spinning
     * threads on one CPU or moved one mid-window, and the same queue's throughput swung severalfold between runs.
     * A thread that cannot be pinned runs unpinned.
     */
    private static void runAll(final Stop stop, final Part... parts) {
        final CyclicBarrier prepared = new CyclicBarrier(parts.length);
        final boolean pin = parts.length <= Runtime.getRuntime().availableProcessors()
            && ThreadAffinity.unavailableReason() == null;
        final Thread[] threads = new Thread[parts.length];
        for (int i = 0; i < parts.length; i++) {
            final Part part = parts[i];
            final int cpu = i;
            threads[i] = new Thread(() -> {
                try {
                    if (pin) {
                        ThreadAffinity.pinCurrentThread(cpu); // null, or why not: then it runs unpinned
                    }
                    try {
                        part.prepare();
                    } finally {
                        prepared.await(); // every thread passes, and the barrier publishes each part's objects
                    }
                    if (!stop.stopped()) {
                        part.run();
                    }
                } catch (final BrokenBarrierException | InterruptedException ex) {
                    stop.fail(Thread.currentThread().getName() + " could not start: " + ex);
                } catch (final RuntimeException | Error ex) {
                    stop.fail(Thread.currentThread().getName() + " threw " + ex);
                }
            }, i == 0 ? "handoff-consumer" : "handoff-producer-" + (i - 1));
            threads[i].setDaemon(true);
        }
        for (final Thread thread : threads) {
            thread.start();
        }
        try {
            for (final Thread thread : threads) {
                thread.join();
            }
        } catch (final InterruptedException ex) {
            stop.fail("interrupted");
            Thread.currentThread().interrupt();
        }
    }

    /** What the threads of a run share to stop: a failure, and the deadline of a run that hangs. */
    private static final class Stop {
        private final long deadlineNs;
        private volatile String failure;

        Stop(final double expectedSeconds) {
            // a deadline only fails a run that hung: ten times what it should take, and ten seconds more
            this.deadlineNs = System.nanoTime() + (long)((expectedSeconds * 10 + 10) * 1e9);
        }

        void fail(final String why) {
            if (failure == null) {
                failure = why;
            }
        }

        boolean stopped() {
            return failure != null;
        }

        boolean overdue(final long nowNs) {
            if (nowNs - deadlineNs > 0) {
                fail("the run hung: it passed its deadline");
                return true;
            }
            return false;
        }
    }

    private static long allocated() {
        return ThreadAllocation.currentThread();
    }

    private static long since(final long before) {
        final long now = allocated();
        return before < 0 || now < 0 ? NO_ALLOCATION_INFO : now - before;
    }

    /** The paced producer: message {@code n} is due {@code n / rate} seconds after the first. */
    private static final class PacedProducer implements Part {
        private final HandoffQueue queue;
        private final long rate;
        private final long warmup;
        private final long total;
        private final Stop stop;
        private HandoffProducer producer;
        long allocated = NO_ALLOCATION_INFO;

        PacedProducer(final HandoffQueue queue, final long rate, final long warmup, final long total, final Stop stop) {
            this.queue = queue;
            this.rate = rate;
            this.warmup = warmup;
            this.total = total;
            this.stop = stop;
        }

        @Override
        public void prepare() {
            synchronized (queue) {
                producer = queue.producer(0);
            }
        }

        @Override
        public void run() {
            // locals: this object was made on the main thread, beside objects that other threads write
            final HandoffProducer producer = this.producer;
            final long rate = this.rate;
            final long warmup = this.warmup;
            final long total = this.total;
            final Stop stop = this.stop;
            final long startNs = System.nanoTime();
            long before = NO_ALLOCATION_INFO;
            for (long sequence = 0; sequence < total; sequence++) {
                if (sequence == warmup) {
                    before = allocated();
                }
                final long intendedNs = startNs + (long)(sequence * 1e9 / rate);
                long nowNs;
                while ((nowNs = System.nanoTime()) - intendedNs < 0) {
                    Thread.onSpinWait();
                }
                // the intended time, not the time it went: a wait for room is charged to the message
                while (!producer.offer(sequence, intendedNs)) {
                    if (stop.stopped() || stop.overdue(nowNs)) {
                        return;
                    }
                    Thread.onSpinWait();
                    nowNs = System.nanoTime();
                }
                if ((sequence & 1023) == 0 && stop.stopped()) {
                    return;
                }
            }
            allocated = since(before);
        }
    }

    /** The latency consumer: polls one message at a time, spinning or yielding between. */
    private static final class LatencyConsumer implements Part {
        private final HandoffQueue queue;
        private final long warmup;
        private final long total;
        private final Stop stop;
        private final boolean yielding;
        private HandoffConsumer consumer;
        LatencySink sink;

        LatencyConsumer(final HandoffQueue queue, final long warmup, final long total, final Stop stop,
                        final boolean yielding) {
            this.queue = queue;
            this.warmup = warmup;
            this.total = total;
            this.stop = stop;
            this.yielding = yielding;
        }

        @Override
        public void prepare() {
            synchronized (queue) {
                consumer = queue.consumer();
            }
            sink = new LatencySink(warmup, stop);
        }

        @Override
        public void run() {
            final HandoffConsumer consumer = this.consumer;
            final LatencySink sink = this.sink;
            while (sink.expected < total && !stop.stopped()) {
                if (consumer.poll(sink) == 0) {
                    if (stop.overdue(System.nanoTime())) {
                        return;
                    }
                    if (yielding) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
            if (sink.expected == total) {
                sink.allocated = since(sink.before);
            }
        }
    }

    /** What the latency consumer writes per message, made on its thread: the sequence check and the histogram. */
    private static final class LatencySink implements HandoffSink {
        final Histogram histogram = new Histogram(HIGHEST_TRACKABLE_NS, 3);
        private final long warmup;
        private final Stop stop;
        long expected;
        private long firstMeasuredNs;
        private long lastNs;
        long before = NO_ALLOCATION_INFO;
        long allocated = NO_ALLOCATION_INFO;

        LatencySink(final long warmup, final Stop stop) {
            this.warmup = warmup;
            this.stop = stop;
        }

        @Override
        public void onMessage(final long sequence, final long timestampNs) {
            final long nowNs = System.nanoTime();
            if (sequence != expected) {
                stop.fail("message " + sequence + " arrived where " + expected + " was due");
                return;
            }
            if (sequence >= warmup) {
                if (sequence == warmup) {
                    before = allocated();
                    firstMeasuredNs = nowNs;
                }
                histogram.recordValue(Math.min(Math.max(nowNs - timestampNs, 0), HIGHEST_TRACKABLE_NS));
                lastNs = nowNs;
            }
            expected++;
        }

        double messagesPerSecond() {
            final long measured = expected - warmup;
            return measured > 1 && lastNs > firstMeasuredNs ? (measured - 1) * 1e9 / (lastNs - firstMeasuredNs)
                : Double.NaN;
        }
    }

    /** A throughput producer: batches as fast as the queue takes them, until the consumer's window ends. */
    private static final class StreamProducer implements Part {
        private final HandoffQueue queue;
        private final int index;
        private final boolean yielding;
        private final Stop stop;
        private HandoffProducer producer;
        volatile int phase; // written by the consumer: 1 in the window, 2 after it
        volatile long sent = -1;
        long allocated = NO_ALLOCATION_INFO;

        StreamProducer(final HandoffQueue queue, final int index, final boolean yielding, final Stop stop) {
            this.queue = queue;
            this.index = index;
            this.yielding = yielding;
            this.stop = stop;
        }

        @Override
        public void prepare() {
            synchronized (queue) {
                producer = queue.producer(index);
            }
        }

        @Override
        public void run() {
            final HandoffProducer producer = this.producer; // locals, as in PacedProducer
            final Stop stop = this.stop;
            final int index = this.index;
            final boolean yielding = this.yielding;
            long sequence = 0;
            int seen = 0;
            long before = NO_ALLOCATION_INFO;
            try {
                while (!stop.stopped()) {
                    final int now = phase;
                    if (now != seen) {
                        if (now == 1) {
                            before = allocated();
                        }
                        seen = now;
                        if (now == 2) {
                            allocated = since(before);
                            return;
                        }
                    }
                    final int taken = producer.offerBatch(HandoffMessage.tag(index, sequence), BATCH);
                    if (taken == 0) {
                        if (yielding) {
                            Thread.yield();
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                    sequence += taken;
                }
            } finally {
                sent = sequence; // volatile: the consumer drains up to it
            }
        }
    }

    /** The throughput consumer: checks every sequence, and counts the messages of its window. */
    private static final class StreamConsumer implements Part {
        private final HandoffQueue queue;
        private final StreamProducer[] producers;
        private final boolean yielding;
        private final long warmupNs;
        private final long windowLengthNs;
        private final Stop stop;
        private HandoffConsumer consumer;
        private StreamSink sink;
        long windowMessages;
        long windowNs;
        long allocated = NO_ALLOCATION_INFO;

        StreamConsumer(final HandoffQueue queue, final StreamProducer[] producers, final boolean yielding,
                       final long warmupNs, final long windowLengthNs, final Stop stop) {
            this.queue = queue;
            this.producers = producers;
            this.yielding = yielding;
            this.warmupNs = warmupNs;
            this.windowLengthNs = Math.max(1, windowLengthNs);
            this.stop = stop;
        }

        @Override
        public void prepare() {
            synchronized (queue) {
                consumer = queue.consumer();
            }
            sink = new StreamSink(producers.length, stop);
        }

        @Override
        public void run() {
            final HandoffConsumer consumer = this.consumer;
            final StreamSink sink = this.sink;
            final long startNs = System.nanoTime();
            long windowStartNs = 0;
            long receivedAtStart = 0;
            long before = NO_ALLOCATION_INFO;
            int phase = 0;
            while (!stop.stopped()) {
                final int taken = consumer.poll(sink);
                final long nowNs = System.nanoTime();
                if (phase == 0 && nowNs - startNs >= warmupNs) {
                    phase = 1;
                    windowStartNs = nowNs;
                    receivedAtStart = sink.received;
                    before = allocated();
                    setPhase(1);
                } else if (phase == 1 && nowNs - windowStartNs >= windowLengthNs) {
                    phase = 2;
                    allocated = since(before);
                    windowNs = nowNs - windowStartNs;
                    windowMessages = sink.received - receivedAtStart;
                    setPhase(2);
                } else if (phase == 2 && drained(sink)) {
                    return;
                }
                if (taken == 0) {
                    if (stop.overdue(nowNs)) {
                        return;
                    }
                    if (yielding) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
        }

        private void setPhase(final int phase) {
            for (final StreamProducer producer : producers) {
                producer.phase = phase;
            }
        }

        /** Whether every producer has ended and all it sent was received. */
        private boolean drained(final StreamSink sink) {
            for (int i = 0; i < producers.length; i++) {
                if (producers[i].sent != sink.expected[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /** What the throughput consumer writes per message, made on its thread: each producer's next sequence. */
    private static final class StreamSink implements HandoffSink {
        private final long[] expected;
        private final Stop stop;
        long received;

        StreamSink(final int producers, final Stop stop) {
            this.expected = new long[producers];
            this.stop = stop;
        }

        @Override
        public void onMessage(final long tagged, final long timestampNs) {
            final int producer = HandoffMessage.producerOf(tagged);
            final long sequence = HandoffMessage.sequenceOf(tagged);
            if (producer >= expected.length || sequence != expected[producer]) {
                stop.fail("producer " + producer + "'s message " + sequence + " arrived where "
                    + (producer < expected.length ? expected[producer] : "nothing from it") + " was due");
                return;
            }
            expected[producer]++;
            received++;
        }
    }
}
