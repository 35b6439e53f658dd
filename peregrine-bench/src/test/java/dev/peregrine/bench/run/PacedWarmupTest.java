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
import dev.peregrine.reactor.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unpaced timed run of a stream with a recovery layer (no flow control) offers at most
 * {@link ThroughputRunner#WARMUP_RATE} messages per second for the first part of its warm-up, so that a receiver
 * whose code is still being compiled is not overrun, and as fast as the sender takes them after that. The run is
 * on a clock the test drives ({@link SenderDrivenClock}), so the bounds are exact and no machine's speed decides
 * them.
 */
@Timeout(60)
class PacedWarmupTest {
    private static final double WARMUP_SECONDS = 0.04;
    private static final double SECONDS = 0.002;
    private static final int BATCH = 64;
    /** How far each of the sending thread's clock reads advances the clock. */
    private static final long STEP_NS = 1_000;

    @Test
    void shouldPaceTheFirstPartOfTheWarmUpOfARecoveringStreamAndNothingAfterIt() {
        final SenderDrivenClock clock = new SenderDrivenClock();
        final Watching transport = new Watching(clock);

        final RunResult result = new ThroughputRunner(new Progress(System.err, true), clock).run(new RunSpec("throughput",
            transport, 32, Integer.MAX_VALUE - 8, 1000, 0, 1, true, -1, -1, false, "127.0.0.1").withTimeLimit(30),
            new ThroughputRunner.Window(WARMUP_SECONDS, SECONDS), Batch.ofMessages(BATCH), StreamLoss.NONE);

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(transport.sender.offers).isPositive();
        assertThat(transport.sender.overPacedBound).as("offers beyond %d msg/s (plus a batch) in the paced part of"
            + " the warm-up; worst at sequence %d", ThroughputRunner.WARMUP_RATE, transport.sender.worstSequence).isZero();
        assertThat(transport.sender.pastPacedBoundAfterIt).as("the sender went faster than the warm-up's rate"
            + " after the paced part").isTrue();
        // whether a batch is paced is decided when it begins, so the last paced one may still wait its interval
        // (BATCH messages at 1 a microsecond) after the paced part's end; the next goes beyond the schedule at
        // once (a few clock reads later). Pacing 1 ms too long would put it 1 000 reads later.
        final long batchIntervalNs = BATCH * 1_000_000_000L / ThroughputRunner.WARMUP_RATE;
        assertThat(transport.sender.firstBeyondNs).as("when the first offer beyond the schedule came")
            .isBetween(transport.sender.pacedNs - STEP_NS, transport.sender.pacedNs + batchIntervalNs + 4 * STEP_NS);
    }

    /** The in-memory stream, made to look like one with a recovery layer, its sender watched. */
    private static final class Watching implements RecoveringStreamTransport {
        private final BenchTransport memory = new InMemoryBenchTransport();
        private final SenderDrivenClock clock;
        private WatchedSender sender;

        Watching(final SenderDrivenClock clock) {
            this.clock = clock;
        }

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
            sender = new WatchedSender(memory.connectStreamSender(config), clock);
            return sender;
        }
    }

    /**
     * The sender, watched against the runner's clock. The runner reads the clock once to start the paced part
     * (which ends {@code pacedNs} later) and once more, a step later, to start its pacer, which offers the first
     * batch at once: so the first offer sees the pacer's start, and the paced part ends {@code pacedNs - STEP_NS}
     * after it. A batch is offered once its first message is due, and nothing reads the clock inside a batch, so
     * a paced message {@code s} is offered at a time {@code t} with {@code s - (BATCH - 1)} due by then.
     */
    private static final class WatchedSender implements RecoveringStreamSender {
        private final long pacedNs = (long)(WARMUP_SECONDS * ThroughputRunner.PACED_WARMUP_SHARE * 1e9);
        private final StreamSender delegate;
        private final SenderDrivenClock clock;
        private long firstNs;
        private long offers;
        private long overPacedBound;
        private long worstSequence = -1;
        private boolean pastPacedBoundAfterIt;
        private long firstBeyondNs;

        WatchedSender(final StreamSender delegate, final SenderDrivenClock clock) {
            this.delegate = delegate;
            this.clock = clock;
        }

        @Override
        public boolean offer(final long sequence) {
            final long now = clock.peek();
            if (offers++ == 0) {
                firstNs = now;
            }
            final long elapsed = now - firstNs;
            final long due = elapsed * ThroughputRunner.WARMUP_RATE / 1_000_000_000L; // the last message due by now
            final boolean beyond = sequence - (BATCH - 1) > due;
            if (elapsed < pacedNs - STEP_NS && beyond) {
                overPacedBound++;
                worstSequence = Math.max(worstSequence, sequence);
            } else if (beyond && !pastPacedBoundAfterIt) {
                pastPacedBoundAfterIt = true;
                firstBeyondNs = elapsed;
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

    /**
     * Time driven by the sending thread (the test's, which calls the runner): each of its reads advances the clock
     * by {@link #STEP_NS}; the receiving thread's reads do not, so its polling speed changes nothing.
     */
    private static final class SenderDrivenClock implements NanoClock {
        private final Thread sending = Thread.currentThread();
        private final AtomicLong now = new AtomicLong(1_000_000_000L);

        @Override
        public long nanoTime() {
            return Thread.currentThread() == sending ? now.addAndGet(STEP_NS) : now.get();
        }

        long peek() {
            return now.get();
        }
    }
}
