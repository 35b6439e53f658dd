package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyTableTest {
    @Test
    void shouldNameThePeriodAnsweredAndTheRateSustainedBesideTheRateOffered() {
        final RunResult result = new RunResult("load", "peregrine-tcp", "tcp", true, 24, 5000, 1_000_000, 1,
            Fixtures.histogram(1_000), 1000.0, 0.0, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN,
            RunResult.Status.PARTIAL, "could not keep up: sustained 812346 msg/s of 1000000 offered")
            .withSending(1000, 812_345.678);

        final String table = LatencyTable.format(result);

        assertThat(table).startsWith("load: transport=peregrine-tcp size=24 rate=1000000 msg/s per client (latency from"
            + " intended send time) respond-every=1000 (latency of the answered messages)\n");
        assertThat(table).contains("  PARTIAL: could not keep up: sustained 812346 msg/s of 1000000 offered\n");
        assertThat(table).contains("  sustained: 812346 msg/s per client of 1000000 offered (81.2%)\n");
        assertThat(Summary.load(List.of(result)).toText())
            .containsPattern("peregrine-tcp \\* +24 +1 +1000000/1000 +812346 +1\\.499 ");
    }
}
