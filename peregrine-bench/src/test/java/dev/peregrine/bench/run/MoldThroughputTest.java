package dev.peregrine.bench.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.report.JsonResults;
import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.report.ThroughputRows;
import dev.peregrine.bench.testing.InMemoryBenchTransport;
import dev.peregrine.bench.testing.Json;
import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.StreamLoss;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(120)
class MoldThroughputTest {
    private final Progress progress = new Progress(System.err, true);

    private static RunSpec spec(final String transport, final long messages) {
        return new RunSpec("throughput", Transports.byName(transport), 32, messages, 0, 0, 1, true, -1, -1, false,
            "127.0.0.1").withTimeLimit(60);
    }

    @Test
    void shouldDeliverEverySequenceOnceWhenThePublisherDropsPacketsAndReportTheirRecovery() {
        final RunResult result = new ThroughputRunner(progress).run(spec("peregrine-mold", 20_000),
            ThroughputRunner.Window.COUNTED, Batch.ofMessages(64), new StreamLoss(0.05, 7));

        // OK means every sequence number arrived exactly once and in order, recovered ones included
        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(20_000);
        assertThat(result.note()).contains("live packets dropped on purpose (--loss 0.05 --seed 7)");
        assertThat(result.recovery()).isNotNull();
        assertThat(result.recovery().getTotalCount()).as("gaps filled").isPositive();
    }

    @Test
    void shouldRefuseLossOnAStreamWithoutARecoveryLayer() {
        final RunResult result = new ThroughputRunner(progress).run(spec(InMemoryBenchTransport.NAME, 1000),
            ThroughputRunner.Window.COUNTED, Batch.ofMessages(64), new StreamLoss(0.1, 1));

        assertThat(result.status()).isEqualTo(RunResult.Status.UNAVAILABLE);
        assertThat(result.note()).contains("--loss needs a stream with a recovery layer");
    }

    @Test
    void shouldDrawTheSameDropsFromTheSameSeed() {
        final StreamLoss loss = new StreamLoss(0.1, 42);
        final StreamLoss.Dropper first = loss.dropper();
        final StreamLoss.Dropper second = loss.dropper();
        final StreamLoss.Dropper other = new StreamLoss(0.1, 43).dropper();
        boolean differs = false;
        for (int i = 0; i < 10_000; i++) {
            final boolean drop = first.drop();
            assertThat(second.drop()).isEqualTo(drop);
            differs |= other.drop() != drop;
        }

        assertThat(first.dropped()).isBetween(800L, 1200L);
        assertThat(differs).as("another seed draws other drops").isTrue();
        assertThat(StreamLoss.NONE.dropper().drop()).isFalse();
        assertThatThrownBy(() -> new StreamLoss(1.0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StreamLoss(-0.1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldCarryRecoveryLatenciesAcrossTheReceiversLine() {
        final Histogram recovery = RecoveryLatency.newHistogram();
        recovery.recordValue(150_000);
        recovery.recordValue(2_000_000);
        final StreamReceiverChild.Result result = new StreamReceiverChild.Result(1000, 900, 0, 250_000_000L, true, 0.0,
            "", recovery);

        final StreamReceiverChild.Result parsed = StreamReceiverChild.Result.parse(result.toLine());

        assertThat(parsed.recovery()).isNotNull();
        assertThat(parsed.recovery().getTotalCount()).isEqualTo(2);
        assertThat(parsed.recovery().getMaxValue()).isEqualTo(recovery.getMaxValue());
        assertThat(StreamReceiverChild.Result.parse(new StreamReceiverChild.Result(1, 1, 0, 1, true, 0.0, "").toLine())
            .recovery()).isNull();
    }

    @Test
    void shouldAddTheRoundsRecoveryLatenciesToTheRowTheTextAndTheJson() {
        final Histogram one = RecoveryLatency.newHistogram();
        one.recordValue(1_000_000);
        final Histogram two = RecoveryLatency.newHistogram();
        two.recordValue(3_000_000);
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(round(one), round(two)), List.of());

        // the values HdrHistogram reports at 3 digits: the highest equivalent of each recorded value
        final long low = one.highestEquivalentValue(1_000_000);
        final long high = two.highestEquivalentValue(3_000_000);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).recovery().getTotalCount()).isEqualTo(2);
        assertThat(Summary.recovery(rows).toText()).contains("peregrine-mold")
            .contains(String.format(java.util.Locale.ROOT, "%.3f", low / 1000.0))
            .contains(String.format(java.util.Locale.ROOT, "%.3f", high / 1000.0));
        final JsonNode recovery = Json.parse(JsonResults.throughput(rows, Batch.ofMessages(256))).get(0).get("recovery");
        assertThat(recovery.get("gaps").asLong()).isEqualTo(2);
        assertThat(recovery.get("p50_ns").asLong()).isEqualTo(low);
        assertThat(recovery.get("p99_ns").asLong()).isEqualTo(high);
        assertThat(recovery.get("p999_ns").asLong()).isEqualTo(high);
        assertThat(recovery.get("max_ns").asLong()).isEqualTo(high);
        assertThat(Summary.recovery(ThroughputRows.of(List.of(round(null)), List.of()))).isNull();
    }

    private static RunResult round(final Histogram recovery) {
        return new RunResult("throughput", "peregrine-mold", "udp", true, 32, 1000, 0, 1, null, 1e6, 0.0, 0.0,
            RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, RunResult.Status.OK, null).withRecovery(recovery);
    }

    @Test
    void shouldSayWhenAGapTookSoLongThatTheSenderOverranTheReceiver() {
        final Histogram recovery = new Histogram(3);
        recovery.recordValue(40_000);
        recovery.recordValue(90_000_000);
        assertThat(ThroughputRunner.overrun(recovery)).as("none over 100 ms").isNull();
        assertThat(ThroughputRunner.overrun(null)).isNull();
        assertThat(ThroughputRunner.overrun(new Histogram(3))).isNull();

        recovery.recordValue(1_250_000_000L);
        recovery.recordValue(1_300_000_000L);
        assertThat(ThroughputRunner.overrun(recovery)).isEqualTo("2 of 4 gaps took over 100 ms to fill (the longest"
            + " 1300 ms): the sender overran the receiver (no flow control), which caught up only when the sender slowed");
    }
}
