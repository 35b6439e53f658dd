package dev.peregrine.bench.cli;

import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.run.BenchSession;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
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
 * {@code bench pingpong}: round-trip latency, one message in flight or at a fixed rate.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true,
    description = {"Round-trip latency: the responder echoes every message; one message in flight, or with"
        + " --rate a fixed schedule with latency measured from the intended send time (coordinated omission"
        + " corrected). The responder runs in a second JVM unless --in-process. With --reply-size the responder"
        + " answers every message with that many bytes instead of an echo."})
public final class PingPongCommand implements Callable<Integer>, Validated {
    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--transport", required = true, split = ",", converter = Converters.TransportName.class,  paramLabel = "NAME[,NAME...]",
        description = "Transports to measure, e.g. tcp,socket,nio.")
    List<String> transports;

    @Range(min = BenchConfig.MIN_PINGPONG_SIZE, max = 1 << 20)
    @Option(names = "--size", split = ",", defaultValue = "32,256", description = "Message sizes in bytes, from 4: below"
        + " 8 a message carries its sequence's low 32 bits, and the client keeps each send time itself (default:"
        + " ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = BenchConfig.MIN_PINGPONG_SIZE, max = BenchConfig.MAX_SIZE)
    @Option(names = "--reply-size", paramLabel = "N",
        description = "Bytes of each responder's answer, from 4, starting with the message's sequence (8 bytes, or"
            + " 4 when the message or the answer is shorter than 8) (default: the message's size, an echo).")
    Integer replySize;

    @Range(min = 1, max = RunSpec.MAX_MESSAGES)
    @Option(names = "--messages", defaultValue = "1000000", description = "Messages measured (default: ${DEFAULT-VALUE}).")
    long messages;

    @Range(max = RunSpec.MAX_MESSAGES)
    @Option(names = "--warmup", defaultValue = "200000", description = "Messages sent first, not measured (default: ${DEFAULT-VALUE}).")
    long warmup;

    @Range(max = Range.PER_NANOSECOND, note = "0 for one message in flight")
    @Option(names = "--rate", defaultValue = "0", description = "Messages per second on a fixed schedule; 0 for one in flight.")
    long rate;

    @Range(max = Range.DAY, note = "0 for none")
    @Option(names = "--time-limit", defaultValue = "0", paramLabel = "SECONDS",
        description = "End a measurement after this long with what it measured, marked partial; 0 for none.")
    double timeLimit;

    @Override
    public void validate() {
        unavailable(CommonOptions.transports(transports)).refuseIfNoneRuns(spec.commandLine());
    }

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        final List<BenchTransport> chosen = CommonOptions.transports(transports);
        final Integer relaunched = Relaunch.ifNeeded(spec, chosen);
        if (relaunched != null) {
            return relaunched;
        }
        unavailable(chosen).print(out);
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, true)) {
            for (final RunSpec run : runs(chosen)) {
                if (session.pingpong(run) == null) {
                    break;
                }
            }
            final List<RunResult> results = session.results();
            if (results.size() > 1) {
                out.print(Summary.pingpong(results, List.of()).toText());
            }
            common.writeFiles(results, out);
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    /** The runs asked for: every size of every transport, in that order. */
    private List<RunSpec> runs(final List<BenchTransport> chosen) {
        final List<RunSpec> runs = new ArrayList<>();
        for (final BenchTransport transport : chosen) {
            for (final int size : sizes) {
                runs.add(new RunSpec("pingpong", transport, size, messages, warmup, rate, 1, common.inProcess,
                    common.clientCpu(), common.responderCpu(), common.busySpin(true), common.host)
                    .withTimeLimit(timeLimit).withReplySize(replySize == null ? size : replySize));
            }
        }
        return runs;
    }

    private UnavailableRuns unavailable(final List<BenchTransport> chosen) {
        return UnavailableRuns.of(runs(chosen), BenchRunner::unavailableReason);
    }
}
