package dev.peregrine.cli;

import dev.peregrine.bench.fanout.FanoutJson;
import dev.peregrine.bench.fanout.FanoutMessage;
import dev.peregrine.bench.fanout.FanoutResult;
import dev.peregrine.bench.fanout.FanoutRounds;
import dev.peregrine.bench.fanout.FanoutRunner;
import dev.peregrine.bench.fanout.FanoutTable;
import dev.peregrine.bench.fanout.FanoutTransport;
import dev.peregrine.bench.fanout.FanoutTransports;
import dev.peregrine.bench.report.FanoutChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code bench fanout}: one writer, many reader processes, through the broadcast log and its peers; see
 * {@code docs/broadcast.md}.
 */
@Command(name = "fanout", mixinStandardHelpOptions = true,
    description = {"One writer in this JVM, each reader in a JVM of its own: Peregrine's broadcast log (BLOCK, and"
        + " DROP), the one-to-one shm ring (1 reader) and Aeron IPC (one publication, a subscription per reader;"
        + " Chronicle Queue's row says why it does not run). Per size and reader count: one-way latency at --rate"
        + " from the intended send time, each reader with its own histogram (the table shows the worst and the"
        + " median reader), and one-way throughput; every reader checks every sequence; bytes allocated per message"
        + " by the writer and the readers are shown. --stop-reader and --kill-reader play the issue's scenarios"
        + " instead, at the largest --readers count."})
public final class FanoutBenchCommand implements Callable<Integer>, Validated {
    /** A transport's name, checked against the known ones. */
    static final class TransportName implements ITypeConverter<String> {
        TransportName() {
        }

        @Override
        public String convert(final String value) {
            final String name = value.trim();
            final List<String> known = FanoutTransports.names();
            if (known.contains(name)) {
                return name;
            }
            final String closest = Cli.closest(name, known);
            throw new TypeConversionException("'" + value + "' is not a fan-out transport"
                + (closest == null ? "" : "; did you mean " + closest + "?") + "; known: " + String.join(", ", known));
        }
    }

    @Spec
    CommandSpec spec;

    @Range(min = 1, max = 64)
    @Option(names = "--readers", split = ",", defaultValue = "1,2,4,8", paramLabel = "N[,N...]",
        description = "Reader process counts (default: ${DEFAULT-VALUE}).")
    List<Integer> readers;

    @Range(min = FanoutMessage.MIN_SIZE, max = FanoutMessage.MAX_SIZE,
        note = "a message carries its 8-byte sequence and 8-byte send time")
    @Option(names = "--size", split = ",", defaultValue = "32,256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = 1, max = 10_000_000)
    @Option(names = "--rate", defaultValue = "100000", paramLabel = "R",
        description = "Messages per second of the latency runs (default: ${DEFAULT-VALUE}).")
    long rate;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--seconds", defaultValue = "2", description = "Measured seconds of a latency run (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Range(max = Range.DAY)
    @Option(names = "--warmup-seconds", defaultValue = "0.5",
        description = "Warm-up seconds before the measured messages of a latency run (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Range(min = 1, max = 1_000_000_000)
    @Option(names = "--messages", defaultValue = "1000000", paramLabel = "N",
        description = "Measured messages of a throughput run, after a quarter as many of warm-up"
            + " (default: ${DEFAULT-VALUE}).")
    long messages;

    @Option(names = "--transport", split = ",", converter = TransportName.class, paramLabel = "NAME[,NAME...]",
        description = "Transports (default: all: peregrine-broadcast, peregrine-broadcast-drop, peregrine-shm,"
            + " aeron-ipc, chronicle-queue).")
    List<String> transports;

    @Option(names = "--stop-reader", description = "Instead of the table: under DROP, reader 0 of the largest --readers"
        + " count is stopped with SIGSTOP half-way; the writer's rate and the other readers' p99 against the same run"
        + " with that reader detaching half-way, their losses, and whether the readers kept up. Unless given, --readers "
        + FanoutTransports.STOP_READER_READERS + ", --rate " + FanoutTransports.STOP_READER_RATE + ", --seconds 10,"
        + " --warmup-seconds 10 and --records wrapping in half the stop.")
    boolean stopReader;

    @Option(names = "--kill-reader", description = "Instead of the table: under BLOCK, reader 0 of the largest"
        + " --readers count is killed with -9 half-way; the time from the signal to its eviction, and that the writer"
        + " resumed and the others lost nothing.")
    boolean killReader;

    @Range(min = 2, max = 1 << 24)
    @Option(names = "--records", paramLabel = "N",
        description = "Records a broadcast log holds, a power of two (default: as many as fill Aeron IPC's producer"
            + " window, half its 4 MiB term: 32768 at 32 B; with --stop-reader a quarter of the measured messages,"
            + " at most " + FanoutTransports.STOP_READER_RECORDS + ": the ring wraps in half the time reader 0 is"
            + " stopped, so it is lapped).")
    Integer records;

    @Range(min = 1, max = 100)
    @Option(names = "--rounds", defaultValue = "3", paramLabel = "N",
        description = "Run every row N times in alternating rounds (each round starts one transport further on);"
            + " the table shows each figure's median over the rounds and the range of the worst p99 or msg/s"
            + " (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--report", converter = Converters.WritableFile.class, paramLabel = "FILE",
        description = "Also write an HTML report: the table and, per size, p50, p99 and throughput against the reader"
            + " count.")
    Path report;

    @Option(names = "--json", converter = Converters.WritableFile.class, paramLabel = "FILE",
        description = "Also write the rows as JSON, with every round's bytes per message on the writer and on each"
            + " reader.")
    Path json;

    @Override
    public void validate() {
        if (records != null && Integer.bitCount(records) != 1) {
            throw Cli.invalid(spec.commandLine(), "--records", "'" + records + "' is not a power of two (e.g. 65536)");
        }
        if ((stopReader || killReader) && mostReaders() < 2) {
            throw Cli.invalid(spec.commandLine(), stopReader ? "--stop-reader" : "--kill-reader",
                "needs a --readers count of 2 or more (reader 0 is played on, the others measured)");
        }
    }

    private int mostReaders() {
        return readers.stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    private List<String> chosenNames() {
        return transports == null || transports.isEmpty() ? FanoutTransports.names() : transports;
    }

    private int logRecords() {
        return records != null ? records : stopReader
            ? FanoutTransports.stopReaderRecords(Math.max(1, (long)(seconds * rate)))
            : FanoutTransports.DEFAULT_RECORDS;
    }

    private boolean given(final String option) {
        final ParseResult parsed = spec.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption(option);
    }

    /** The line that states the stop-reader scenario's set-up before its runs. */
    String stopReaderSetUp() {
        final int most = mostReaders();
        return String.format(Locale.ROOT, "stop-reader: %d readers at %d msg/s for %s s after %s s of warm-up, %d B,"
            + " a DROP log of %d records (%.0f ms at that rate); reader 0 is stopped with SIGSTOP at the half-way"
            + " sequence, or in the reference run detaches there and stays idle; the other %d are measured over the"
            + " same messages in both", most, rate, Double.toString(seconds), Double.toString(warmupSeconds),
            sizes.get(0), logRecords(), logRecords() * 1e3 / rate, most - 1);
    }

    /** {@code --stop-reader}'s own readers, rate and seconds, for those not given: a set-up the readers sustain. */
    void stopReaderDefaults() {
        if (!given("--readers")) {
            readers = List.of(FanoutTransports.STOP_READER_READERS);
        }
        if (!given("--rate")) {
            rate = FanoutTransports.STOP_READER_RATE;
        }
        if (!given("--seconds")) {
            seconds = FanoutTransports.STOP_READER_SECONDS;
        }
        if (!given("--warmup-seconds")) {
            warmupSeconds = FanoutTransports.STOP_READER_WARMUP_SECONDS;
        }
    }

    private static FanoutTransport named(final List<FanoutTransport> all, final String name) {
        return all.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    @Override
    public Integer call() {
        if (stopReader) {
            stopReaderDefaults();
        }
        final List<FanoutTransport> all = FanoutTransports.all(logRecords());
        final List<FanoutTransport> chosen = stopReader || killReader
            ? all.stream().filter(t -> t.name().startsWith("peregrine-broadcast")).toList()
            : chosenNames().stream().filter(n -> !n.equals(FanoutTransports.CHRONICLE))
                .map(n -> named(all, n)).toList();
        final Integer relaunched = Relaunch.ifNeeded(spec,
            chosen.stream().flatMap(t -> t.jvmArguments().stream()).distinct().toList(),
            chosen.stream().filter(t -> !t.jvmArguments().isEmpty()).map(FanoutTransport::name).toList());
        if (relaunched != null) {
            return relaunched;
        }
        final PrintStream out = System.out;
        final List<FanoutResult> results = new ArrayList<>();
        final long latencyWarmup = Math.max(1, (long)(warmupSeconds * rate));
        final long latencyCount = Math.max(1, (long)(seconds * rate));
        if (stopReader || killReader) {
            scenarios(out, results, all, latencyWarmup, latencyCount);
        } else {
            final List<FanoutResult> runs = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                if (rounds > 1) {
                    out.println("round " + round + " of " + rounds);
                }
                final List<FanoutTransport> order = FanoutRounds.rotated(chosen, round);
                for (final int size : sizes) {
                    for (final int count : readers) {
                        for (final FanoutTransport t : order) {
                            if (count <= t.maxReaders()) {
                                runs.add(report(out, FanoutRunner.run(new FanoutRunner.Spec(t, count, size, true,
                                    rate, latencyWarmup, latencyCount, FanoutRunner.Scenario.NONE))));
                            }
                        }
                        for (final FanoutTransport t : order) {
                            if (count <= t.maxReaders() && !t.dropsWhenBehind()) {
                                runs.add(report(out, FanoutRunner.run(new FanoutRunner.Spec(t, count, size, false, 0,
                                    Math.max(1, messages / 4), messages, FanoutRunner.Scenario.NONE))));
                            }
                        }
                    }
                }
            }
            results.addAll(inTableOrder(FanoutRounds.fold(runs), chosen));
        }
        final String chronicle = !stopReader && !killReader && chosenNames().contains(FanoutTransports.CHRONICLE)
            ? FanoutTransports.CHRONICLE_REASON : null;
        final String table = FanoutTable.render(results, rate, chosen, chronicle);
        out.println();
        out.print(table);
        if (report != null) {
            final List<String> args = spec.commandLine().getParseResult() == null ? List.of()
                : spec.commandLine().getParseResult().originalArgs();
            CommonOptions.write(report, FanoutChart.html("./peregrine bench fanout " + String.join(" ", args), table,
                FanoutChart.charts(results)));
            out.println("report: " + report.toAbsolutePath());
        }
        if (json != null) {
            CommonOptions.write(json, FanoutJson.toJson(results));
            out.println("json: " + json.toAbsolutePath());
        }
        return results.stream().anyMatch(FanoutResult::failed) ? 1 : 0;
    }

    /** Rows as one round without rotation makes them: by size, reader count, latency then throughput, transport. */
    private List<FanoutResult> inTableOrder(final List<FanoutResult> rows, final List<FanoutTransport> chosen) {
        final List<String> names = chosen.stream().map(FanoutTransport::name).toList();
        final List<FanoutResult> ordered = new ArrayList<>(rows);
        ordered.sort(java.util.Comparator.<FanoutResult>comparingInt(r -> sizes.indexOf(r.size()))
            .thenComparingInt(r -> readers.indexOf(r.readers()))
            .thenComparing(r -> !r.latency())
            .thenComparingInt(r -> names.indexOf(r.transport())));
        return ordered;
    }

    private void scenarios(final PrintStream out, final List<FanoutResult> results, final List<FanoutTransport> all,
                           final long warmup, final long count) {
        final int most = mostReaders();
        final int size = sizes.get(0);
        if (stopReader) {
            final FanoutTransport drop = named(all, "peregrine-broadcast-drop");
            out.println(stopReaderSetUp());
            final List<FanoutResult> stoppedRuns = new ArrayList<>();
            final List<FanoutResult> detachedRuns = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                if (rounds > 1) {
                    out.println("round " + round + " of " + rounds);
                }
                // alternating which goes first, so a drift of the machine does not always favour the same one
                final boolean stoppedFirst = round % 2 == 1;
                for (int i = 0; i < 2; i++) {
                    if ((i == 0) == stoppedFirst) {
                        stoppedRuns.add(report(out, FanoutRunner.run(new FanoutRunner.Spec(drop, most, size, true,
                            rate, warmup, count, FanoutRunner.Scenario.STOP_READER))));
                    } else {
                        detachedRuns.add(report(out, FanoutRunner.run(new FanoutRunner.Spec(drop, most, size,
                            true, rate, warmup, count, FanoutRunner.Scenario.DETACH_READER))));
                    }
                }
            }
            final FanoutResult stopped = FanoutRounds.fold(stoppedRuns).get(0);
            final FanoutResult detached = FanoutRounds.fold(detachedRuns).get(0);
            results.add(stopped);
            results.add(detached);
            if (!stopped.failed() && !detached.failed()) {
                out.println(FanoutRounds.stopVerdict(stopped, detached, logRecords()));
            }
        }
        if (killReader) {
            final FanoutTransport block = named(all, "peregrine-broadcast");
            final List<FanoutResult> killed = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                if (rounds > 1) {
                    out.println("round " + round + " of " + rounds);
                }
                killed.add(report(out, FanoutRunner.run(new FanoutRunner.Spec(block, most, size, true, rate, warmup,
                    count, FanoutRunner.Scenario.KILL_READER))));
            }
            results.addAll(FanoutRounds.fold(killed));
        }
    }

    private static FanoutResult report(final PrintStream out, final FanoutResult r) {
        out.println(String.format(Locale.ROOT, "  %s %s readers=%d size=%d: %s", r.latency() ? "latency" : "throughput",
            r.transport(), r.readers(), r.size(), r.failed() ? "FAILED: " + r.failure()
                : String.format(Locale.ROOT, "%.0f msg/s%s", r.messagesPerSecond(), r.latency()
                    ? String.format(Locale.ROOT, ", worst p99 %.2f us", r.worst(99) / 1000.0) : ""))
            + (r.allocations().isEmpty() ? "" : "; B/msg " + FanoutTable.perRound(r.allocations())));
        for (final String note : r.notes()) {
            out.println("    " + note);
        }
        out.flush();
        return r;
    }
}
