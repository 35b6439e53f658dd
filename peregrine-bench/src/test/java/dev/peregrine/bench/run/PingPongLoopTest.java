package dev.peregrine.bench.run;

import dev.peregrine.bench.testing.InMemoryBenchTransport;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.NanoClock;
import dev.peregrine.testkit.AllocationMeter;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(60)
class PingPongLoopTest {
    private static final long STALL_NS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long LATE = 100_500_000L;

    private final InMemoryBenchTransport transport = new InMemoryBenchTransport();
    private final Progress progress = new Progress(System.err, true);
    private Responder responder;
    private PingClient client;

    @BeforeEach
    void start() throws Exception {
        final BenchConfig config = new BenchConfig("127.0.0.1", 7001, 32, Path.of("/tmp"), false);
        responder = transport.startResponder(config);
        client = transport.connect(config);
    }

    @AfterEach
    void stop() {
        InMemoryBenchTransport.dropEvery(0);
        client.close();
        responder.close();
    }

    @Test
    void shouldRecordAStallAtAFixedRateAsManyLateMessagesNotOne() {
        final DrivenClient driven = new DrivenClient(client, 500, 0);
        driven.stallAt(100, STALL_NS);
        final PingPongLoop loop = new PingPongLoop(driven, progress, false, false, driven);
        final int count = 400;
        final Histogram histogram = PingPongLoop.newHistogram();

        loop.atRate(0, count, 1000, new long[count], histogram);

        // at 1000/s a 200 ms stall of message 100 delays the 200 messages due during it: message 100 + k by
        // 200 - k ms (and a few microseconds of clock steps), so exactly k = 0 .. 99 by more than 100.5 ms
        assertThat(histogram.getTotalCount()).isEqualTo(count);
        assertThat(histogram.getCountBetweenValues(LATE, Long.MAX_VALUE / 2)).isEqualTo(100);
        assertThat(histogram.getMaxValue()).isGreaterThanOrEqualTo(STALL_NS);
    }

    @Test
    void shouldRecordAStallWithOneMessageInFlightAsOneSample() {
        final DrivenClient driven = new DrivenClient(client, 500, 0);
        driven.stallAt(1000, STALL_NS);
        final PingPongLoop loop = new PingPongLoop(driven, progress, false, false, driven);
        final Histogram histogram = PingPongLoop.newHistogram();

        loop.oneInFlight(0, 4000, histogram);

        // every round trip takes one clock step (the read after the echo), the stalled one the stall too
        assertThat(histogram.getTotalCount()).isEqualTo(4000);
        assertThat(histogram.getCountBetweenValues(LATE, Long.MAX_VALUE / 2)).isEqualTo(1);
        assertThat(histogram.getCountAtValue(500)).isEqualTo(3999);
    }

    @Test
    void shouldMeasureFromTheIntendedSendTime() {
        final PingPongLoop loop = new PingPongLoop(client, progress, false);
        final long[] intended = new long[1000];
        final Histogram histogram = PingPongLoop.newHistogram();

        loop.atRate(5000, 1000, 100_000, intended, histogram);

        // the schedule is 10 us apart whatever the actual send times were
        for (int i = 1; i < intended.length; i++) {
            assertThat(intended[i] - intended[0]).isBetween(i * 10_000L - 1, i * 10_000L + 1);
        }
        assertThat(histogram.getTotalCount()).isEqualTo(1000);
    }

    @Test
    void shouldAllocateNothingPerMessageInSteadyState() {
        final PingPongLoop loop = new PingPongLoop(client, progress, false);
        final Histogram histogram = PingPongLoop.newHistogram();
        final long[] intended = new long[1_000];
        final long[] next = {0};
        final Runnable bothLoops = () -> { // a thousand messages one in flight, a thousand at 1 M/s
            next[0] += loop.oneInFlight(next[0], 1_000, histogram);
            next[0] += loop.atRate(next[0], 1_000, 1_000_000, intended, histogram);
        };

        // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(10, 5, 10, 5, bothLoops);

        assertThat(measured.totalBytes()).as("bytes in the last set of %d (windows of 10 000 messages)", measured.sets())
            .isZero();
        assertThat(histogram.getTotalCount()).isEqualTo(next[0]);
    }

    @Test
    void shouldCountMessagesWithoutAnEchoAsLostOnALossyTransportAtAFixedRate() {
        InMemoryBenchTransport.dropEvery(100); // 99, 199, ... 4999: the last message too
        final DrivenClient driven = new DrivenClient(client, 1_000, 100);
        // spinning, not yielding: the last loss waits 500 000 reads of the test clock, and on a loaded machine each
        // yield may give the core away for a scheduler slice
        final PingPongLoop loop = new PingPongLoop(driven, progress, true, true, driven);
        final Histogram histogram = PingPongLoop.newHistogram();

        final long completed = loop.atRate(0, 5_000, 100_000, new long[5_000], histogram);

        assertThat(completed).isEqualTo(5_000);
        assertThat(loop.lost()).isEqualTo(50);
        assertThat(histogram.getTotalCount()).isEqualTo(4_950);
    }

    @Test
    void shouldCountAMessageWithoutAnEchoAsLostOnALossyTransportWithOneInFlight() {
        InMemoryBenchTransport.dropEvery(1_000); // 999, 1999: each waits LOSS_WAIT_NS
        final DrivenClient driven = new DrivenClient(client, 1_000_000, 1_000);
        // spinning, not yielding: each loss waits 500 clock reads of 1 024 polls each; yielding, a clean-clone CI run
        // at load 13 spent over 60 s in those yields and timed out
        final PingPongLoop loop = new PingPongLoop(driven, progress, true, true, driven);
        final Histogram histogram = PingPongLoop.newHistogram();

        final long completed = loop.oneInFlight(0, 2_500, histogram);

        assertThat(completed).isEqualTo(2_500);
        assertThat(loop.lost()).isEqualTo(2);
        assertThat(histogram.getTotalCount()).isEqualTo(2_498);
        assertThat(histogram.getMaxValue()).as("a lost message is not a sample").isLessThan(PingPongLoop.LOSS_WAIT_NS);
    }

    @Test
    void shouldFailOnAMissingEchoWhenTheTransportIsNotLossy() {
        InMemoryBenchTransport.dropEvery(100);
        final PingPongLoop loop = new PingPongLoop(client, progress, false);

        assertThatThrownBy(() -> loop.atRate(0, 1_000, 100_000, new long[1_000], PingPongLoop.newHistogram()))
            .isInstanceOf(IllegalStateException.class).hasMessage("echo out of order: expected sequence=99 got=100");
        assertThat(loop.lost()).isZero();
    }

    @Test
    void shouldStopWhenAsked() {
        final PingPongLoop loop = new PingPongLoop(client, progress, false);
        loop.requestStop();

        assertThatThrownBy(() -> loop.oneInFlight(0, 10_000_000, PingPongLoop.newHistogram()))
            .isInstanceOf(PingPongLoop.StoppedException.class);
    }

    @Test
    void shouldRejectAnArrayTooSmallForTheSchedule() {
        final PingPongLoop loop = new PingPongLoop(client, progress, false);

        assertThatThrownBy(() -> loop.atRate(0, 100, 1000, new long[10], null))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("intended.length=10");
    }

    @Test
    void shouldEndEarlyAtTheDeadlineWithEveryEchoOfWhatWasSent() {
        final Histogram histogram = PingPongLoop.newHistogram();
        final long[] intended = new long[1_000_000];
        final DrivenClient driven = new DrivenClient(client, 500, 0);
        final PingPongLoop loop = new PingPongLoop(driven, progress, false, false, driven);

        final long atRate = loop.atRate(0, 1_000_000, 1000, intended, histogram, driven.nanoTime() + 50_000_000L);

        // the schedule starts one clock step after the deadline was taken: messages 0 .. 49 are due before it
        assertThat(atRate).isEqualTo(50);
        assertThat(histogram.getTotalCount()).isEqualTo(atRate);
        final long inFlight = loop.oneInFlight(atRate, 1_000_000, histogram, driven.nanoTime() - 1);
        assertThat(inFlight).isEqualTo(1);
    }

    /**
     * The loop's client and its clock, driven by the test: a read of the clock advances it by one step while no
     * echo that will come is awaited, and stands still while one is, so that a round trip takes no time and a
     * descheduled responder thread changes nothing the loop measures. A stall is a jump of the clock when the
     * stalled message is sent. Used on the loop's thread only.
     */
    private static final class DrivenClient implements PingClient, NanoClock {
        private final PingClient delegate;
        private final long stepNs;
        private final long dropEvery;
        private long now = 1_000_000_000L;
        private long awaited;
        private long stallSequence = -1;
        private long stallNs;

        /**
         * @param stepNs how far a read advances the clock while no echo is awaited
         * @param dropEvery the transport's drop period ({@link InMemoryBenchTransport#dropEvery}): those
         *                  sequences are not awaited
         */
        DrivenClient(final PingClient delegate, final long stepNs, final long dropEvery) {
            this.delegate = delegate;
            this.stepNs = stepNs;
            this.dropEvery = dropEvery;
        }

        void stallAt(final long sequence, final long ns) {
            stallSequence = sequence;
            stallNs = ns;
        }

        @Override
        public long nanoTime() {
            if (awaited == 0) {
                now += stepNs;
            }
            return now;
        }

        @Override
        public void send(final long sequence) {
            if (sequence == stallSequence) {
                now += stallNs;
            }
            if (dropEvery == 0 || sequence % dropEvery != dropEvery - 1) {
                awaited++;
            }
            delegate.send(sequence);
        }

        @Override
        public long poll() {
            final long echoed = delegate.poll();
            if (echoed >= 0) {
                awaited--;
            }
            return echoed;
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
