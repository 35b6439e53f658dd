package dev.peregrine.bench.handoff;

import dev.peregrine.peers.handoff.HandoffConsumer;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffProducer;
import dev.peregrine.peers.handoff.HandoffQueue;
import dev.peregrine.peers.handoff.HandoffSetup;
import dev.peregrine.peers.handoff.HandoffSink;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Peregrine's rings, as {@code bench handoff} drives them, allocate nothing on either thread: the producer's every
 * window (zero tolerance, {@link AllocationMeter#bytesInAnyWindow}) and the consumer's whole measured stretch.
 */
@Timeout(180)
class PeregrineHandoffAllocationTest {
    private static final int WARMUP = 150_000;
    private static final int WINDOW = 10_000;
    private static final int WINDOWS = 10;
    private static final int BATCH = 16;

    private static HandoffImplementation implementation(final String name) {
        return name.equals(PeregrineSpscHandoff.NAME) ? new PeregrineSpscHandoff() : new PeregrineMpscHandoff();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {PeregrineSpscHandoff.NAME, PeregrineMpscHandoff.NAME})
    void shouldAllocateNothingOnEitherThreadHandingOverOneMessageAtATime(final String name) throws Exception {
        assertAllocationFree(implementation(name), false);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {PeregrineSpscHandoff.NAME, PeregrineMpscHandoff.NAME})
    void shouldAllocateNothingOnEitherThreadHandingOverBatches(final String name) throws Exception {
        assertAllocationFree(implementation(name), true);
    }

    private static void assertAllocationFree(final HandoffImplementation implementation, final boolean batched)
        throws Exception {
        final int perAction = batched ? BATCH : 1;
        final long total = (long)(WARMUP + WINDOW * WINDOWS) * perAction;
        try (HandoffQueue queue = implementation.open(new HandoffSetup(256, 1, 1024, batched ? 256 : 1, true))) {
            final Consumer consumer = new Consumer(queue.consumer(), (long)WARMUP * perAction, total);
            final Thread thread = new Thread(consumer, "handoff-allocation-consumer");
            thread.start();
            final HandoffProducer producer = queue.producer(0);
            final long[] sequence = {0};
            final long producerBytes = AllocationMeter.bytesInAnyWindow(WARMUP, WINDOW, WINDOWS, () -> {
                if (batched) {
                    int taken = 0;
                    while (taken < BATCH) {
                        final int now = producer.offerBatch(sequence[0], BATCH - taken);
                        if (now == 0) {
                            Thread.yield();
                        }
                        taken += now;
                        sequence[0] += now;
                    }
                } else {
                    while (!producer.offer(sequence[0], sequence[0])) {
                        Thread.yield();
                    }
                    sequence[0]++;
                }
            });
            thread.join(TimeUnit.SECONDS.toMillis(120));
            assertThat(thread.isAlive()).as("the consumer ended").isFalse();
            assertThat(consumer.failure).isNull();
            assertThat(consumer.received).isEqualTo(total);
            assertThat(producerBytes).as("bytes the producer allocated").isZero();
            assertThat(consumer.bytes).as("bytes the consumer allocated").isZero();
        }
    }

    /** Polls until it has every message, measuring what it allocates after the warm-up. */
    private static final class Consumer implements Runnable {
        private final HandoffConsumer consumer;
        private final long warmup;
        private final long total;
        private final HandoffSink sink = this::onMessage;
        volatile long received;
        volatile long bytes = -1;
        volatile String failure;
        private long count;

        Consumer(final HandoffConsumer consumer, final long warmup, final long total) {
            this.consumer = consumer;
            this.warmup = warmup;
            this.total = total;
        }

        @Override
        public void run() {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
            long before = -1;
            while (count < total && failure == null) {
                if (before < 0 && count >= warmup) {
                    before = AllocationMeter.allocatedBytes();
                }
                if (consumer.poll(sink) == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        failure = "hung at " + count;
                        break;
                    }
                    Thread.yield();
                }
            }
            bytes = AllocationMeter.allocatedBytes() - before;
            received = count;
        }

        private void onMessage(final long sequence, final long timestampNs) {
            if (sequence != count && failure == null) {
                failure = "message " + sequence + " where " + count + " was due";
            }
            count++;
        }
    }
}
