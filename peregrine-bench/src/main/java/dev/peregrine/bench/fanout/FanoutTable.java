package dev.peregrine.bench.fanout;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The text table of {@code bench fanout}: latency rows (the worst and the median reader), then throughput rows, each
 * with the bytes allocated per message by the writer and by the most allocating reader, then every round's bytes
 * per message and each thread's share of a core, the notes of the scenarios and the set-up of every transport.
 */
public final class FanoutTable {
    private static final double[] PERCENTILES = {50, 99, 99.9, 100};

    private FanoutTable() {
    }

    /**
     * Renders the table.
     *
     * @param results every row, in run order
     * @param rate the latency runs' rate
     * @param transports the transports that ran, for their set-up lines
     * @param chronicle Chronicle Queue's line, or null if it was not asked for
     * @return the text
     */
    public static String render(final List<FanoutResult> results, final long rate,
                                final List<FanoutTransport> transports, final String chronicle) {
        final StringBuilder out = new StringBuilder("bench fanout\n");
        final int rounds = results.stream().mapToInt(r -> r.rounds() == null ? 1 : r.rounds().count()).max().orElse(1);
        if (rounds > 1) {
            out.append(String.format(Locale.ROOT, "[every figure: the median of %d alternating rounds (each round"
                + " starts one transport further on); the status gives the range of the worst p99 or of msg/s]%n",
                rounds));
        }
        out.append(String.format(Locale.ROOT, "[one-way latency in us at %d msg/s, from the intended send time (CO-corrected),"
            + " one histogram per reader process; worst = the highest reader at each percentile, median = the median"
            + " reader's]%n", rate));
        out.append(String.format(Locale.ROOT, "%-25s %7s %5s | %8s %8s %8s %9s | %8s %8s %8s %9s | %9s %9s  %s%n",
            "transport", "readers", "size", "worst:p50", "p99", "p99.9", "max", "med:p50", "p99", "p99.9", "max",
            "B/msg w", "B/msg r", "status"));
        for (final FanoutResult r : results) {
            if (r.latency()) {
                out.append(String.format(Locale.ROOT, "%-25s %7d %5d | %8s %8s %8s %9s | %8s %8s %8s %9s | %9s %9s  %s%n",
                    r.transport(), r.readers(), r.size(), us(r.worst(PERCENTILES[0])), us(r.worst(PERCENTILES[1])),
                    us(r.worst(PERCENTILES[2])), us(r.worst(PERCENTILES[3])), us(r.median(PERCENTILES[0])),
                    us(r.median(PERCENTILES[1])), us(r.median(PERCENTILES[2])), us(r.median(PERCENTILES[3])),
                    bytes(r.writerAllocated()), bytes(r.readersAllocated()), status(r)));
            }
        }
        out.append("[one-way throughput, msg/s every reader received, every sequence checked by every reader]\n");
        out.append(String.format(Locale.ROOT, "%-25s %7s %5s | %12s | %9s %9s  %s%n", "transport", "readers", "size",
            "msg/s", "B/msg w", "B/msg r", "status"));
        for (final FanoutResult r : results) {
            if (!r.latency()) {
                out.append(String.format(Locale.ROOT, "%-25s %7d %5d | %12s | %9s %9s  %s%n", r.transport(),
                    r.readers(), r.size(), r.failed() ? "-" : String.format(Locale.ROOT, "%.0f", r.messagesPerSecond()),
                    bytes(r.writerAllocated()), bytes(r.readersAllocated()), status(r)));
            }
        }
        out.append("[bytes allocated per measured message, every run: w = the writer's thread, r = each reader's, in"
            + " reader order (- for a reader a scenario played on); the B/msg columns above are the most of any round]\n");
        for (final FanoutResult r : results) {
            if (!r.allocations().isEmpty()) {
                out.append(String.format(Locale.ROOT, "  %-23s %7d %5d %-10s  %s%n", r.transport(), r.readers(), r.size(),
                    r.latency() ? "latency" : "throughput", perRound(r.allocations())));
            }
        }
        final int allCores = 100 * Runtime.getRuntime().availableProcessors();
        out.append(String.format(Locale.ROOT, "[CPU time each thread used over its measured window, in %% of one core,"
            + " spinning and yielding included: w = the writer's thread, r = each reader's reading thread, = their sum;"
            + " this machine has %d%% in all, and a sum near it means the cores were nearly always busy, so a reader"
            + " with a message to read may wait for one: its tail latency is then the scheduler's]%n", allCores));
        for (final FanoutResult r : results) {
            if (!r.allocations().isEmpty()) {
                out.append(String.format(Locale.ROOT, "  %-23s %7d %5d %-10s  %s%n", r.transport(), r.readers(), r.size(),
                    r.latency() ? "latency" : "throughput", cpuPerRound(r.allocations())));
            }
        }
        boolean notes = false;
        for (final FanoutResult r : results) {
            for (final String note : r.notes()) {
                if (!notes) {
                    out.append("[scenarios]\n");
                    notes = true;
                }
                out.append(String.format(Locale.ROOT, "%s readers=%d size=%d: %s%n", r.transport(), r.readers(),
                    r.size(), note));
            }
        }
        final int cores = Runtime.getRuntime().availableProcessors();
        out.append(String.format(Locale.ROOT, "[set-up; %d cores: readers beyond the first cannot all spin, so every"
            + " reader waits (futex or back-off) once idle; between paced sends the writer sleeps (parkNanos) until"
            + " %d us before the send time, then calls Thread.yield() when the cores are fewer than readers + 2 (here"
            + " at %d readers or more), else it spins]%n", cores, FanoutRunner.PARK_AHEAD_NS / 1000,
            Math.max(1, cores - 1)));
        for (final FanoutTransport t : transports) {
            out.append("  ").append(t.describe()).append('\n');
        }
        if (chronicle != null) {
            out.append("  ").append(FanoutTransports.CHRONICLE).append(": ").append(chronicle).append('\n');
        }
        return out.toString();
    }

    /**
     * Every run's bytes per message, one {@code round N: w W r R1 R2 ...} per round (no round number for one run).
     *
     * @param allocations the runs' figures, in round order
     * @return one line
     */
    public static String perRound(final List<FanoutResult.Allocation> allocations) {
        return eachRound(allocations, a -> {
            final StringBuilder run = new StringBuilder("w ").append(bytes(a.writer())).append(" r");
            for (final double reader : a.readers()) {
                run.append(' ').append(Double.isNaN(reader) ? "-" : bytes(reader));
            }
            return run.toString();
        });
    }

    /** One figure per run, joined: {@code round N: ...; round N+1: ...}, without the round number for one run. */
    private static String eachRound(final List<FanoutResult.Allocation> allocations,
                                    final Function<FanoutResult.Allocation, String> run) {
        final StringBuilder line = new StringBuilder();
        for (int i = 0; i < allocations.size(); i++) {
            if (i > 0) {
                line.append("; ");
            }
            if (allocations.size() > 1) {
                line.append("round ").append(i + 1).append(": ");
            }
            line.append(run.apply(allocations.get(i)));
        }
        return line.toString();
    }

    /**
     * Every run's share of a core per thread, one {@code round N: w W% r R1% R2% ... = S%} per round (no round number
     * for one run), S the sum of the known figures.
     *
     * @param allocations the runs' figures, in round order
     * @return one line
     */
    public static String cpuPerRound(final List<FanoutResult.Allocation> allocations) {
        return eachRound(allocations, a -> {
            double sum = Math.max(0, a.writerCpu());
            final StringBuilder run = new StringBuilder("w ").append(percent(a.writerCpu())).append(" r");
            for (final double reader : a.readersCpu()) {
                run.append(' ').append(Double.isNaN(reader) ? "-" : percent(reader));
                sum += Double.isNaN(reader) ? 0 : Math.max(0, reader);
            }
            return run.append(" = ").append(percent(sum)).toString();
        });
    }

    private static String percent(final double share) {
        return share < 0 || Double.isNaN(share) ? "?" : String.format(Locale.ROOT, "%.0f%%", share * 100);
    }

    private static String status(final FanoutResult r) {
        if (r.failed()) {
            return "FAILED: " + r.failure();
        }
        final FanoutResult.Rounds rounds = r.rounds();
        if (r.latency()) {
            return String.format(Locale.ROOT, "ok, writer %.0f msg/s", r.messagesPerSecond()) + (rounds == null ? ""
                : String.format(Locale.ROOT, "; %d rounds, worst p99 %s to %s", rounds.count(), us(rounds.low()),
                    us(rounds.high()))) + mostIn(r);
        }
        return (rounds == null ? "ok" : String.format(Locale.ROOT, "ok; %d rounds, %.0f to %.0f msg/s",
            rounds.count(), rounds.low(), rounds.high())) + mostIn(r);
    }

    /** Which round the B/msg columns come from, for a row of several rounds that allocated in any. */
    private static String mostIn(final FanoutResult r) {
        final List<FanoutResult.Allocation> runs = r.allocations();
        if (runs.size() < 2 || !(r.writerAllocated() > 0 || r.readersAllocated() > 0)) {
            return "";
        }
        int writer = 0;
        int reader = 0;
        for (int i = 1; i < runs.size(); i++) {
            if (runs.get(i).writer() > runs.get(writer).writer()) {
                writer = i;
            }
            if (runs.get(i).mostOfReaders() > runs.get(reader).mostOfReaders()) {
                reader = i;
            }
        }
        return String.format(Locale.ROOT, "; B/msg w from round %d, r from round %d", writer + 1, reader + 1);
    }

    private static String us(final double nanos) {
        return Double.isNaN(nanos) ? "-" : String.format(Locale.ROOT, "%.2f", nanos / 1000.0);
    }

    private static String bytes(final double perMessage) {
        return perMessage < 0 || Double.isNaN(perMessage) ? "?" : String.format(Locale.ROOT, "%.1f", perMessage);
    }
}
