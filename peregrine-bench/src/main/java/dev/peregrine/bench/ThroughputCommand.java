package dev.peregrine.bench;

import dev.peregrine.bench.cli.Converters;
import dev.peregrine.bench.cli.Range;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bench throughput}: one-way messages per second and MB/s, every sequence number checked.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true,
    description = {"One-way throughput: a sender offers messages as fast as the transport takes them, a receiver"
        + " (in a second JVM unless --in-process) checks every sequence number; messages/s and MB/s per size over a"
        + " timed window (transports with a stream mode)."})
public final class ThroughputCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--transport", required = true, split = ",", converter = Converters.TransportName.class,  paramLabel = "NAME[,NAME...]",
        description = "Transports to measure.")
    List<String> transports;

    @Range(min = BenchConfig.MIN_SIZE, max = 1 << 20)
    @Option(names = "--size", split = ",", defaultValue = "32,256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--seconds", defaultValue = "2", description = "Measured seconds per run (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Range(max = Range.DAY)
    @Option(names = "--warmup-seconds", defaultValue = "1",
        description = "Warm-up seconds before measuring (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--warmup", defaultValue = "100000",
        description = "Warm-up messages: at least this many (with --messages: exactly) (default: ${DEFAULT-VALUE}).")
    long warmup;

    @Range(min = 1)
    @Option(names = "--messages", description = "Measure this many messages instead of --seconds.")
    Long messages;

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        final List<BenchTransport> chosen = CommonOptions.transports(transports);
        final Integer relaunched = Relaunch.ifNeeded(spec, chosen);
        if (relaunched != null) {
            return relaunched;
        }
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, false)) {
            run(session, chosen, sizes, messages, warmup, window(), common);
            final List<RunResult> results = session.results();
            out.print(Summary.throughput(results).toText());
            common.writeFiles(results, out);
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
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
        // a timed run has no message count; the spec's is then only the largest it could be
        final long count = messages != null ? messages : Integer.MAX_VALUE - 8;
        // the hard limit covers the window and the drain after it
        final double limit = window.seconds() > 0 ? window.warmupSeconds() + window.seconds() + 30 : 30;
        for (final BenchTransport transport : chosen) {
            for (final int size : sizes) {
                if (session.stopping()) {
                    return;
                }
                session.throughput(new RunSpec("throughput", transport, size, count, warmup, 0, 1, common.inProcess,
                    common.clientCpu(), common.responderCpu(), common.busySpin(true), common.host).withTimeLimit(limit),
                    window);
            }
        }
    }
}
