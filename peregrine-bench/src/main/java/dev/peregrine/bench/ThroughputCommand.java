package dev.peregrine.bench;

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
        + " thread checks every sequence number; messages/s and MB/s per size (transports with a stream mode)."})
public final class ThroughputCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--transport", required = true, split = ",", paramLabel = "NAME[,NAME...]",
        description = "Transports to measure.")
    List<String> transports;

    @Option(names = "--size", split = ",", defaultValue = "32,256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--messages", defaultValue = "2000000", description = "Messages measured (default: ${DEFAULT-VALUE}).")
    long messages;

    @Option(names = "--warmup", defaultValue = "500000", description = "Messages sent first (default: ${DEFAULT-VALUE}).")
    long warmup;

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        final List<BenchTransport> chosen = CommonOptions.transports(transports);
        final Integer relaunched = Relaunch.ifNeeded(spec, chosen);
        if (relaunched != null) {
            return relaunched;
        }
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, false)) {
            run(session, chosen, sizes, messages, warmup, common);
            final List<RunResult> results = session.results();
            out.print(Summary.throughput(results).toText());
            common.writeFiles(results, out);
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    /**
     * Runs the throughput scenario for some transports.
     *
     * @param session the session
     * @param chosen the transports
     * @param sizes message sizes
     * @param messages measured messages
     * @param warmup warm-up messages
     * @param common the common options
     */
    static void run(final BenchSession session, final List<BenchTransport> chosen, final List<Integer> sizes,
                    final long messages, final long warmup, final CommonOptions common) {
        for (final BenchTransport transport : chosen) {
            for (final int size : sizes) {
                if (session.stopping()) {
                    return;
                }
                session.throughput(new RunSpec("throughput", transport, size, messages, warmup, 0, 1, true,
                    common.clientCpu(), common.responderCpu(), common.busySpin(true), common.host).withTimeLimit(30));
            }
        }
    }
}
