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
 * {@code bench load}: Chronicle's scenario, several clients each at a fixed rate, one row per rate.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
    description = {"Latency under load (Chronicle's scenario): N clients, each with its own responder, send at a"
        + " fixed rate; latency from the intended send time (coordinated omission corrected); one row per rate."})
public final class LoadCommand implements Callable<Integer> {
    /** Each client has its own responder and ports: a few hundred is already far past what a machine serves well. */
    static final int MAX_CLIENTS = 1000;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--transport", required = true, split = ",", converter = Converters.TransportName.class,  paramLabel = "NAME[,NAME...]",
        description = "Transports to measure.")
    List<String> transports;

    @Range(min = BenchConfig.MIN_SIZE, max = 1 << 20)
    @Option(names = "--size", split = ",", defaultValue = "256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = 1, max = MAX_CLIENTS)
    @Option(names = "--clients", defaultValue = "5", description = "Concurrent clients (default: ${DEFAULT-VALUE}).")
    int clients;

    @Range(min = 1)
    @Option(names = "--rates", split = ",", defaultValue = "1000,10000,25000,50000,100000",
        description = "Messages per second per client (default: ${DEFAULT-VALUE}).")
    List<Long> rates;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--seconds", defaultValue = "5", description = "Measured seconds per rate (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Range(max = Range.DAY)
    @Option(names = "--warmup-seconds", defaultValue = "2", description = "Warm-up seconds per rate (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        final List<BenchTransport> chosen = CommonOptions.transports(transports);
        final Integer relaunched = Relaunch.ifNeeded(spec, chosen);
        if (relaunched != null) {
            return relaunched;
        }
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, false)) {
            run(session, chosen, sizes, clients, rates, seconds, warmupSeconds, common);
            final List<RunResult> results = session.results();
            out.print(Summary.load(results).toText());
            common.writeFiles(results, out);
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    /**
     * Runs the load scenario for some transports.
     *
     * @param session the session
     * @param chosen the transports
     * @param sizes message sizes
     * @param clients clients per run
     * @param rates rates per client
     * @param seconds measured seconds per rate
     * @param warmupSeconds warm-up seconds per rate
     * @param common the common options
     */
    static void run(final BenchSession session, final List<BenchTransport> chosen, final List<Integer> sizes,
                    final int clients, final List<Long> rates, final double seconds, final double warmupSeconds,
                    final CommonOptions common) {
        final boolean spinByDefault = 2 * clients <= Runtime.getRuntime().availableProcessors();
        for (final BenchTransport transport : chosen) {
            for (final int size : sizes) {
                for (final long rate : rates) {
                    if (session.stopping()) {
                        return;
                    }
                    final long messages = Math.max(1, (long)(rate * seconds));
                    final long warmup = (long)(rate * warmupSeconds);
                    session.pingpong(new RunSpec("load", transport, size, messages, warmup, rate, clients,
                        common.inProcess, -1, common.responderCpu(), common.busySpin(spinByDefault), common.host)
                        .withTimeLimit(3 * seconds + 5)); // a transport that cannot keep up ends early, marked partial
                }
            }
        }
    }
}
