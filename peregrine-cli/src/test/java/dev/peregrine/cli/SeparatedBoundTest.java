package dev.peregrine.cli;

import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;

import java.util.List;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The separated stack's yardstick: the bound is the shared p50 plus both hand-offs, and the median of the rounds. */
class SeparatedBoundTest {
    @Test
    void shouldSayWithinAtTheBoundAndOverPastIt() {
        assertThat(SeparatedBound.verdict("peregrine-tcp", 256, 20_000, 21_500, 700, 800))
            .isEqualTo("peregrine-tcp size 256: separated p50 21.500 us <= shared 20.000 + 0.700 + 0.800 = 21.500 us"
                + " (within)");
        assertThat(SeparatedBound.verdict("peregrine-shm", 32, 1_000, 2_600, 700, 800))
            .isEqualTo("peregrine-shm size 32: separated p50 2.600 us > shared 1.000 + 0.700 + 0.800 = 2.500 us"
                + " (over by 0.100 us)");
    }

    @Test
    void shouldTakeTheMedianP50OfTheOkRunsOfOneTransportAtOneSize() {
        final List<RunResult> results = List.of(run("peregrine-tcp", 256, 30_000), run("peregrine-tcp", 256, 10_000),
            run("peregrine-tcp", 256, 20_000), run("peregrine-tcp", 32, 1_000), run("peregrine-tcp[separated]", 256, 5));
        assertThat(SeparatedBound.medianP50(results, "peregrine-tcp", 256)).isBetween(19_900.0, 20_100.0);
        assertThat(SeparatedBound.medianP50(results, "peregrine-tcp", 64)).isNaN();
    }

    private static RunResult run(final String transport, final int size, final long p50Ns) {
        final Histogram rtt = new Histogram(60_000_000_000L, 3);
        rtt.recordValue(p50Ns);
        return new RunResult("pingpong", transport, "tcp", true, size, 1, 0, 1, rtt, Double.NaN, 0, 0,
            RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, RunResult.Status.OK, null, size, null, null);
    }
}
