package dev.peregrine.bench.handoff;

import dev.peregrine.bench.report.LatencyTable;
import dev.peregrine.bench.report.Table;
import dev.peregrine.peers.handoff.DisruptorHandoff;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The table of {@code bench handoff}: a group of rows per kind of run (latency, throughput with one producer, with
 * two), a row per queue and size. With several rounds every cell is the median of the rounds. The last column is
 * the ratio to the Disruptor's row of the same kind and size: p50 for latency (below 1 is faster), msg/s for
 * throughput (above 1 is faster).
 */
public final class HandoffTable {
    /** The column headings. */
    public static final List<String> HEADERS = List.of("impl", "size", "p50", "p90", "p99", "p99.9", "p99.99", "max",
        "msg/s", "B/msg prod/cons", "vs disruptor");
    /** The percentiles of the latency rows, in {@link #HEADERS}' order. */
    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};

    private HandoffTable() {
    }

    /**
     * The heading of a kind of run.
     *
     * @param mode {@link HandoffResult#mode()}
     * @param rate the latency runs' rate
     * @return the heading
     */
    public static String heading(final String mode, final long rate) {
        return switch (mode) {
            case "latency" -> "one-way latency in us, 1 producer at " + rate + " msg/s, one message per hand-over,"
                + " from the intended send time; both threads spin, pinned to CPUs 0 and 1 where there are two";
            case "throughput-1p" -> "throughput, 1 producer -> 1 consumer, batches of " + HandoffRunner.BATCH
                + "; both threads spin, pinned to CPUs 0 and 1 where there are two";
            default -> "throughput, " + mode.substring("throughput-".length(), mode.length() - 1) + " producers -> 1"
                + " consumer, batches of " + HandoffRunner.BATCH + "; every thread yields when idle (2 vCPUs)";
        };
    }

    /**
     * The table of a command's runs.
     *
     * @param results every run, rounds included
     * @param rate the latency runs' rate
     * @param rounds how many rounds were run
     * @return the table
     */
    public static Table of(final List<HandoffResult> results, final long rate, final int rounds) {
        final Map<String, Map<String, List<HandoffResult>>> byMode = new LinkedHashMap<>();
        for (final HandoffResult result : results) {
            byMode.computeIfAbsent(result.mode(), m -> new LinkedHashMap<>())
                .computeIfAbsent(result.implementation() + " " + result.size(), k -> new ArrayList<>()).add(result);
        }
        final Table table = new Table("bench handoff" + (rounds > 1 ? ": medians of " + rounds + " rounds" : ""),
            HEADERS);
        for (final Map.Entry<String, Map<String, List<HandoffResult>>> mode : byMode.entrySet()) {
            table.group(heading(mode.getKey(), rate));
            final boolean latency = mode.getKey().equals("latency");
            for (final List<HandoffResult> runs : mode.getValue().values()) {
                table.row(row(runs, latency, reference(mode.getValue(), runs.get(0).size()), rounds));
            }
        }
        table.note("B/msg: bytes allocated per message in the measured window by the producer threads / the consumer"
            + " thread (ThreadMXBean).");
        table.note("vs disruptor: p50 / the Disruptor's p50 (latency), msg/s / the Disruptor's msg/s (throughput).");
        return table;
    }

    private static List<HandoffResult> reference(final Map<String, List<HandoffResult>> rows, final int size) {
        return rows.get(DisruptorHandoff.NAME + " " + size);
    }

    private static List<String> row(final List<HandoffResult> runs, final boolean latency,
                                    final List<HandoffResult> reference, final int rounds) {
        final HandoffResult first = runs.get(0);
        final List<String> cells = new ArrayList<>();
        cells.add(first.implementation());
        cells.add(Integer.toString(first.size()));
        final List<HandoffResult> failed = runs.stream().filter(HandoffResult::failed).toList();
        if (!failed.isEmpty()) {
            for (int i = 2; i < HEADERS.size() - 1; i++) {
                cells.add("n/a");
            }
            cells.add("FAILED: " + failed.get(0).failure());
            return cells;
        }
        for (final double percentile : PERCENTILES) {
            cells.add(latency ? micros(median(runs, r -> r.latency().getValueAtPercentile(percentile))) : "n/a");
        }
        cells.add(latency ? micros(median(runs, r -> r.latency().getMaxValue())) : "n/a");
        cells.add(number(median(runs, HandoffResult::messagesPerSecond), 0));
        cells.add(number(median(runs, HandoffResult::producerBytesPerMessage), 1) + "/"
            + number(median(runs, HandoffResult::consumerBytesPerMessage), 1));
        cells.add(ratio(runs, reference, latency));
        return cells;
    }

    private static String ratio(final List<HandoffResult> runs, final List<HandoffResult> reference,
                                final boolean latency) {
        if (reference == null || reference.stream().anyMatch(HandoffResult::failed)) {
            return "n/a";
        }
        final ToDoubleFunction<HandoffResult> figure = latency
            ? r -> r.latency().getValueAtPercentile(LatencyTable.PERCENTILES.get(0).percentile())
            : HandoffResult::messagesPerSecond;
        final double theirs = median(reference, figure);
        return theirs > 0 ? String.format(Locale.ROOT, "%.2fx", median(runs, figure) / theirs) : "n/a";
    }

    /**
     * The median of a figure over rounds (the mean of the two middle ones for an even count).
     *
     * @param runs the rounds
     * @param figure the figure
     * @return the median, NaN if any is NaN
     */
    static double median(final List<HandoffResult> runs, final ToDoubleFunction<HandoffResult> figure) {
        final double[] values = runs.stream().mapToDouble(figure).toArray();
        Arrays.sort(values);
        final int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    private static String micros(final double nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1000.0);
    }

    private static String number(final double value, final int decimals) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        if (decimals == 1 && value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
