package dev.peregrine.peers.handoff;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every peer of {@code bench handoff} delivers exactly what was sent: each producer's messages once each, in its
 * order, with their timestamps, through a queue of 64 messages that wraps and fills many times.
 */
@Timeout(120)
class PeerHandoffSequenceTest {
    private static final int PER_PRODUCER = 20_000;

    static Stream<String> peers() {
        return PeerHandoffs.all().stream().map(HandoffImplementation::name);
    }

    private static HandoffImplementation byName(final String name) {
        return PeerHandoffs.all().stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void shouldDeliverOneProducersMessagesOneAtATimeExactlyInOrder(final String name) {
        assertExact(byName(name), 1, false, 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void shouldDeliverOneProducersBatchesExactlyInOrder(final String name) {
        assertExact(byName(name), 1, true, 32);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void shouldDeliverEachOfTwoProducersMessagesExactlyInItsOrder(final String name) {
        final HandoffImplementation implementation = byName(name);
        assumeTrue(implementation.manyProducers(), name + " takes one producer");
        assertExact(implementation, 2, true, 32);
        assertExact(implementation, 2, false, 1);
    }

    static void assertExact(final HandoffImplementation implementation, final int producers, final boolean batched,
                            final int readLimit) {
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
