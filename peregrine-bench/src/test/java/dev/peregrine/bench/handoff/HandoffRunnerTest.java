package dev.peregrine.bench.handoff;

import dev.peregrine.peers.handoff.HandoffConsumer;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffMessage;
import dev.peregrine.peers.handoff.HandoffProducer;
import dev.peregrine.peers.handoff.HandoffQueue;
import dev.peregrine.peers.handoff.HandoffSetup;
import dev.peregrine.peers.handoff.HandoffSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runner's loops check what they measure: a paced run records one latency per measured message, and a queue
 * that loses one message fails the run, paced or not, with the sequence that was due.
 */
@Timeout(120)
class HandoffRunnerTest {
    @Test
    void shouldRecordOneLatencyPerMeasuredMessage() {
        final HandoffResult result = HandoffRunner.latency(new PeregrineSpscHandoff(), 32, 100_000, 0.02, 0.05);

        assertThat(result.failure()).isNull();
        assertThat(result.isLatency()).isTrue();
        assertThat(result.messages()).isEqualTo(5_000);
        assertThat(result.latency().getTotalCount()).isEqualTo(5_000);
        assertThat(result.mode()).isEqualTo("latency");
    }

    @Test
    void shouldFailAPacedRunWhoseQueueLosesAMessage() {
        final HandoffResult result = HandoffRunner.latency(new Losing(new PeregrineSpscHandoff(), 3_000), 32, 100_000,
            0.02, 0.05);

        assertThat(result.failure()).isEqualTo("message 3001 arrived where 3000 was due");
    }

    @Test
    void shouldFailAThroughputRunWhoseQueueLosesAMessage() {
        // sequence 1 is in every producer's first batch (256 messages into an empty ring of 8192): lost as soon as a
        // producer sends anything, however little the scheduler lets it send in the window
        final HandoffResult result = HandoffRunner.throughput(new Losing(new PeregrineMpscHandoff(), 1), 32, 2,
            0.2, 0.05);

        assertThat(result.failure()).matches("producer [01]'s message 2 arrived where 1 was due");
    }

    @Test
    void shouldCountTheWindowsMessagesOfBothProducersWithoutFailure() {
        final HandoffResult result = HandoffRunner.throughput(new PeregrineMpscHandoff(), 32, 2, 0.02, 0.05);

        assertThat(result.failure()).isNull();
        assertThat(result.isLatency()).isFalse();
        assertThat(result.mode()).isEqualTo("throughput-2p");
        assertThat(result.messages()).isPositive();
        assertThat(result.messagesPerSecond()).isPositive();
    }

    /** A queue that loses the message of one sequence number (of each producer) on its way to the consumer. */
    private record Losing(HandoffImplementation inner, long lost) implements HandoffImplementation {
        @Override
        public String name() {
            return "losing-" + inner.name();
        }

        @Override
        public boolean manyProducers() {
            return inner.manyProducers();
        }

        @Override
        public String description() {
            return "loses sequence " + lost;
        }

        @Override
        public HandoffQueue open(final HandoffSetup setup) {
            final HandoffQueue queue = inner.open(setup);
            return new HandoffQueue() {
                private final HandoffConsumer consumer = new HandoffConsumer() {
                    private HandoffSink sink;
                    private final HandoffSink dropping = (sequence, timestampNs) -> {
                        if (HandoffMessage.sequenceOf(sequence) != lost) {
                            sink.onMessage(sequence, timestampNs);
                        }
                    };

                    @Override
                    public int poll(final HandoffSink sink) {
                        this.sink = sink;
                        return queue.consumer().poll(dropping);
                    }
                };

                @Override
                public HandoffProducer producer(final int index) {
                    return queue.producer(index);
                }

                @Override
                public HandoffConsumer consumer() {
                    return consumer;
                }

                @Override
                public void close() {
                    queue.close();
                }
            };
        }
    }
}
