package dev.peregrine.bench.fanout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench fanout --rounds N}: the runs of each row made in N alternating rounds, folded into one row each. A row
 * shows the median over its rounds of every figure (each percentile of the worst and of the median reader, the
 * writer's rate or the throughput) and the range of its headline figure (the worst reader's p99, or msg/s); the bytes
 * allocated per message are the most any round saw. A row fails if any of its rounds failed, with that round's
 * reason.
 */
public final class FanoutRounds {
    private FanoutRounds() {
    }

    /**
     * Folds every run into one row per transport, reader count, size and mode, in the order rows first appear.
     *
     * @param runs every run of every round
     * @return the rows; a row of one run is that run unchanged
     */
    public static List<FanoutResult> fold(final List<FanoutResult> runs) {
        final Map<String, List<FanoutResult>> rows = new LinkedHashMap<>();
        for (final FanoutResult run : runs) {
            rows.computeIfAbsent(run.transport() + " " + run.readers() + " " + run.size() + " " + run.latency(),
                k -> new ArrayList<>()).add(run);
        }
        final List<FanoutResult> folded = new ArrayList<>();
        for (final List<FanoutResult> row : rows.values()) {
            folded.add(fold1(row));
        }
        return folded;
    }

    /**
     * Folds the rounds of one row.
     *
     * @param rounds the row's runs, one per round, all of the same transport, readers, size and mode
     * @return the row
     */
    static FanoutResult fold1(final List<FanoutResult> rounds) {
        final FanoutResult first = rounds.get(0);
        if (rounds.size() == 1) {
            return first;
        }
        final List<String> notes = new ArrayList<>();
        String failure = null;
        double writerAllocated = 0;
        double readersAllocated = 0;
        final List<FanoutResult.Allocation> allocations = new ArrayList<>();
        for (int i = 0; i < rounds.size(); i++) {
            final FanoutResult r = rounds.get(i);
            allocations.addAll(r.allocations());
            if (r.failed() && failure == null) {
                failure = "round " + (i + 1) + ": " + r.failure();
            }
            for (final String note : r.notes()) {
                notes.add("round " + (i + 1) + ": " + note);
            }
            writerAllocated = worse(writerAllocated, r.writerAllocated());
            readersAllocated = worse(readersAllocated, r.readersAllocated());
        }
        if (failure != null) {
            return new FanoutResult(first.transport(), first.readers(), first.size(), first.latency(), first.rate(),
                List.of(), 0, writerAllocated, readersAllocated, failure, List.copyOf(notes), null,
                List.copyOf(allocations));
        }
        final double[] percentiles = FanoutResult.KEPT_PERCENTILES;
        final double[] worst = new double[percentiles.length];
        final double[] median = new double[percentiles.length];
        for (int p = 0; p < percentiles.length; p++) {
            final double percentile = percentiles[p];
            worst[p] = median(rounds.stream().mapToDouble(r -> r.worst(percentile)).toArray());
            median[p] = median(rounds.stream().mapToDouble(r -> r.median(percentile)).toArray());
        }
        final double[] headline = rounds.stream().mapToDouble(r -> r.latency() ? r.worst(99) : r.messagesPerSecond())
            .toArray();
        final double rate = median(rounds.stream().mapToDouble(FanoutResult::messagesPerSecond).toArray());
        return new FanoutResult(first.transport(), first.readers(), first.size(), first.latency(), first.rate(),
            List.of(), rate, writerAllocated, readersAllocated, null, List.copyOf(notes),
            new FanoutResult.Rounds(rounds.size(), worst, median, Arrays.stream(headline).min().orElse(Double.NaN),
                Arrays.stream(headline).max().orElse(Double.NaN)), List.copyOf(allocations));
    }

    /** The more allocating of two figures; -1 (unknown) wins, so an unknown is never hidden. */
    private static double worse(final double a, final double b) {
        return a < 0 || b < 0 ? -1 : Math.max(a, b);
    }

    /**
     * The median: the middle value, or the mean of the two middle ones.
     *
     * @param values the values (NaN sorts last)
     * @return the median, NaN if there are none
     */
    static double median(final double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /**
     * The order of the transports in a round: round 1 as given, each later round starting one transport further on,
     * so that a drift of the machine does not always hit the same transport first.
     *
     * @param transports the transports
     * @param round the round, from 1
     * @param <T> the element type
     * @return the transports in this round's order
     */
    public static <T> List<T> rotated(final List<T> transports, final int round) {
        if (transports.isEmpty()) {
            return transports;
        }
        final int shift = (round - 1) % transports.size();
        final List<T> order = new ArrayList<>(transports.subList(shift, transports.size()));
        order.addAll(transports.subList(0, shift));
        return order;
    }

    /** The Targets' bound on the other readers' p99 and the writer's rate with a reader stopped: 10%. */
    public static final double STOP_READER_TOLERANCE = 0.10;

    /**
     * The share of the log's wrap time under which the readers' worst p99 must stay, with reader 0 detached, for the
     * stop-reader scenario to be sound: readers that fall that far behind are not keeping up, and a comparison of
     * their p99s measures the scheduler, not the stopped reader.
     */
    public static final double KEEP_UP_SHARE = 0.10;

    /**
     * The {@code --stop-reader} line: the writer's rate and the other readers' worst p99 with reader 0 stopped against
     * the run with it detached, each ratio with its verdict against the Targets' 10%, and whether the set-up is sound:
     * whether, with reader 0 detached, the readers kept up (worst p99 under {@link #KEEP_UP_SHARE} of the log's wrap).
     *
     * @param stopped the run (or rounds) with reader 0 stopped half-way
     * @param detached the run (or rounds) with reader 0 detached half-way
     * @param records the log's capacity
     * @return the line
     */
    public static String stopVerdict(final FanoutResult stopped, final FanoutResult detached, final int records) {
        final double rateRatio = stopped.messagesPerSecond() / detached.messagesPerSecond();
        final double p99Ratio = stopped.worst(99) / detached.worst(99);
        final boolean rateKept = Math.abs(rateRatio - 1) <= STOP_READER_TOLERANCE;
        final boolean p99Kept = p99Ratio <= 1 + STOP_READER_TOLERANCE;
        final int rounds = stopped.rounds() == null ? 1 : stopped.rounds().count();
        final double wrapMs = detached.rate() > 0 ? records * 1e3 / detached.rate() : 0;
        final double detachedP99Ms = detached.worst(99) / 1e6;
        final boolean sound = detachedP99Ms < KEEP_UP_SHARE * wrapMs;
        return String.format(java.util.Locale.ROOT, "stop-reader (DROP, %d records%s): writer %.0f msg/s with reader 0"
            + " stopped, %.0f with it detached (%.3fx: %s 10%%); the other %d readers' worst p99 %.2f us with reader 0"
            + " stopped, %.2f us with it detached (%.3fx: %s the 10%% target); they lost nothing (every sequence"
            + " checked); %s: with reader 0 detached the readers' worst p99 (%.2f ms) is %s a tenth of the log's wrap"
            + " time (%.0f ms at %d msg/s)%s", records, rounds > 1 ? ", medians of " + rounds + " rounds" : "",
            stopped.messagesPerSecond(), detached.messagesPerSecond(), rateRatio, rateKept ? "within" : "over",
            stopped.readers() - 1, stopped.worst(99) / 1000, detached.worst(99) / 1000, p99Ratio,
            p99Kept ? "within" : "over", sound ? "sound" : "NOT SOUND on this machine", detachedP99Ms,
            sound ? "under" : "not under", wrapMs, detached.rate(),
            sound ? "" : ": they do not keep up; choose fewer --readers or a lower --rate");
    }
}
