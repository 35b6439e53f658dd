package dev.peregrine.bench.report;

import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.StreamFloor;
import dev.peregrine.bench.transports.Transports;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The summary tables of a comparison: ping-pong grouped by path (tcp, udp, shm) with ratios to the best peer
 * and to the machine's floor, load by transport and rate, throughput by transport and size.
 */
public final class Summary {
    private Summary() {
    }

    /**
     * The ping-pong summary.
     *
     * @param results every run (other scenarios are ignored)
     * @param floors the floor lines, possibly none
     * @return the table
     */
    public static Table pingpong(final List<RunResult> results, final List<FloorResult> floors) {
        final Table table = new Table("Ping-pong round trip in microseconds, one message in flight",
            List.of("transport", "size", "p50", "p99", "p99.9", "max", "p50 / best peer", "p50 / floor",
                "alloc B/msg (client/responder)", "status"));
        final Map<String, List<RunResult>> byPath = byPath(results, "pingpong");
        final Map<String, Integer> footnotes = new LinkedHashMap<>();
        for (final Map.Entry<String, List<RunResult>> group : byPath.entrySet()) {
            final String path = group.getKey();
            table.group(path);
            final List<RunResult> rows = new ArrayList<>(group.getValue());
            rows.sort(Comparator.comparingInt(RunResult::size).thenComparing(r -> r.peregrine() ? 0 : 1)
                .thenComparing(RunResult::transport));
            for (final RunResult r : rows) {
                if (!r.hasLatency()) {
                    table.row(List.of(name(r), r.sizes(), "n/a", "n/a", "n/a", "n/a", "", "", "",
                        status(table, footnotes, r)));
                    continue;
                }
                final RunResult best = bestPeer(results, r);
                // the C floor echoes the message: it is no floor for a run whose replies have another size
                final FloorResult floor = r.replySize() != r.size() ? null : FloorResult.find(floors, path, r.size());
                table.row(List.of(name(r), r.sizes(),
                    us(r.rtt().getValueAtPercentile(50)), us(r.rtt().getValueAtPercentile(99)),
                    us(r.rtt().getValueAtPercentile(99.9)), us(r.rtt().getMaxValue()),
                    best == null ? "n/a" : ratio(r.rtt().getValueAtPercentile(50), best.rtt().getValueAtPercentile(50))
                        + " (" + best.transport() + ")",
                    floor == null ? "n/a" : ratio(r.rtt().getValueAtPercentile(50), floor.p50()),
                    LatencyTable.number(r.clientAllocatedPerMessage(), 2) + " / "
                        + LatencyTable.number(r.responderAllocatedPerMessage(), 2),
                    status(table, footnotes, r)));
            }
            for (final FloorResult floor : floors) {
                if (floor.path().equals(path)) {
                    table.row(List.of("floor " + floor.name() + " (C)", floor.size() < 0 ? "any" : Integer.toString(floor.size()),
                        us(floor.p50()), us(floor.p99()), us(floor.p999()), us(floor.max()), "", "1.00x", "", "floor"));
                }
            }
        }
        table.note("* Peregrine's own transports; the others are peers. Ratios compare p50 with the best peer on the"
            + " same path and size, and with the C floor of the path measured on this machine. A size shown as"
            + " M/R is a message of M bytes answered by a reply of R bytes (--reply-size).");
        return table;
    }

    /**
     * The ping-pong summary of runs made in rounds ({@code bench pingpong --rounds N}): one row per transport and
     * size with the medians over the rounds ({@link RoundRows}) and the range of its p50; the ratios divide
     * medians: by the best peer's (the peer of the same path and size with the lowest median p50) and by the C
     * floor's median over the same rounds.
     *
     * @param results every run of every round (other scenarios are ignored)
     * @param floors the floor lines of every round, possibly none
     * @return the table
     */
    public static Table pingpongRounds(final List<RunResult> results, final List<List<FloorResult>> floors) {
        final List<RoundRows.Row> rows = RoundRows.of(results, "pingpong");
        final List<FloorResult> floorMedians = FloorResult.medians(floors);
        final Table table = new Table("Ping-pong round trip in microseconds, one message in flight; median of the rounds",
            List.of("transport", "size", "rounds", "p50", "p50 min - max", "p99", "p99.9", "max", "p50 / best peer",
                "p50 / floor", "alloc B/msg (client/responder)", "status"));
        final Map<String, Integer> footnotes = new LinkedHashMap<>();
        final Map<String, List<RoundRows.Row>> byPath = new LinkedHashMap<>();
        rows.stream().sorted(Comparator.comparingInt((RoundRows.Row r) -> Transports.pathRank(r.first().path()))
                .thenComparingInt(r -> r.first().size()).thenComparing(r -> r.first().peregrine() ? 0 : 1)
                .thenComparing(r -> r.first().transport()))
            .forEach(r -> byPath.computeIfAbsent(r.first().path(), k -> new ArrayList<>()).add(r));
        for (final Map.Entry<String, List<RoundRows.Row>> group : byPath.entrySet()) {
            table.group(group.getKey());
            for (final RoundRows.Row r : group.getValue()) {
                final RunResult first = r.first();
                if (!r.hasLatency()) {
                    table.row(List.of(name(first), first.sizes(), Integer.toString(r.rounds()), "n/a", "n/a", "n/a",
                        "n/a", "n/a", "", "", "", status(table, footnotes, r.status(), r.note())));
                    continue;
                }
                final RoundRows.Row best = bestPeerRow(group.getValue(), first);
                final FloorResult floor = first.replySize() != first.size() ? null
                    : FloorResult.find(floorMedians, group.getKey(), first.size());
                table.row(List.of(name(first), first.sizes(), Integer.toString(r.rounds()), us(r.percentile(50)),
                    us(r.p50Min()) + " - " + us(r.p50Max()), us(r.percentile(99)), us(r.percentile(99.9)), us(r.max()),
                    best == null ? "n/a" : ratio(r.percentile(50), best.percentile(50)) + " (" + best.first().transport() + ")",
                    floor == null ? "n/a" : ratio(r.percentile(50), floor.p50()),
                    LatencyTable.number(worst(r.measured(), RunResult::clientAllocatedPerMessage), 2) + " / "
                        + LatencyTable.number(worst(r.measured(), RunResult::responderAllocatedPerMessage), 2),
                    status(table, footnotes, r.status(), r.note())));
            }
            for (final FloorResult floor : floorMedians) {
                if (floor.path().equals(group.getKey())) {
                    table.row(List.of("floor " + floor.name() + " (C)", floor.size() < 0 ? "any" : Integer.toString(floor.size()),
                        Integer.toString(floors.size()), us(floor.p50()), "", us(floor.p99()), us(floor.p999()),
                        us(floor.max()), "", "1.00x", "", "floor"));
                }
            }
        }
        table.note("* Peregrine's own transports; the others are peers. With rounds: the floor and every transport ran"
            + " once per round, each round starting one transport further on; each figure is the median over the"
            + " rounds that measured latency, p50 min - max their range, and the ratios divide medians (the floor's"
            + " over the same rounds). alloc is the most of any round.");
        return table;
    }

    /** The best peer's row: the same path, size, reply size, rate and clients, with the lowest median p50. */
    private static RoundRows.Row bestPeerRow(final List<RoundRows.Row> rows, final RunResult row) {
        RoundRows.Row best = null;
        for (final RoundRows.Row r : rows) {
            if (r.hasLatency() && isPeerOf(r.first(), row) && (best == null || r.percentile(50) < best.percentile(50))) {
                best = r;
            }
        }
        return best;
    }

    /** Whether a run is a peer's, made as {@code row} was: scenario, path, size, reply size, rate and clients. */
    private static boolean isPeerOf(final RunResult r, final RunResult row) {
        return !r.peregrine() && r.scenario().equals(row.scenario()) && r.path().equals(row.path())
            && r.size() == row.size() && r.replySize() == row.replySize() && r.rate() == row.rate()
            && r.clients() == row.clients();
    }

    /** The highest of a figure over some runs, NaN where none has it. */
    private static double worst(final List<RunResult> runs, final java.util.function.ToDoubleFunction<RunResult> figure) {
        double worst = Double.NaN;
        for (final RunResult r : runs) {
            final double value = figure.applyAsDouble(r);
            if (!Double.isNaN(value) && (Double.isNaN(worst) || value > worst)) {
                worst = value;
            }
        }
        return worst;
    }

    /**
     * The load summary: one row per transport and rate ({@link RoundRows}). When a row ran in several rounds
     * ({@code bench load --rounds N}) its numbers are the medians over the rounds, with the number of rounds and
     * the range of the p99 in columns of their own; with one round the table is as it always was.
     *
     * @param results every run (other scenarios are ignored)
     * @return the table
     */
    public static Table load(final List<RunResult> results) {
        final List<RoundRows.Row> rows = RoundRows.of(results, "load");
        final int rounds = rows.stream().mapToInt(RoundRows.Row::rounds).max().orElse(1);
        final List<String> headers = new ArrayList<>(List.of("transport", "size", "clients", "rate/client", "sent/client",
            "p50", "p90", "p99", "p99.9", "max", "msg/s (all)", "status"));
        if (rounds > 1) {
            headers.add(2, "rounds");
            headers.add(headers.indexOf("p99") + 1, "p99 min - max");
        }
        final Table table = new Table("Load: concurrent clients at fixed rates, latency from the intended send time"
            + " (microseconds, coordinated omission corrected)" + (rounds > 1 ? "; median of the rounds" : ""), headers);
        final Map<String, Integer> footnotes = new LinkedHashMap<>();
        final Map<String, List<RoundRows.Row>> byPath = new LinkedHashMap<>();
        rows.stream().sorted(Comparator.comparingInt((RoundRows.Row r) -> Transports.pathRank(r.first().path())))
            .forEach(r -> byPath.computeIfAbsent(r.first().path(), k -> new ArrayList<>()).add(r));
        for (final Map.Entry<String, List<RoundRows.Row>> group : byPath.entrySet()) {
            table.group(group.getKey());
            for (final RoundRows.Row r : group.getValue()) {
                final RunResult first = r.first();
                final List<String> cells = new ArrayList<>(List.of(name(first), Integer.toString(first.size()),
                    Integer.toString(first.clients()), rate(first)));
                if (!r.hasLatency()) {
                    cells.addAll(List.of("n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"));
                } else {
                    cells.addAll(List.of(LatencyTable.number(r.sentRate(), 0), us(r.percentile(50)), us(r.percentile(90)),
                        us(r.percentile(99)), us(r.percentile(99.9)), us(r.max()), LatencyTable.number(r.throughput(), 0)));
                }
                cells.add(status(table, footnotes, r.status(), r.note()));
                if (rounds > 1) {
                    cells.add(2, Integer.toString(r.rounds()));
                    cells.add(headers.indexOf("p99") + 1, r.hasLatency() ? us(r.p99Min()) + " - " + us(r.p99Max()) : "n/a");
                }
                table.row(cells);
            }
        }
        table.note("rate/client is the rate offered, sent/client the rate each client sustained (n/a: not measured, one"
            + " client per thread); a rate shown as R/N had only every Nth message answered (--respond-every), the"
            + " percentiles and msg/s are of the answered ones.");
        if (rounds > 1) {
            final long transports = rows.stream().map(r -> r.first().transport()).distinct().count();
            table.note("With rounds: every transport ran once per round, the rounds one after another; each percentile,"
                + " max, sent/client and msg/s is the median over the rounds that measured latency, and p99 min - max"
                + " their range. Each round starts one transport further on, because the first transport a bench JVM"
                + " runs measures the worst tails" + (rounds % transports == 0 ? "." : "; with " + transports
                + " transports, " + rounds + " rounds put some of them first more often than others (a multiple of "
                + transports + " would not)."));
        }
        return table;
    }

    /** The offered rate, with the responder's period when it answered only every Nth message. */
    private static String rate(final RunResult r) {
        return r.respondEvery() > 1 ? r.rate() + "/" + r.respondEvery() : Long.toString(r.rate());
    }

    /**
     * The throughput summary of runs without a floor, flushed after every {@link Batch#DEFAULT}.
     *
     * @param results every run (other scenarios are ignored)
     * @return the table
     */
    public static Table throughput(final List<RunResult> results) {
        return throughput(ThroughputRows.of(results, List.of()), Batch.DEFAULT);
    }

    /**
     * The throughput summary: per path, the C stream floor of each size first (or why it was skipped), then
     * each transport, with the median rate of its rounds, their range, payload MB/s and the ratio of the
     * median to the floor's median at the same size.
     *
     * @param rows the rows ({@link ThroughputRows#of})
     * @param batch what the sender offered between two flushes
     * @return the table
     */
    public static Table throughput(final List<ThroughputRows.Row> rows, final Batch batch) {
        final Table table = new Table("Throughput: one way, every sequence number checked, batches of "
            + batch.describe(rows.stream().filter(r -> !r.floor()).map(ThroughputRows.Row::size).distinct().sorted().toList())
            + " then a flush (median of the rounds)",
            List.of("transport", "size", "rounds", "msg/s", "min - max", "MB/s", "/ " + StreamFloor.NAME,
                "alloc B/msg (sender/receiver)", "status"));
        final Map<String, Integer> footnotes = new LinkedHashMap<>();
        final Map<String, List<ThroughputRows.Row>> byPath = new LinkedHashMap<>();
        rows.stream().sorted(Comparator.comparingInt((ThroughputRows.Row r) -> Transports.pathRank(r.path())))
            .forEach(r -> byPath.computeIfAbsent(r.path(), k -> new ArrayList<>()).add(r));
        for (final Map.Entry<String, List<ThroughputRows.Row>> group : byPath.entrySet()) {
            table.group(group.getKey());
            final List<ThroughputRows.Row> sorted = new ArrayList<>(group.getValue());
            sorted.sort(Comparator.comparingInt(ThroughputRows.Row::size).thenComparing(r -> r.floor() ? 0 : 1)
                .thenComparing(r -> r.peregrine() ? 0 : 1));
            for (final ThroughputRows.Row r : sorted) {
                final String name = r.floor() ? r.transport() + " (C)" : r.peregrine() ? r.transport() + " *" : r.transport();
                if (!r.measured()) {
                    table.row(List.of(name, Integer.toString(r.size()), Integer.toString(r.rounds()), "n/a", "", "n/a",
                        "", "", r.floor() ? r.note() : status(table, footnotes, r.status(), r.note())));
                    continue;
                }
                final ThroughputRows.Row floor = ThroughputRows.floorFor(rows, r.size());
                table.row(List.of(name, Integer.toString(r.size()), Integer.toString(r.rounds()),
                    LatencyTable.number(r.median(), 0),
                    r.rates().size() < 2 ? "" : LatencyTable.number(r.min(), 0) + " - " + LatencyTable.number(r.max(), 0),
                    LatencyTable.number(r.bytesPerSecond() / 1e6, 1),
                    floor == null ? "n/a" : ratio(r.median(), floor.median()),
                    r.floor() ? "" : LatencyTable.number(r.senderAllocated(), 2) + " / "
                        + LatencyTable.number(r.receiverAllocated(), 2),
                    r.floor() && r.status() == RunResult.Status.OK ? "floor" : status(table, footnotes, r.status(), r.note())));
            }
        }
        table.note("* Peregrine's own transports; the others are peers. msg/s is the median of the rounds that measured"
            + " something; MB/s is payload (size bytes per message) at that median; / " + StreamFloor.NAME
            + " divides the median by the median of the C stream floor at the same size (a C writer packing frames into"
            + " large writes to a C reader on loopback TCP: the kernel's limit).");
        return table;
    }

    /**
     * The recovery latency of the throughput rows over a stream with a recovery layer (MoldUDP64): gaps
     * filled in the measured windows of all rounds, and the percentiles of their time from detection to the
     * arrival of the last missing message.
     *
     * @param rows the rows ({@link ThroughputRows#of})
     * @return the table, or null if no row has recovery latencies
     */
    public static Table recovery(final List<ThroughputRows.Row> rows) {
        final List<ThroughputRows.Row> recovering = rows.stream().filter(r -> r.recovery() != null).toList();
        if (recovering.isEmpty()) {
            return null;
        }
        final Table table = new Table("Recovery latency in microseconds: gap detected to gap filled (measured windows)",
            List.of("transport", "size", "gaps", "p50", "p99", "p99.9", "max"));
        for (final ThroughputRows.Row r : recovering) {
            final org.HdrHistogram.Histogram h = r.recovery();
            final boolean any = h.getTotalCount() > 0;
            table.row(List.of(r.transport(), Integer.toString(r.size()), Long.toString(h.getTotalCount()),
                any ? us(h.getValueAtPercentile(50)) : "n/a", any ? us(h.getValueAtPercentile(99)) : "n/a",
                any ? us(h.getValueAtPercentile(99.9)) : "n/a", any ? us(h.getMaxValue()) : "n/a"));
        }
        return table;
    }

    private static Map<String, List<RunResult>> byPath(final List<RunResult> results, final String scenario) {
        final Map<String, List<RunResult>> groups = new LinkedHashMap<>();
        results.stream().filter(r -> r.scenario().equals(scenario))
            .sorted(Comparator.comparingInt((RunResult r) -> Transports.pathRank(r.path())))
            .forEach(r -> groups.computeIfAbsent(r.path(), k -> new ArrayList<>()).add(r));
        return groups;
    }

    private static RunResult bestPeer(final List<RunResult> results, final RunResult row) {
        RunResult best = null;
        for (final RunResult r : results) {
            if (r.hasLatency() && isPeerOf(r, row)
                && (best == null || r.rtt().getValueAtPercentile(50) < best.rtt().getValueAtPercentile(50))) {
                best = r;
            }
        }
        return best;
    }

    /** Statuses longer than this go to a numbered note under the table. */
    private static final int SHORT_STATUS = 40;

    /**
     * The status cell of a row: {@code ok}, or the status and its note, moved to a numbered note under the
     * table when long (identical notes share a number).
     */
    private static String status(final Table table, final Map<String, Integer> footnotes, final RunResult r) {
        return status(table, footnotes, r.status(), r.note());
    }

    private static String status(final Table table, final Map<String, Integer> footnotes, final RunResult.Status status,
                                 final String note) {
        if (status == RunResult.Status.OK && note == null) {
            return "ok";
        }
        final String text = status + ": " + note;
        if (text.length() <= SHORT_STATUS) {
            return text;
        }
        Integer number = footnotes.get(note);
        if (number == null) {
            number = footnotes.size() + 1;
            footnotes.put(note, number);
            table.note("(" + number + ") " + note);
        }
        return status + " (" + number + ")";
    }

    private static String name(final RunResult r) {
        return r.peregrine() ? r.transport() + " *" : r.transport();
    }

    private static String us(final double nanos) {
        return LatencyTable.micros(nanos);
    }

    private static String ratio(final double value, final double reference) {
        return reference <= 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", value / reference);
    }
}
