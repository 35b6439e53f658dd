package dev.peregrine.bench.run;

import dev.peregrine.bench.testing.InMemoryBenchTransport;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unpaced timed run of a stream with a recovery layer (no flow control) offers at most
 * {@link ThroughputRunner#WARMUP_RATE} messages per second for the first part of its warm-up, so that a receiver
 * whose code is still being compiled is not overrun, and as fast as the sender takes them after that. The bounds
 * asserted are counts the sender may not exceed by a time, so a slow machine only makes them easier to hold.
 */
@Timeout(60)
class PacedWarmupTest {
    private static final double WARMUP_SECONDS = 0.4;
    private static final double SECONDS = 0.3;
    private static final int BATCH = 64;
    private static final long SKEW_NS = 2_000_000L;

    @Test
    void shouldPaceTheFirstPartOfTheWarmUpOfARecoveringStreamAndNothingAfterIt() {
        final Watching transport = new Watching();

        final RunResult result = new ThroughputRunner(new Progress(System.err, true)).run(new RunSpec("throughput",
            transport, 32, Integer.MAX_VALUE - 8, 1000, 0, 1, true, -1, -1, false, "127.0.0.1").withTimeLimit(30),
            new ThroughputRunner.Window(WARMUP_SECONDS, SECONDS), Batch.ofMessages(BATCH), StreamLoss.NONE);

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(transport.sender.offers).isPositive();
        assertThat(transport.sender.overPacedBound).as("offers beyond %d msg/s (plus a batch) in the paced part of"
            + " the warm-up; worst at sequence %d", ThroughputRunner.WARMUP_RATE, transport.sender.worstSequence).isZero();
        assertThat(transport.sender.pastPacedBoundAfterIt).as("the sender went faster than the warm-up's rate"
            + " after the paced part").isTrue();
    }

    /** The in-memory stream, made to look like one with a recovery layer, its sender watched. */
    private static final class Watching implements RecoveringStreamTransport {
        private final BenchTransport memory = new InMemoryBenchTransport();
        private WatchedSender sender;

        @Override
        public String name() {
            return "test-recovering";
        }

        @Override
        public String description() {
            return "the in-memory stream as if it had a recovery layer";
        }

        @Override
        public String path() {
            return memory.path();
        }

        @Override
        public Responder startResponder(final BenchConfig config) throws Exception {
            return memory.startResponder(config);
        }

        @Override
        public PingClient connect(final BenchConfig config) throws Exception {
            return memory.connect(config);
        }

        @Override
        public StreamReceiver startStreamReceiver(final BenchConfig config) throws Exception {
            return memory.startStreamReceiver(config);
        }

        @Override
        public RecoveringStreamSender connectStreamSender(final BenchConfig config, final StreamLoss loss) throws Exception {
            sender = new WatchedSender(memory.connectStreamSender(config));
            return sender;
        }
    }

    private static final class WatchedSender implements RecoveringStreamSender {
        private final long pacedNs = (long)(WARMUP_SECONDS * ThroughputRunner.PACED_WARMUP_SHARE * 1e9);
        // this clock starts at the first offer, the runner's a little before it (by as much as the first call's
        // class loading): the paced part is checked up to a margin before its end
        private final long checkedNs = pacedNs - 100_000_000L;
        private final StreamSender delegate;
        private long firstNs;
        private long offers;
        private long overPacedBound;
        private long worstSequence = -1;
        private boolean pastPacedBoundAfterIt;

        WatchedSender(final StreamSender delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean offer(final long sequence) {
            final long now = System.nanoTime();
            if (offers++ == 0) {
                firstNs = now;
            }
            final long elapsed = now - firstNs;
            // the most the pacer lets out by now: the messages due so far, the batch begun when the last was due,
            // and 2 ms of messages for the pacer's clock starting before this one
            final double bound = ThroughputRunner.WARMUP_RATE * ((elapsed + SKEW_NS) / 1e9) + BATCH;
            if (elapsed < checkedNs && sequence > bound) {
                overPacedBound++;
                worstSequence = Math.max(worstSequence, sequence);
            } else if (elapsed >= pacedNs && sequence > bound) {
                pastPacedBoundAfterIt = true;
            }
            return delegate.offer(sequence);
        }

        @Override
        public boolean flush() {
            return delegate.flush();
        }

        @Override
        public int service() {
            return 0;
        }

        @Override
        public long packetsDropped() {
            return 0;
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
