package dev.peregrine.bench.handoff;

import dev.peregrine.bench.report.Table;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The handoff table: a group per kind of run, each cell the median of the rounds, and the ratio to the Disruptor's
 * median of the same group and size.
 */
class HandoffTableTest {
    private static HandoffResult latency(final String implementation, final long nanos) {
        final Histogram histogram = new Histogram(60_000_000_000L, 3);
        histogram.recordValue(nanos); // below 2048 ns every value is exact at 3 digits
        return new HandoffResult(implementation, 32, 1, histogram, 1000, 1, 0, 0, null);
    }

    private static HandoffResult throughput(final String implementation, final int producers, final double rate,
                                            final String failure) {
        return new HandoffResult(implementation, 32, producers, null, rate, 10, 0, 0.5, failure);
    }

    @Test
    void shouldShowTheMedianOfTheRoundsAndTheRatioToTheDisruptorsMedian() {
        final Table table = HandoffTable.of(List.of(
            latency("disruptor", 1000), latency("peregrine-spsc", 500), throughput("disruptor", 1, 100, null),
            throughput("jctools-mpsc", 1, 300, null), throughput("disruptor", 2, 50, null),
            throughput("abq", 2, 0, "producer 0's message 2 arrived where 1 was due"),
            latency("disruptor", 3000), latency("peregrine-spsc", 1500), throughput("disruptor", 1, 300, null),
            throughput("jctools-mpsc", 1, 500, null), throughput("disruptor", 2, 70, null),
            throughput("abq", 2, 90, null)), 1_000_000, 2);

        assertThat(table.title()).isEqualTo("bench handoff: medians of 2 rounds");
        assertThat(table.rows()).containsExactly(
            List.of(HandoffTable.heading("latency", 1_000_000)),
            List.of("disruptor", "32", "2.00", "2.00", "2.00", "2.00", "2.00", "2.00", "1000", "0/0", "1.00x"),
            List.of("peregrine-spsc", "32", "1.00", "1.00", "1.00", "1.00", "1.00", "1.00", "1000", "0/0", "0.50x"),
            List.of(HandoffTable.heading("throughput-1p", 1_000_000)),
            List.of("disruptor", "32", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "200", "0/0.5", "1.00x"),
            List.of("jctools-mpsc", "32", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "400", "0/0.5", "2.00x"),
            List.of(HandoffTable.heading("throughput-2p", 1_000_000)),
            List.of("disruptor", "32", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "60", "0/0.5", "1.00x"),
            List.of("abq", "32", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a",
                "FAILED: producer 0's message 2 arrived where 1 was due"));
        assertThat(HandoffTable.heading("throughput-2p", 1)).isEqualTo("throughput, 2 producers -> 1 consumer,"
            + " batches of 256; every thread yields when idle (2 vCPUs)");
    }
}
