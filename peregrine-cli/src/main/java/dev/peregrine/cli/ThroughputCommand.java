package dev.peregrine.cli;

import dev.peregrine.bench.report.JsonResults;
import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.report.Table;
import dev.peregrine.bench.report.ThroughputRows;
import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.run.StreamFloor;
import dev.peregrine.bench.run.ThroughputRunner;
import dev.peregrine.bench.session.BenchSession;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.StreamLoss;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bench throughput}: one-way messages per second and MB/s, every sequence number checked, against the
 * machine's C stream floor ({@value StreamFloor#NAME}) measured in the same run; with {@code --rounds N} the
 * floor and the transports run alternately N times and each row shows its median and range.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true,
    description = {"One-way throughput: a sender offers messages as fast as the transport takes them, a receiver"
        + " (in a second JVM unless --in-process) checks every sequence number; messages/s and MB/s per size over a"
        + " timed window (transports with a stream mode). The sender flushes after every --batch. The C"
        + " stream floor (tcp-stream-c) runs in the same run; with --rounds N the floor and the transports run"
        + " alternately N times and the table shows medians, ranges and the ratio to the floor."})
public final class ThroughputCommand implements Callable<Integer>, Validated {
    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--transport", required = true, split = ",", converter = Converters.TransportName.class,  paramLabel = "NAME[,NAME...]",
        description = "Transports to measure.")
    List<String> transports;

    @Range(min = BenchConfig.MIN_SIZE, max = 1 << 20, note = CommonOptions.IN_FLIGHT_SIZE_NOTE)
    @Option(names = "--size", split = ",", defaultValue = "32,256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--seconds", defaultValue = "2", description = "Measured seconds per run (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Range(max = Range.DAY)
    @Option(names = "--warmup-seconds", defaultValue = "1",
        description = "Warm-up seconds before measuring (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Range(max = RunSpec.MAX_MESSAGES)
    @Option(names = "--warmup", defaultValue = "100000",
        description = "Warm-up messages: at least this many (with --messages: exactly) (default: ${DEFAULT-VALUE}).")
    long warmup;

    @Range(min = 1, max = RunSpec.MAX_MESSAGES)
    @Option(names = "--messages", description = "Measure this many messages instead of --seconds.")
    Long messages;

    @Range(min = 1, max = 1000)
    @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
        description = "Run the C stream floor and every transport alternately N times; the table and JSON show each"
            + " row's median and range (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--batch", paramLabel = "N|SIZE", converter = Converters.BatchValue.class,
        description = "What the sender offers before each flush: N messages, or as many as fill SIZE of payload"
            + " (e.g. 64KiB, 1MiB) (default: 64KiB, so 2048 messages of 32 B and 256 of 256 B; 256 messages"
            + " with --rate).")
    Batch batch;

    @Option(names = "--stream-floor", paramLabel = "CMD", description = "Command for the C stream floor, run as"
        + " 'CMD SIZE SECONDS' and printing one line 'tcp-stream-c size=.. frames/s=.. bytes/s=..' (default:"
        + " ../shared/floor/stream next to the repository, if it exists).")
    String streamFloor;

    @Option(names = "--no-stream-floor", description = "Do not run the C stream floor.")
    boolean noStreamFloor;

    @Range(min = 0, max = 1, maxExclusive = true)
    @Option(names = "--loss", defaultValue = "0", paramLabel = "P",
        description = "Transports with a recovery layer (peregrine-mold): drop this fraction of the publisher's live"
            + " packets, in [0, 1), before they reach the socket (re-request answers are never dropped); the receiver"
            + " still checks every sequence number and the summary adds the recovery latency (default: ${DEFAULT-VALUE}).")
    double loss;

    @Range(max = Range.PER_NANOSECOND)
    @Option(names = "--rate", defaultValue = "0", paramLabel = "R",
        description = "Offer R messages per second, a batch at a time, instead of as fast as the sender takes them"
            + " (a recovering sender answers re-requests while it waits); 0 for no pacing (default: ${DEFAULT-VALUE}).")
    long rate;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
        description = "Seed of the --loss draws, so a run's losses repeat (default: ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public void validate() {
        Cli.exclusive(spec, "--stream-floor", "--no-stream-floor");
        if (messages != null) {
            for (final String timed : List.of("--seconds", "--warmup-seconds")) {
                if (Cli.given(spec, timed)) {
                    throw Cli.invalid(spec.commandLine(), timed, "a run of --messages is counted, not timed (its"
                        + " warm-up is --warmup messages); give --messages or " + timed + ", not both");
                }
            }
        }
        final List<BenchTransport> chosen = CommonOptions.transports(transports);
        if (loss > 0) {
            for (final BenchTransport transport : chosen) {
                if (!(transport instanceof RecoveringStreamTransport)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--loss=" + loss + " needs transports"
                        + " with a recovery layer; " + transport.name() + " has none (use peregrine-mold)");
                }
            }
        }
        unavailable(chosen).refuseIfNoneRuns(spec.commandLine());
    }

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        final List<BenchTransport> chosen = CommonOptions.transports(transports);
        final StreamLoss streamLoss = new StreamLoss(loss, seed);
        final Batch flushEvery = batch != null ? batch : Batch.defaultFor(rate);
        final Integer relaunched = Relaunch.ifNeeded(spec, chosen);
        if (relaunched != null) {
            return relaunched;
        }
        unavailable(chosen).print(out);
        final StreamFloor.Source floorSource = StreamFloor.Source.of(streamFloor, noStreamFloor);
        if (floorSource.command() == null) {
            out.println(StreamFloor.NAME + ": skipped: " + floorSource.absent());
        }
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, false)) {
            final List<StreamFloor.Outcome> floors = new ArrayList<>();
            for (int round = 1; round <= rounds && !session.stopping(); round++) {
                if (rounds > 1) {
                    out.println("round " + round + " of " + rounds);
                }
                for (final int size : sizes) {
                    if (session.stopping()) {
                        break;
                    }
                    floors.add(floor(out, floorSource, size));
                    run(session, chosen, List.of(size), messages, warmup, window(), common, flushEvery, streamLoss,
                        rate);
                }
            }
            final List<RunResult> results = session.results();
            final List<ThroughputRows.Row> rows = ThroughputRows.of(results, floors);
            out.print(Summary.throughput(rows, flushEvery).toText());
            final Table recovery = Summary.recovery(rows);
            if (recovery != null) {
                out.print(recovery.toText());
            }
            common.writeFiles(results, out, JsonResults.throughput(rows, flushEvery));
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    private double floorSeconds() {
        return messages != null ? 2 : seconds;
    }

    private StreamFloor.Outcome floor(final PrintStream out, final StreamFloor.Source source, final int size) {
        if (source.command() == null) {
            return new StreamFloor.Outcome(size, null, null, source.absent());
        }
        final StreamFloor.Outcome outcome = source.run(size, floorSeconds());
        out.println(outcome.result() != null
            ? String.format(java.util.Locale.ROOT, "  %s size=%d: %.0f msg/s (%s)", StreamFloor.NAME, size,
                outcome.result().framesPerSecond(), outcome.command())
            : "  " + StreamFloor.NAME + " size=" + size + ": skipped: " + outcome.skipped());
        out.flush();
        return outcome;
    }

    private ThroughputRunner.Window window() {
        return messages != null ? ThroughputRunner.Window.COUNTED : new ThroughputRunner.Window(warmupSeconds, seconds);
    }

    /**
     * Runs the throughput scenario for some transports.
     *
     * @param session the session
     * @param chosen the transports
     * @param sizes message sizes
     * @param messages measured messages with a counted window, or null for a timed one
     * @param warmup warm-up messages (the least, with a timed window)
     * @param window the warm-up and measured time, or {@link ThroughputRunner.Window#COUNTED}
     * @param common the common options
     */
    static void run(final BenchSession session, final List<BenchTransport> chosen, final List<Integer> sizes,
                    final Long messages, final long warmup, final ThroughputRunner.Window window,
                    final CommonOptions common) {
        run(session, chosen, sizes, messages, warmup, window, common, Batch.DEFAULT);
    }

    /**
     * Runs the throughput scenario for some transports, flushing after every batch.
     *
     * @param session the session
     * @param chosen the transports
     * @param sizes message sizes
     * @param messages measured messages with a counted window, or null for a timed one
     * @param warmup warm-up messages (the least, with a timed window)
     * @param window the warm-up and measured time, or {@link ThroughputRunner.Window#COUNTED}
     * @param common the common options
     * @param batch what the sender offers between two flushes
     */
    static void run(final BenchSession session, final List<BenchTransport> chosen, final List<Integer> sizes,
                    final Long messages, final long warmup, final ThroughputRunner.Window window,
                    final CommonOptions common, final Batch batch) {
        run(session, chosen, sizes, messages, warmup, window, common, batch, StreamLoss.NONE, 0);
    }

    /**
     * Runs the throughput scenario for some transports, flushing after every batch and dropping some
     * of the sender's live packets on transports with a recovery layer.
     *
     * @param session the session
     * @param chosen the transports
     * @param sizes message sizes
     * @param messages measured messages with a counted window, or null for a timed one
     * @param warmup warm-up messages (the least, with a timed window)
     * @param window the warm-up and measured time, or {@link ThroughputRunner.Window#COUNTED}
     * @param common the common options
     * @param batch what the sender offers between two flushes
     * @param loss the simulated loss
     * @param rate messages offered per second, or 0 for as fast as the sender takes them
     */
    static void run(final BenchSession session, final List<BenchTransport> chosen, final List<Integer> sizes,
                    final Long messages, final long warmup, final ThroughputRunner.Window window,
                    final CommonOptions common, final Batch batch, final StreamLoss loss, final long rate) {
        for (final RunSpec run : runs(chosen, sizes, messages, warmup, window, common, rate)) {
            if (session.stopping()) {
                return;
            }
            session.throughput(run, window, batch, loss);
        }
    }

    /**
     * The runs of the throughput scenario for some transports, in the order {@link #run} makes them.
     *
     * @param chosen the transports
     * @param sizes message sizes
     * @param messages measured messages with a counted window, or null for a timed one
     * @param warmup warm-up messages (the least, with a timed window)
     * @param window the warm-up and measured time, or {@link ThroughputRunner.Window#COUNTED}
     * @param common the common options
     * @param rate messages offered per second, or 0 for as fast as the sender takes them
     * @return the runs
     */
    static List<RunSpec> runs(final List<BenchTransport> chosen, final List<Integer> sizes, final Long messages,
                              final long warmup, final ThroughputRunner.Window window, final CommonOptions common,
                              final long rate) {
        // a timed run has no message count; the spec's is then only the largest it could be
        final long count = messages != null ? messages : Integer.MAX_VALUE - 8;
        // the hard limit covers the window and the drain after it
        final double limit = window.seconds() > 0 ? window.warmupSeconds() + window.seconds() + 30 : 30;
        final List<RunSpec> runs = new ArrayList<>();
        for (final BenchTransport transport : chosen) {
            for (final int size : sizes) {
                runs.add(new RunSpec("throughput", transport, size, count, warmup, rate, 1, common.inProcess,
                    common.clientCpu(), common.responderCpu(), common.busySpin(true), common.host).withTimeLimit(limit));
            }
        }
        return runs;
    }

    /** The runs asked for, and why some of them cannot run. */
    private UnavailableRuns unavailable(final List<BenchTransport> chosen) {
        final StreamLoss streamLoss = new StreamLoss(loss, seed);
        return UnavailableRuns.of(runs(chosen, sizes, messages, warmup, window(), common, rate),
            run -> ThroughputRunner.unavailableReason(run, streamLoss));
    }
}
