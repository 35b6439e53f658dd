package dev.peregrine.bench.handoff;

import dev.peregrine.peers.handoff.HandoffExchange;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffQueue;
import dev.peregrine.peers.handoff.HandoffSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Peregrine's rings as {@code bench handoff} drives them deliver exactly what was sent: each producer's messages
 * once each, in its order, with their timestamps, through a ring of 64 messages that wraps and fills many times.
 */
@Timeout(120)
class PeregrineHandoffSequenceTest {
    private static final int PER_PRODUCER = 20_000;

    @Test
    void shouldDeliverTheWorkerRingsMessagesExactlyInOrder() {
        assertExact(new PeregrineSpscHandoff(), 1, false, 1);
        assertExact(new PeregrineSpscHandoff(), 1, true, 32);
    }

    @Test
    void shouldDeliverTheCommandRingsMessagesExactlyInOrder() {
        assertExact(new PeregrineMpscHandoff(), 1, false, 1);
        assertExact(new PeregrineMpscHandoff(), 1, true, 32);
    }

    @Test
    void shouldDeliverEachOfTwoProducersMessagesThroughTheCommandRingExactlyInItsOrder() {
        assertExact(new PeregrineMpscHandoff(), 2, true, 32);
        assertExact(new PeregrineMpscHandoff(), 2, false, 1);
    }

    @Test
    void shouldRefuseASecondProducerOnTheWorkerRing() {
        assertThatThrownBy(() -> new PeregrineSpscHandoff().open(new HandoffSetup(32, 2, 64, 1, true)))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("producers=2: peregrine-spsc takes one producer");
    }

    private static void assertExact(final HandoffImplementation implementation, final int producers,
                                    final boolean batched, final int readLimit) {
        try (HandoffQueue queue = implementation.open(new HandoffSetup(48, producers, 64, readLimit, producers > 1))) {
            final long[] received = HandoffExchange.run(queue, producers, PER_PRODUCER, batched, 60);
            assertThat(received).hasSize(producers * PER_PRODUCER);
            for (int p = 0; p < producers; p++) {
                assertThat(HandoffExchange.of(received, p)).as("producer %d", p)
                    .containsExactly(LongStream.range(0, PER_PRODUCER).toArray());
            }
        }
    }
}
