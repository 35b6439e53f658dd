package dev.peregrine.bench.run;

import dev.peregrine.bench.testing.InMemoryBenchTransport;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
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
    private static final long STALL_MS = 200;
    private static final long LATE = TimeUnit.MILLISECONDS.toNanos(100);

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
        InMemoryBenchTransport.stallOnce(-1, 0);
        InMemoryBenchTransport.dropEvery(0);
        client.close();
        responder.close();
    }

    @Test
    void shouldRecordAStallAtAFixedRateAsManyLateMessagesNotOne() {
        final PingPongLoop loop = new PingPongLoop(client, progress, false);
        final int count = 6000;
        final Histogram histogram = PingPongLoop.newHistogram();
        InMemoryBenchTransport.stallOnce(1000, STALL_MS);

        loop.atRate(0, count, 10_000, new long[count], histogram);

        // at 10 000/s a 200 ms stall delays the ~2000 messages scheduled during it; the first ~1000 of
        // them by more than 100 ms
        assertThat(histogram.getTotalCount()).isEqualTo(count);
        assertThat(histogram.getCountBetweenValues(LATE, Long.MAX_VALUE / 2)).isGreaterThan(500);
        assertThat(histogram.getMaxValue()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(STALL_MS));
    }

    @Test
    void shouldRecordAStallWithOneMessageInFlightAsOneSample() {
        final PingPongLoop loop = new PingPongLoop(client, progress, false);
        final Histogram histogram = PingPongLoop.newHistogram();
        InMemoryBenchTransport.stallOnce(1000, STALL_MS);

        loop.oneInFlight(0, 4000, histogram);

        // the stalled message is one sample; a shared machine may add a few descheduled ones, not hundreds
        assertThat(histogram.getTotalCount()).isEqualTo(4000);
        assertThat(histogram.getCountBetweenValues(LATE, Long.MAX_VALUE / 2)).isBetween(1L, 10L);
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

        final long allocated = AllocationMeter.steadyStateBytes(10, 5, 10, bothLoops);

        assertThat(allocated).as("bytes in windows of 10 000 messages").isZero();
        assertThat(histogram.getTotalCount()).isEqualTo(next[0]);
    }

    @Test
    void shouldCountMessagesWithoutAnEchoAsLostOnALossyTransportAtAFixedRate() {
        InMemoryBenchTransport.dropEvery(100); // 99, 199, ... 4999: the last message too
        final PingPongLoop loop = new PingPongLoop(client, progress, false, true);
        final Histogram histogram = PingPongLoop.newHistogram();

        final long completed = loop.atRate(0, 5_000, 100_000, new long[5_000], histogram);

        assertThat(completed).isEqualTo(5_000);
        assertThat(loop.lost()).isEqualTo(50);
        assertThat(histogram.getTotalCount()).isEqualTo(4_950);
    }

    @Test
    void shouldCountAMessageWithoutAnEchoAsLostOnALossyTransportWithOneInFlight() {
        InMemoryBenchTransport.dropEvery(1_000); // 999, 1999: each waits LOSS_WAIT_NS
        final PingPongLoop loop = new PingPongLoop(client, progress, false, true);
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
        final PingPongLoop loop = new PingPongLoop(client, progress, false);
        final Histogram histogram = PingPongLoop.newHistogram();
        final long[] intended = new long[1_000_000];

        final long atRate = loop.atRate(0, 1_000_000, 1000, intended, histogram, System.nanoTime() + 50_000_000L);

        assertThat(atRate).isBetween(1L, 999_999L);
        assertThat(histogram.getTotalCount()).isEqualTo(atRate);
        final long inFlight = loop.oneInFlight(atRate, 1_000_000, histogram, System.nanoTime() - 1);
        assertThat(inFlight).isEqualTo(1);
    }
}
