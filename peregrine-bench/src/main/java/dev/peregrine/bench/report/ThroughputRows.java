package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RecoveryLatency;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.StreamFloor;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The throughput summary's rows: every round of one transport at one size reduced to its median and its
 * range, and the C stream floor ({@value StreamFloor#NAME}) of each size the same way.
 */
public final class ThroughputRows {
    private ThroughputRows() {
    }

    /**
     * One row: a transport, or the C floor, at one size over all rounds.
     *
     * @param transport the transport's name, or {@value StreamFloor#NAME}
     * @param path its path ({@code tcp} for the floor)
     * @param peregrine whether it is Peregrine's own
     * @param floor whether this is the C floor
     * @param size message size in bytes
     * @param rounds how many rounds ran (measured or not)
     * @param rates messages per second of each round that measured something, in round order
     * @param messages messages measured over all rounds
     * @param senderAllocated median bytes the sender allocated per message, or NaN
     * @param receiverAllocated median bytes the receiver allocated per message, or NaN
     * @param status OK if every round was, PARTIAL if some measured, else the first round's status
     * @param note the rounds' notes joined, the floor's reason for being skipped, or null
     * @param recovery the rounds' recovery latencies added up (a stream with a recovery layer), or null
     */
    public record Row(String transport, String path, boolean peregrine, boolean floor, int size, int rounds,
                      List<Double> rates, long messages, double senderAllocated, double receiverAllocated,
                      RunResult.Status status, String note, Histogram recovery) {
        /**
         * A row without recovery latencies.
         *
         * @param transport the transport's name
         * @param path its path
         * @param peregrine whether it is Peregrine's own
         * @param floor whether this is the C floor
         * @param size message size in bytes
         * @param rounds how many rounds ran
         * @param rates messages per second of each measured round
         * @param messages messages measured over all rounds
         * @param senderAllocated median sender bytes per message, or NaN
         * @param receiverAllocated median receiver bytes per message, or NaN
         * @param status the status
         * @param note the notes, or null
         */
        public Row(final String transport, final String path, final boolean peregrine, final boolean floor, final int size,
                   final int rounds, final List<Double> rates, final long messages, final double senderAllocated,
                   final double receiverAllocated, final RunResult.Status status, final String note) {
            this(transport, path, peregrine, floor, size, rounds, rates, messages, senderAllocated, receiverAllocated,
                status, note, null);
        }

        /**
         * Whether any round measured a rate.
         *
         * @return true if there is a median
         */
        public boolean measured() {
            return !rates.isEmpty();
        }

        /**
         * The median rate.
         *
         * @return messages per second, or NaN if none was measured
         */
        public double median() {
            return ThroughputRows.median(rates);
        }

        /**
         * The lowest rate.
         *
         * @return messages per second, or NaN
         */
        public double min() {
            return rates.isEmpty() ? Double.NaN : Collections.min(rates);
        }

        /**
         * The highest rate.
         *
         * @return messages per second, or NaN
         */
        public double max() {
            return rates.isEmpty() ? Double.NaN : Collections.max(rates);
        }

        /**
         * Payload bytes per second at the median rate.
         *
         * @return the median times the size, or NaN
         */
        public double bytesPerSecond() {
            return median() * size;
        }
    }

    /**
     * The median of some values: the middle one, or the mean of the two middle ones.
     *
     * @param values the values, in any order
     * @return the median, or NaN if there are none
     */
    public static double median(final List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        final List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        final int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    /**
     * Reduces the runs of every round to rows: one per transport and size (in the order they first ran), and
     * one per size for the C floor if it was tried.
     *
     * @param results every run (other scenarios are ignored)
     * @param floors the floor's outcome of every round and size, possibly none
     * @return the rows, floor rows first
     */
    public static List<Row> of(final List<RunResult> results, final List<StreamFloor.Outcome> floors) {
        final List<Row> rows = new ArrayList<>();
        final Map<Integer, List<StreamFloor.Outcome>> floorsBySize = new LinkedHashMap<>();
        for (final StreamFloor.Outcome outcome : floors) {
            floorsBySize.computeIfAbsent(outcome.size(), k -> new ArrayList<>()).add(outcome);
        }
        for (final Map.Entry<Integer, List<StreamFloor.Outcome>> entry : floorsBySize.entrySet()) {
            rows.add(floorRow(entry.getKey(), entry.getValue()));
        }
        final Map<String, List<RunResult>> byRow = new LinkedHashMap<>();
        for (final RunResult r : results) {
            if (r.scenario().equals("throughput")) {
                byRow.computeIfAbsent(r.transport() + "\u0000" + r.size(), k -> new ArrayList<>()).add(r);
            }
        }
        for (final List<RunResult> rounds : byRow.values()) {
            rows.add(transportRow(rounds));
        }
        return rows;
    }

    /**
     * The floor row of one size.
     *
     * @param size the size
     * @param outcomes the floor's outcome in each round
     * @return the row
     */
    public static Row floorRow(final int size, final List<StreamFloor.Outcome> outcomes) {
        final List<Double> rates = new ArrayList<>();
        final List<String> skipped = new ArrayList<>();
        for (final StreamFloor.Outcome outcome : outcomes) {
            if (outcome.result() != null) {
                rates.add(outcome.result().framesPerSecond());
            } else if (!skipped.contains(outcome.skipped())) {
                skipped.add(outcome.skipped());
            }
        }
        final RunResult.Status status = rates.isEmpty() ? RunResult.Status.UNAVAILABLE
            : skipped.isEmpty() ? RunResult.Status.OK : RunResult.Status.PARTIAL;
        return new Row(StreamFloor.NAME, "tcp", false, true, size, outcomes.size(), List.copyOf(rates), 0, Double.NaN,
            Double.NaN, status, skipped.isEmpty() ? null : "skipped: " + String.join("; ", skipped));
    }

    private static Row transportRow(final List<RunResult> rounds) {
        final RunResult first = rounds.get(0);
        final List<Double> rates = new ArrayList<>();
        final List<Double> sender = new ArrayList<>();
        final List<Double> receiver = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final List<Histogram> recoveries = new ArrayList<>();
        long messages = 0;
        boolean allOk = true;
        for (final RunResult r : rounds) {
            final boolean measured = (r.status() == RunResult.Status.OK || r.status() == RunResult.Status.PARTIAL)
                && Double.isFinite(r.throughputMsgsPerSecond());
            allOk &= r.status() == RunResult.Status.OK;
            if (measured) {
                rates.add(r.throughputMsgsPerSecond());
                messages += r.messages();
                recoveries.add(r.recovery());
                if (!Double.isNaN(r.clientAllocatedPerMessage())) {
                    sender.add(r.clientAllocatedPerMessage());
                }
                if (!Double.isNaN(r.responderAllocatedPerMessage())) {
                    receiver.add(r.responderAllocatedPerMessage());
                }
            }
            if (r.note() != null && !notes.contains(r.note())) {
                notes.add(r.note());
            }
        }
        final RunResult.Status status = rates.isEmpty() ? first.status()
            : allOk ? RunResult.Status.OK : RunResult.Status.PARTIAL;
        return new Row(first.transport(), first.path(), first.peregrine(), false, first.size(), rounds.size(),
            List.copyOf(rates), messages, median(sender), median(receiver), status,
            notes.isEmpty() ? null : String.join("; ", notes), RecoveryLatency.merge(recoveries));
    }

    /**
     * The floor row for a size among some rows.
     *
     * @param rows the rows
     * @param size the size
     * @return the floor row with a median, or null
     */
    public static Row floorFor(final List<Row> rows, final int size) {
        for (final Row row : rows) {
            if (row.floor() && row.size() == size && row.measured()) {
                return row;
            }
        }
        return null;
    }
}
