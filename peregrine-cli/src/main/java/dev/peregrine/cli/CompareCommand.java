package dev.peregrine.cli;

import dev.peregrine.bench.report.HtmlReport;
import dev.peregrine.bench.report.LatencyTable;
import dev.peregrine.bench.report.MachineInfo;
import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.report.Table;
import dev.peregrine.bench.report.ThroughputRows;
import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.run.Failures;
import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.FloorRunner;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.run.StreamFloor;
import dev.peregrine.bench.run.ThroughputRunner;
import dev.peregrine.bench.session.BenchSession;
import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.StreamLoss;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code bench compare}: the main job. Ping-pong for every transport found (and with {@code --full} load and
 * throughput), one summary table grouped by path with ratios to the best peer and to the machine's floor,
 * and a self-contained HTML report.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = {"Every transport against the peers in one run: ping-pong at each size (with --full also load"
        + " and throughput), a summary table grouped by path, and an HTML report."})
public final class CompareCommand implements Callable<Integer>, Validated {
    /** Warm-up seconds of each load run of {@code --full}. */
    private static final double LOAD_WARMUP_SECONDS = 1;
    /** The options of the runs that only {@code --full} adds. */
    private static final List<String> FULL_ONLY = List.of("--clients", "--rates", "--load-seconds", "--load-size",
        "--throughput-seconds");

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--transport", split = ",", converter = Converters.TransportName.class,  paramLabel = "NAME[,NAME...]",
        description = "Only these transports (default: every transport found).")
    List<String> transports = new ArrayList<>();

    @Range(min = BenchConfig.MIN_SIZE, max = 1 << 20, note = CommonOptions.IN_FLIGHT_SIZE_NOTE)
    @Option(names = "--size", split = ",", defaultValue = "32,256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = 1, max = RunSpec.MAX_MESSAGES)
    @Option(names = "--messages", defaultValue = "100000", description = "Ping-pong messages measured per transport and size (default: ${DEFAULT-VALUE}).")
    long messages;

    @Range(max = RunSpec.MAX_MESSAGES)
    @Option(names = "--warmup", defaultValue = "20000", description = "Ping-pong warm-up messages (default: ${DEFAULT-VALUE}).")
    long warmup;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--time-limit", defaultValue = "30", paramLabel = "SECONDS",
        description = "Longest measurement per ping-pong run; a slower transport is cut short and marked partial"
            + " (default: ${DEFAULT-VALUE}).")
    double timeLimit;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--budget", defaultValue = "480", paramLabel = "SECONDS",
        description = "Time for the floor and all ping-pong runs together; each run's limit shrinks to fit it"
            + " (default: ${DEFAULT-VALUE}).")
    double budget;

    @Option(names = "--full", description = "Also run load and throughput.")
    boolean full;

    @Range(min = 1, max = LoadCommand.MAX_CLIENTS)
    @Option(names = "--clients", defaultValue = "5", description = "Load: concurrent clients (default: ${DEFAULT-VALUE}).")
    int clients;

    @Range(min = 1, max = Range.PER_NANOSECOND)
    @Option(names = "--rates", split = ",", defaultValue = "1000,10000,25000,50000,100000",
        description = "Load: messages per second per client (default: ${DEFAULT-VALUE}).")
    List<Long> rates;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--load-seconds", defaultValue = "2", description = "Load: measured seconds per rate (default: ${DEFAULT-VALUE}).")
    double loadSeconds;

    @Range(min = BenchConfig.MIN_SIZE, max = 1 << 20, note = CommonOptions.IN_FLIGHT_SIZE_NOTE)
    @Option(names = "--load-size", defaultValue = "256", description = "Load: message size (default: ${DEFAULT-VALUE}).")
    int loadSize;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--throughput-seconds", defaultValue = "2",
        description = "Throughput: measured seconds per run, after 1 s of warm-up (default: ${DEFAULT-VALUE}).")
    double throughputSeconds;

    @Option(names = "--report", defaultValue = "report.html", converter = Converters.WritableFile.class, paramLabel = "FILE", description = "The HTML report (default: ${DEFAULT-VALUE}).")
    Path report;

    @Mixin
    FloorOptions floor;

    @Override
    public void validate() {
        if (full) {
            LoadCommand.checkRates(spec.commandLine(), rates, loadSeconds, LOAD_WARMUP_SECONDS, "--load-seconds");
        }
        for (final String option : FULL_ONLY) {
            if (!full && Cli.given(spec, option)) {
                throw Cli.invalid(spec.commandLine(), option, option + " sets the load or throughput runs, which only"
                    + " --full adds; add --full, or leave " + option + " out");
            }
        }
        unavailable(CommonOptions.transports(transports)).refuseIfNoneRuns(spec.commandLine());
    }

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        final Instant started = Instant.now();
        final long startNs = System.nanoTime();
        final List<BenchTransport> chosen = CommonOptions.transports(transports);
        final Integer relaunched = Relaunch.ifNeeded(spec, chosen);
        if (relaunched != null) {
            return relaunched;
        }
        final List<HtmlReport.TransportInfo> infos = new ArrayList<>();
        out.println("peregrine bench compare: " + chosen.size() + " transport(s) found: "
            + String.join(", ", chosen.stream().map(BenchTransport::name).toList()));
        for (final BenchTransport transport : chosen) {
            final String why = unavailable(transport);
            final String jvm = transport.jvmArguments().isEmpty() ? ""
                : " [JVM options: " + String.join(" ", transport.jvmArguments()) + "]";
            infos.add(new HtmlReport.TransportInfo(transport.name(), transport.path(), Transports.isPeregrine(transport),
                transport.description() + jvm, why));
        }
        unavailable(chosen).print(out);
        final FloorRunner.Outcome floorOutcome = floor.run(out, sizes, messages + warmup);
        final List<FloorResult> floors = floorOutcome == null ? List.of()
            : FloorResult.withoutRepeats(floorOutcome.results());
        final String floorNote = floor.note(floorOutcome);
        out.println(floorNote);
        final List<StreamFloor.Outcome> streamFloors = new ArrayList<>();
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, false)) {
            int runsLeft = sizes.size() * chosen.size();
            for (final int size : sizes) {
                for (final BenchTransport transport : chosen) {
                    if (session.stopping()) {
                        break;
                    }
                    final double left = budget - (System.nanoTime() - startNs) / 1e9;
                    // a run may take its limit, half of it again for warm-up, and a few seconds to start
                    final double limit = Math.max(2, Math.min(timeLimit, (left / runsLeft - 3) / 1.5));
                    runsLeft--;
                    final RunResult result = session.pingpong(new RunSpec("pingpong", transport, size, messages, warmup,
                        0, 1, common.inProcess, common.clientCpu(), common.responderCpu(), common.busySpin(true),
                        common.host).withTimeLimit(limit));
                    if (result != null) {
                        out.println(oneLine(result));
                    }
                }
            }
            if (full && !session.stopping()) {
                LoadCommand.run(session, chosen, List.of(loadSize), clients, rates, loadSeconds, LOAD_WARMUP_SECONDS,
                    LoadCommand.Topology.SHARED, 1, common);
                streamFloors.addAll(streamFloors(out));
                ThroughputCommand.run(session, chosen, sizes, null, 100_000,
                    new ThroughputRunner.Window(1, throughputSeconds), common);
            }
            final List<RunResult> results = session.results();
            final List<ThroughputRows.Row> throughputRows = ThroughputRows.of(results, streamFloors);
            final List<Table> tables = new ArrayList<>();
            tables.add(Summary.pingpong(results, floors));
            if (full) {
                tables.add(Summary.load(results).note(LoadCommand.topologyNote(LoadCommand.Topology.SHARED, clients)));
                tables.add(Summary.throughput(throughputRows, Batch.DEFAULT));
            }
            out.println();
            for (final Table table : tables) {
                out.print(table.toText());
                out.println();
            }
            final Duration took = Duration.between(started, Instant.now());
            final List<String> notes = new ArrayList<>();
            notes.add("Started " + started + ", took " + took.toSeconds() + " s."
                + (session.stopping() ? " Interrupted (Ctrl-C): the results are partial." : ""));
            notes.add("Latency is the round trip measured by the client (the '~ one way' column of the detailed tables"
                + " is half of it). Pingpong has one message in flight; load runs are corrected for coordinated"
                + " omission (latency from the intended send time).");
            final HtmlReport.Data data = new HtmlReport.Data(commandLine(), options(), MachineInfo.describe(), infos,
                results, tables, floors, floorNote, notes, throughputRows);
            CommonOptions.write(report, HtmlReport.render(data));
            out.println("report: " + report.toAbsolutePath() + " (took " + took.toSeconds() + " s)");
            common.writeFiles(results, out);
            // a run that failed is an error a script must see; UNAVAILABLE (a transport that cannot run here, its
            // reason said) and PARTIAL (a peer that could not keep up, a time limit) are what comparing measures
            return results.stream().anyMatch(r -> r.status() == RunResult.Status.FAILED) ? 1 : 0;
        }
    }

    /** The C stream floor of each size, so that the throughput table and chart have their reference. */
    private List<StreamFloor.Outcome> streamFloors(final PrintStream out) {
        final List<StreamFloor.Outcome> outcomes = new ArrayList<>();
        final StreamFloor.Source source = floor.off ? new StreamFloor.Source(null, "not run (--no-floor)")
            : StreamFloor.Source.of(null, false);
        for (final int size : sizes) {
            final StreamFloor.Outcome outcome = source.run(size, throughputSeconds);
            out.println(outcome.result() != null
                ? String.format(java.util.Locale.ROOT, "%s size=%d: %.0f msg/s", StreamFloor.NAME, size,
                    outcome.result().framesPerSecond())
                : StreamFloor.NAME + " size=" + size + ": skipped: " + outcome.skipped());
            outcomes.add(outcome);
        }
        return outcomes;
    }

    /**
     * The runs asked for, and why some of them cannot run: the ping-pong of every transport and size, and with
     * {@code --full} the load and throughput runs (their time limits aside, as the runs make them).
     */
    private UnavailableRuns unavailable(final List<BenchTransport> chosen) {
        final List<RunSpec> runs = new ArrayList<>();
        for (final int size : sizes) {
            for (final BenchTransport transport : chosen) {
                runs.add(new RunSpec("pingpong", transport, size, messages, warmup, 0, 1, common.inProcess,
                    common.clientCpu(), common.responderCpu(), common.busySpin(true), common.host).withTimeLimit(timeLimit));
            }
        }
        if (full) {
            runs.addAll(LoadCommand.runs(chosen, List.of(loadSize), clients, rates, loadSeconds, LOAD_WARMUP_SECONDS,
                LoadCommand.Topology.SHARED, 1, common));
            runs.addAll(ThroughputCommand.runs(chosen, sizes, null, 100_000,
                new ThroughputRunner.Window(1, throughputSeconds), common, 0));
        }
        return UnavailableRuns.of(runs, run -> "throughput".equals(run.scenario())
            ? ThroughputRunner.unavailableReason(run, StreamLoss.NONE) : BenchRunner.unavailableReason(run));
    }

    private String unavailable(final BenchTransport transport) {
        try {
            return transport.unavailableReason(new BenchConfig(common.host, 40000, sizes.get(0),
                Path.of(System.getProperty("java.io.tmpdir")), common.busySpin(true)));
        } catch (final RuntimeException | LinkageError ex) {
            return "its availability check failed: " + Failures.oneLine(ex);
        }
    }

    private static String oneLine(final RunResult r) {
        if (!r.hasLatency()) {
            return "  " + r.label() + ": " + r.status() + ": " + r.note();
        }
        return "  " + r.label() + ": p50 " + LatencyTable.micros(r.rtt().getValueAtPercentile(50)) + " us, p99 "
            + LatencyTable.micros(r.rtt().getValueAtPercentile(99)) + " us, max "
            + LatencyTable.micros(r.rtt().getMaxValue()) + " us round trip"
            + (r.status() == RunResult.Status.OK ? "" : " (" + r.status() + ": " + r.note() + ")");
    }

    private String commandLine() {
        final List<String> args = spec.commandLine().getParseResult() == null ? List.of()
            : rootArgs();
        return "./peregrine " + String.join(" ", args.stream().map(CompareCommand::quote).toList());
    }

    private List<String> rootArgs() {
        picocli.CommandLine root = spec.commandLine();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        return root.getParseResult().originalArgs();
    }

    private static String quote(final String arg) {
        return arg.matches("[A-Za-z0-9_./=,:+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    private Map<String, String> options() {
        final Map<String, String> options = common.describe();
        options.put("transports", transports.isEmpty() ? "all found" : String.join(",", transports));
        options.put("sizes", sizes.toString());
        options.put("pingpong messages / warm-up", messages + " / " + warmup);
        options.put("pingpong time limit per run / budget", timeLimit + " s / " + budget + " s");
        options.put("full (load + throughput)", Boolean.toString(full));
        if (full) {
            options.put("load", clients + " clients on one thread against one responder thread, rates " + rates
                + " msg/s per client, " + loadSeconds + " s each (+1 s warm-up), size " + loadSize);
            options.put("throughput", "1 s warm-up, " + throughputSeconds + " s measured per run");
        }
        options.put("report", report.toAbsolutePath().toString());
        options.put("floor", floor.describe());
        return options;
    }
}
