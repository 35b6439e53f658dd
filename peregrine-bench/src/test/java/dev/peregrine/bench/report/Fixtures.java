package dev.peregrine.bench.report;

import dev.peregrine.bench.run.PingPongLoop;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import org.HdrHistogram.Histogram;

/**
 * Results with known numbers for the formatting tests.
 */
final class Fixtures {
    private Fixtures() {
    }

    /** A histogram of 1000 values: 10 000 ns + i ns, i in [0, 1000). */
    static Histogram histogram(final long base) {
        final Histogram histogram = PingPongLoop.newHistogram();
        for (int i = 0; i < 1000; i++) {
            histogram.recordValue(base + i);
        }
        return histogram;
    }

    static RunResult result(final String transport, final String path, final boolean peregrine, final int size,
                            final long base) {
        return new RunResult("pingpong", transport, path, peregrine, size, 1000, 0, 1, histogram(base), 50_000.0,
            0.0, Double.NaN, new RuntimeCounters(12, 0, 0), RuntimeCounters.UNKNOWN, RunResult.Status.OK, null);
    }
}
