package dev.peregrine.bench.fanout;

import org.HdrHistogram.Histogram;

import java.util.Arrays;
import java.util.List;

/**
 * One row of {@code bench fanout}: one transport at one reader count and size, in one mode.
 *
 * @param transport the transport's name
 * @param readers the reader count
 * @param size the message size
 * @param latency true for the fixed-rate latency run, false for the throughput run
 * @param rate the writer's rate in a latency run, else 0
 * @param readerLatencies each reader's latency histogram (ns) in a latency run, in reader order; empty otherwise
 * @param messagesPerSecond one-way messages per second every reader received: measured messages over the time from
 *     the writer's first measured send to the last reader's last message (a latency run: the writer's rate achieved)
 * @param writerAllocated bytes the writer's thread allocated per measured message, or -1 if unknown
 * @param readersAllocated the most bytes a reader's thread allocated per measured message, or -1 if unknown
 * @param failure why the row failed (a reader saw a gap, a repeat, timed out, ...), or null
 * @param notes what a scenario found, one line each
 */
public record FanoutResult(String transport, int readers, int size, boolean latency, long rate,
                           List<Histogram> readerLatencies, double messagesPerSecond, double writerAllocated,
                           double readersAllocated, String failure, List<String> notes) {
    /**
     * A row for a transport that did not run.
     *
     * @param transport its name
     * @param readers the reader count
     * @param size the size
     * @param latency the mode
     * @param reason why
     * @return the row
     */
    public static FanoutResult notRun(final String transport, final int readers, final int size, final boolean latency,
                                      final String reason) {
        return new FanoutResult(transport, readers, size, latency, 0, List.of(), 0, -1, -1, reason, List.of());
    }

    /**
     * Whether the row failed.
     *
     * @return true with a failure
     */
    public boolean failed() {
        return failure != null;
    }

    /**
     * A percentile over the readers: each reader's value at {@code percentile}, then the worst (highest) of them.
     *
     * @param percentile the percentile, 100 for the maximum
     * @return nanoseconds, or NaN without latencies
     */
    public double worst(final double percentile) {
        final double[] values = values(percentile);
        return values.length == 0 ? Double.NaN : values[values.length - 1];
    }

    /**
     * A percentile over the readers: each reader's value at {@code percentile}, then the median reader's (the lower
     * middle one for an even count).
     *
     * @param percentile the percentile, 100 for the maximum
     * @return nanoseconds, or NaN without latencies
     */
    public double median(final double percentile) {
        final double[] values = values(percentile);
        return values.length == 0 ? Double.NaN : values[(values.length - 1) / 2];
    }

    private double[] values(final double percentile) {
        final double[] values = new double[readerLatencies.size()];
        for (int i = 0; i < values.length; i++) {
            final Histogram h = readerLatencies.get(i);
            values[i] = percentile >= 100 ? h.getMaxValue() : h.getValueAtPercentile(percentile);
        }
        Arrays.sort(values);
        return values;
    }
}
