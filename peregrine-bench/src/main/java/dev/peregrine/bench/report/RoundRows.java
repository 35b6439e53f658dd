package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of runs made in rounds ({@code bench load --rounds N}, {@code bench pingpong --rounds N}): every round
 * of one transport at one size, number of clients and rate reduced to the median of each percentile over the
 * rounds that measured latency, and the range of its p50 and p99. A tail taken in one run on a shared machine
 * moves by several times from run to run (a spinning thread that loses its core for a few milliseconds sets the
 * p99 of a whole run at low rates), and even a median moves by a fifth with the placement of the two processes on
 * the cores, so two transports are compared on the medians of rounds run alternately, not on one run each.
 */
public final class RoundRows {
    private RoundRows() {
    }

    /**
     * One row: a transport at one size, number of clients, rate and answering period, over all rounds.
     *
     * @param first the row's first round, for its transport, size, clients, rate and answering period
     * @param rounds how many rounds ran (measured or not)
     * @param measured the rounds that measured latency, in round order
     * @param status OK if every round was, PARTIAL if some measured, else the first round's status
     * @param note the rounds' notes joined, or null
     */
    public record Row(RunResult first, int rounds, List<RunResult> measured, RunResult.Status status, String note) {
        /**
         * Whether any round measured latency.
         *
         * @return true if there are medians
         */
        public boolean hasLatency() {
            return !measured.isEmpty();
        }

        /**
         * The median over the measured rounds of one percentile of their round trips.
         *
         * @param percentile e.g. 99.0
         * @return nanoseconds, or NaN if no round measured latency
         */
        public double percentile(final double percentile) {
            return ThroughputRows.median(percentiles(percentile));
        }

        /**
         * The median over the measured rounds of their longest round trip.
         *
         * @return nanoseconds, or NaN
         */
        public double max() {
            final List<Double> values = new ArrayList<>();
            for (final RunResult r : measured) {
                values.add((double)r.rtt().getMaxValue());
            }
            return ThroughputRows.median(values);
        }

        /**
         * The lowest p99 of the measured rounds.
         *
         * @return nanoseconds, or NaN
         */
        public double p99Min() {
            return measured.isEmpty() ? Double.NaN : Collections.min(percentiles(99));
        }

        /**
         * The highest p99 of the measured rounds.
         *
         * @return nanoseconds, or NaN
         */
        public double p99Max() {
            return measured.isEmpty() ? Double.NaN : Collections.max(percentiles(99));
        }

        /**
         * The lowest p50 of the measured rounds.
         *
         * @return nanoseconds, or NaN
         */
        public double p50Min() {
            return measured.isEmpty() ? Double.NaN : Collections.min(percentiles(50));
        }

        /**
         * The highest p50 of the measured rounds.
         *
         * @return nanoseconds, or NaN
         */
        public double p50Max() {
            return measured.isEmpty() ? Double.NaN : Collections.max(percentiles(50));
        }

        private List<Double> percentiles(final double percentile) {
            final List<Double> values = new ArrayList<>();
            for (final RunResult r : measured) {
                values.add((double)r.rtt().getValueAtPercentile(percentile));
            }
            return values;
        }

        /**
         * The median over the measured rounds of the rate each client sustained.
         *
         * @return messages per second per client, or NaN where it was not measured
         */
        public double sentRate() {
            final List<Double> values = new ArrayList<>();
            for (final RunResult r : measured) {
                if (!Double.isNaN(r.sentRate())) {
                    values.add(r.sentRate());
                }
            }
            return ThroughputRows.median(values);
        }

        /**
         * The median over the measured rounds of the messages per second of all clients together.
         *
         * @return messages per second, or NaN
         */
        public double throughput() {
            final List<Double> values = new ArrayList<>();
            for (final RunResult r : measured) {
                values.add(r.throughputMsgsPerSecond());
            }
            return ThroughputRows.median(values);
        }
    }

    /**
     * Reduces the runs of one scenario in every round to rows, one per transport, size, reply size, clients, rate
     * and answering period, in the order they first ran.
     *
     * @param results every run (other scenarios are left out)
     * @param scenario {@code load} or {@code pingpong}
     * @return the rows
     */
    public static List<Row> of(final List<RunResult> results, final String scenario) {
        final Map<String, List<RunResult>> byRow = new LinkedHashMap<>();
        for (final RunResult r : results) {
            if (r.scenario().equals(scenario)) {
                byRow.computeIfAbsent(r.transport() + "\u0000" + r.path() + "\u0000" + r.size() + "\u0000" + r.replySize()
                    + "\u0000" + r.clients() + "\u0000" + r.rate() + "\u0000" + r.respondEvery(), k -> new ArrayList<>()).add(r);
            }
        }
        final List<Row> rows = new ArrayList<>();
        for (final List<RunResult> rounds : byRow.values()) {
            rows.add(row(rounds));
        }
        return rows;
    }

    private static Row row(final List<RunResult> rounds) {
        final List<RunResult> measured = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        boolean allOk = true;
        for (final RunResult r : rounds) {
            allOk &= r.status() == RunResult.Status.OK;
            if (r.hasLatency()) {
                measured.add(r);
            }
            if (r.note() != null && !notes.contains(r.note())) {
                notes.add(r.note());
            }
        }
        final RunResult.Status status = measured.isEmpty() ? rounds.get(0).status()
            : allOk ? RunResult.Status.OK : RunResult.Status.PARTIAL;
        return new Row(rounds.get(0), rounds.size(), List.copyOf(measured), status,
            notes.isEmpty() ? null : String.join("; ", notes));
    }
}
