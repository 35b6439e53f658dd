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
 * @param rounds the medians and ranges of a row run in several rounds ({@link FanoutRounds}), or null for one run:
 *     then {@link #worst} and {@link #median} give the medians over the rounds
 * @param allocations the bytes per measured message and the threads' shares of a core of each run behind the row,
 *     one per round in round order
 *     (one for a row of one run); empty for a row that did not run
 */
public record FanoutResult(String transport, int readers, int size, boolean latency, long rate,
                           List<Histogram> readerLatencies, double messagesPerSecond, double writerAllocated,
                           double readersAllocated, String failure, List<String> notes, Rounds rounds,
                           List<Allocation> allocations) {
    /**
     * The bytes one run allocated per measured message, and the share of a core each thread used, each thread
     * measured over its own window (the writer: from its first measured send to its last; a reader: from its first
     * measured message to its last, before it closes or reports).
     *
     * @param writer the writer's thread, or -1 if unknown
     * @param readers each reader's thread in reader order, -1 if unknown, NaN for a reader a scenario played on
     *     (stopped or detached half-way: its figure is not the others')
     * @param writerCpu the writer thread's CPU time over its window's wall time (1.0: a whole core), or -1
     * @param readersCpu the same of each reader's reading thread, in reader order, -1 if unknown, NaN for a reader a
     *     scenario played on
     */
    public record Allocation(double writer, double[] readers, double writerCpu, double[] readersCpu) {
        /**
         * Bytes per message only, the CPU shares unknown.
         *
         * @param writer the writer's thread, or -1 if unknown
         * @param readers each reader's thread, as above
         */
        public Allocation(final double writer, final double[] readers) {
            this(writer, readers, -1, unknownCpu(readers));
        }

        private static double[] unknownCpu(final double[] readers) {
            final double[] cpu = new double[readers.length];
            for (int i = 0; i < cpu.length; i++) {
                cpu[i] = Double.isNaN(readers[i]) ? Double.NaN : -1;
            }
            return cpu;
        }

        /**
         * The most any measured reader allocated: -1 if one is unknown, NaN without any.
         *
         * @return bytes per message
         */
        public double mostOfReaders() {
            double most = Double.NaN;
            for (final double r : readers) {
                if (Double.isNaN(r)) {
                    continue;
                }
                if (r < 0) {
                    return -1;
                }
                most = Double.isNaN(most) ? r : Math.max(most, r);
            }
            return most;
        }
    }

    /** The percentiles a row of several rounds keeps: p50, p99, p99.9 and the maximum. */
    static final double[] KEPT_PERCENTILES = {50, 99, 99.9, 100};

    /**
     * What a row run in several rounds keeps of them.
     *
     * @param count the rounds
     * @param worst the median over the rounds of the worst reader's value at each of p50, p99, p99.9, max (ns)
     * @param median the median over the rounds of the median reader's value at each of them (ns)
     * @param low the lowest of the rounds: the worst reader's p99 (ns) of a latency row, msg/s of a throughput row
     * @param high the highest of the rounds, the same figure
     */
    public record Rounds(int count, double[] worst, double[] median, double low, double high) {
    }

    /**
     * A row of one run.
     *
     * @param transport the transport's name
     * @param readers the reader count
     * @param size the message size
     * @param latency true for the fixed-rate latency run
     * @param rate the writer's rate in a latency run, else 0
     * @param readerLatencies each reader's latency histogram (ns)
     * @param messagesPerSecond one-way messages per second every reader received
     * @param writerAllocated bytes the writer's thread allocated per measured message, or -1
     * @param readersAllocated the most bytes a reader's thread allocated per measured message, or -1
     * @param failure why the row failed, or null
     * @param notes what a scenario found
     */
    public FanoutResult(final String transport, final int readers, final int size, final boolean latency,
                        final long rate, final List<Histogram> readerLatencies, final double messagesPerSecond,
                        final double writerAllocated, final double readersAllocated, final String failure,
                        final List<String> notes) {
        this(transport, readers, size, latency, rate, readerLatencies, messagesPerSecond, writerAllocated,
            readersAllocated, failure, notes, null, List.of());
    }

    /**
     * A row of one run, with each reader's bytes per message.
     *
     * @param transport the transport's name
     * @param readers the reader count
     * @param size the message size
     * @param latency true for the fixed-rate latency run
     * @param rate the writer's rate in a latency run, else 0
     * @param readerLatencies each reader's latency histogram (ns)
     * @param messagesPerSecond one-way messages per second every reader received
     * @param failure why the row failed, or null
     * @param notes what a scenario found
     * @param allocation the run's bytes per message: the writer's, and each reader's
     */
    public FanoutResult(final String transport, final int readers, final int size, final boolean latency,
                        final long rate, final List<Histogram> readerLatencies, final double messagesPerSecond,
                        final String failure, final List<String> notes, final Allocation allocation) {
        this(transport, readers, size, latency, rate, readerLatencies, messagesPerSecond, allocation.writer(),
            allocation.mostOfReaders(), failure, notes, null, List.of(allocation));
    }
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
        if (rounds != null) {
            return rounds.worst()[kept(percentile)];
        }
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
        if (rounds != null) {
            return rounds.median()[kept(percentile)];
        }
        final double[] values = values(percentile);
        return values.length == 0 ? Double.NaN : values[(values.length - 1) / 2];
    }

    private static int kept(final double percentile) {
        for (int i = 0; i < KEPT_PERCENTILES.length; i++) {
            if (KEPT_PERCENTILES[i] == percentile) {
                return i;
            }
        }
        throw new IllegalArgumentException("percentile=" + percentile + " is not kept over rounds: "
            + Arrays.toString(KEPT_PERCENTILES));
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
