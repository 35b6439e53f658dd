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
 * Peregrine's rings, as {@code bench handoff} drives them, allocate nothing on either thread: zero tolerance once the
 * JIT has settled ({@link AllocationMeter.CleanSets}). Each thread measures a set of windows of its own, the
 * consumer's windows counted in messages received; both then agree whether to measure another set (either thread
 * allocated), at most {@link #MAX_SETS}. An allocation at least once per set on either thread fails every set.
 */
@Timeout(180)
class PeregrineHandoffAllocationTest {
    private static final int WARMUP = 150_000;
    private static final int WINDOW = 10_000;
    private static final int WINDOWS = 10;
    private static final int BATCH = 16;
    private static final int MAX_SETS = 5;

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
        final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(2, MAX_SETS);
        try (HandoffQueue queue = implementation.open(new HandoffSetup(256, 1, 1024, batched ? 256 : 1, true))) {
            final Consumer consumer = new Consumer(queue.consumer(), perAction, sets);
            final Thread thread = new Thread(consumer, "handoff-allocation-consumer");
            thread.start();
            final HandoffProducer producer = queue.producer(0);
            final long[] sequence = {0};
            final Runnable produce = () -> {
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
            };
            AllocationMeter.bytesAllocatedBy(WARMUP, 0, produce);
            final AllocationMeter.Windows produced = sets.measure(WINDOW, WINDOWS, produce);
            thread.join(TimeUnit.SECONDS.toMillis(120));
            final long total = (WARMUP + (long)WINDOW * WINDOWS * sets.sets()) * perAction;
            assertThat(thread.isAlive()).as("the consumer ended").isFalse();
            assertThat(consumer.failure).isNull();
            assertThat(consumer.received).isEqualTo(total);
            assertThat(sequence[0]).isEqualTo(total);
            assertThat(produced.totalBytes()).as("bytes the producer allocated in the last set of %d", sets.sets())
                .isZero();
            assertThat(consumer.bytes).as("bytes the consumer allocated in the last set of %d", sets.sets()).isZero();
        }
    }

    /**
     * Polls as the producer offers: the warm-up's messages, then sets of windows of {@code perAction} messages per
     * iteration, measured as the producer's, until the sets agree.
     */
    private static final class Consumer implements Runnable {
        private final HandoffConsumer consumer;
        private final int perAction;
        private final AllocationMeter.CleanSets sets;
        private final HandoffSink sink = this::onMessage;
        private final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
        volatile long received;
        volatile long bytes = -1;
        volatile String failure;
        private long count;
        private long target;

        Consumer(final HandoffConsumer consumer, final int perAction, final AllocationMeter.CleanSets sets) {
            this.consumer = consumer;
            this.perAction = perAction;
            this.sets = sets;
        }

        @Override
        public void run() {
            // the producer waits for this set to end before it offers the next one's messages, so the windows of a
            // set never take a message of the next
            final Runnable receive = () -> {
                target += perAction;
                while (count < target && failure == null) {
                    if (consumer.poll(sink) == 0) {
                        if (System.nanoTime() - deadline > 0) {
                            failure = "hung at " + count;
                            break;
                        }
                        Thread.yield();
                    }
                }
            };
            AllocationMeter.bytesAllocatedBy(WARMUP, 0, receive);
            bytes = sets.measure(WINDOW, WINDOWS, receive).totalBytes();
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
