package dev.peregrine.cli;

import dev.peregrine.bench.report.JsonResults;
import dev.peregrine.bench.report.LatencyTable;
import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.transports.BlockingClients;
import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.FloorRunner;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.session.BenchSession;
import dev.peregrine.bench.transports.LoggedBench;
import dev.peregrine.bench.transports.SeparatedBench;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code bench pingpong}: round-trip latency, one message in flight or at a fixed rate. With {@code --rounds N}
 * the machine's C floor and every transport run N times, alternately, each round starting one transport further
 * on, and the table shows medians ({@link Summary#pingpongRounds}).
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true,
    description = {"Round-trip latency: the responder echoes every message; one message in flight, or with"
        + " --rate a fixed schedule with latency measured from the intended send time (coordinated omission"
        + " corrected). The responder runs in a second JVM unless --in-process. With --reply-size the responder"
        + " answers every message with that many bytes instead of an echo. With --rounds N the C floor"
        + " (--floor, or ../shared/floor/run next to the repository) and every transport run N times,"
        + " alternately, and the table shows medians."})
public final class PingPongCommand implements Callable<Integer>, Validated {
    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Mixin
    FloorOptions floor;

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

    @Range(min = 1, max = 1000)
    @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
        description = "Run the C floor (--floor, or ../shared/floor/run next to the repository; none with"
            + " --no-floor; without rounds only a --floor named) and every transport N times, alternately, each"
            + " round starting one transport further on; the table shows medians over the rounds, the range of each"
            + " p50, and ratios of medians; the JSON every round's run with its round. Two runs of one transport here"
            + " differ by up to a fifth at p50 with where the two processes land on the cores (default:"
            + " ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--stack", split = ",", defaultValue = "shared",
        paramLabel = "shared|separated|separated-sleep|logged[,...]",
        description = "Where the responder's handler runs: shared (on the reactor thread) or separated (on an"
            + " application thread of its own, yielding when idle, through the rings of dev.peregrine.handoff;"
            + " separated-sleep: with fewer than 3 cores it sleeps on a futex that the reactor wakes per event);"
            + " logged: shared, logging every event and message through the async logger first, as echo --log FILE"
            + " --log-messages does. A list measures each in one run, rows named e.g. peregrine-tcp[separated]."
            + " separated: peregrine-tcp and peregrine-shm only; logged: peregrine-tcp only (default: ${DEFAULT-VALUE}).")
    List<String> stacks;

    /** How the client waits for an echo: {@code --client-wait}. */
    enum ClientWait {
        /** Polls: busy-spins, or yields with {@code --no-busy-spin}, as before the option. */
        SPIN,
        /** Sleeps in a blocking select on its socket ({@link BlockingClients}). */
        BLOCK;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Reads {@code spin} or {@code block}, refusing anything else with the accepted values. */
    static final class ClientWaitConverter implements ITypeConverter<ClientWait> {
        ClientWaitConverter() {
        }

        @Override
        public ClientWait convert(final String value) {
            for (final ClientWait wait : ClientWait.values()) {
                if (wait.label().equals(value.trim())) {
                    return wait;
                }
            }
            throw new TypeConversionException("'" + value + "' is not a client wait; use spin (poll: busy-spin, or"
                + " yield with --no-busy-spin) or block (sleep in a blocking select on the socket)");
        }
    }

    @Option(names = "--client-wait", defaultValue = "spin", converter = ClientWaitConverter.class,
        paramLabel = "spin|block",
        description = "How the client waits for each echo: spin (polls: busy-spins, or yields with --no-busy-spin) or"
            + " block (sleeps in a blocking select on its socket, leaving its core to the responder's threads; the"
            + " responder as without it). Every row of the run gets the same client. block: peregrine-tcp and its"
            + " stacks only, one message in flight (default: ${DEFAULT-VALUE}).")
    ClientWait clientWait;

    @Override
    public void validate() {
        for (final String stack : stacks) {
            if (!List.of("shared", "separated", "separated-sleep", "logged").contains(stack)) {
                throw Cli.invalid(spec.commandLine(), "--stack", "'" + stack + "' is not a stack; expected shared,"
                    + " separated, separated-sleep, logged or several, comma-separated");
            }
        }
        if (stacks.contains("separated") || stacks.contains("separated-sleep")) {
            for (final BenchTransport transport : CommonOptions.transports(transports)) {
                if (!SeparatedBench.BASES.contains(transport.name())) {
                    throw Cli.invalid(spec.commandLine(), "--stack", "separated runs with "
                        + String.join(" and ", SeparatedBench.BASES) + " only, not --transport " + transport.name());
                }
            }
        }
        if (stacks.contains("logged")) {
            for (final BenchTransport transport : CommonOptions.transports(transports)) {
                if (!LoggedBench.BASE.equals(transport.name())) {
                    throw Cli.invalid(spec.commandLine(), "--stack", "logged runs with " + LoggedBench.BASE
                        + " only, not --transport " + transport.name());
                }
            }
        }
        if (clientBlocks()) {
            for (final BenchTransport transport : CommonOptions.transports(transports)) {
                if (!(transport instanceof BlockingClients)) {
                    throw Cli.invalid(spec.commandLine(), "--client-wait", "block runs with peregrine-tcp only (a"
                        + " blocking select on its socket), not --transport " + transport.name());
                }
            }
            if (rate > 0) {
                throw Cli.invalid(spec.commandLine(), "--client-wait", "block has one message in flight; not with"
                    + " --rate " + rate);
            }
        }
        unavailable(CommonOptions.transports(transports)).refuseIfNoneRuns(spec.commandLine());
    }

    private boolean clientBlocks() {
        return clientWait == ClientWait.BLOCK;
    }

    /** The client's wait as the heading and the JSON name it: block, or spin or yield as --busy-spin says. */
    private String clientWaitName() {
        return clientBlocks() ? "block" : common.busySpin(true) ? "spin" : "yield";
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
        out.println("client wait: " + clientWaitName() + (clientBlocks() ? " (the client sleeps in a blocking select on"
            + " its socket for each echo; the responder waits as busy-spin says)" : ""));
        if (stacks.contains("separated") || stacks.contains("separated-sleep")) {
            out.println(SeparatedBench.note(common.busySpin(true)));
        }
        if (stacks.contains("logged")) {
            out.println(LoggedBench.NOTE);
        }
        if (rounds > 1) {
            return inRounds(out, chosen);
        }
        // one round runs the floor only when asked by name: a quick look at one transport need not wait for it
        final FloorRunner.Outcome outcome = floor.command == null ? null : floor.run(out, sizes, messages + warmup);
        final List<FloorResult> floors = outcome == null ? List.of() : FloorResult.withoutRepeats(outcome.results());
        if (outcome != null) {
            out.println(floor.note(outcome));
        }
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, true)) {
            for (final RunSpec run : runs(chosen)) {
                if (session.pingpong(run) == null) {
                    break;
                }
            }
            final List<RunResult> results = session.results();
            if (results.size() > 1 || !floors.isEmpty()) {
                out.print(Summary.pingpong(results, floors).toText());
            }
            if ((stacks.contains("separated") || stacks.contains("separated-sleep")) && stacks.contains("shared")) {
                SeparatedBound.print(out, results, sizes);
            }
            common.writeFiles(results, out, JsonResults.toJson(results, null, jsonFields()));
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    /**
     * Every round: the floor, then every transport at every size, the transports one place further on each round.
     * A failed run ends the command, as without rounds.
     */
    private int inRounds(final PrintStream out, final List<BenchTransport> chosen) {
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, true)) {
            final List<List<FloorResult>> floors = new ArrayList<>();
            final List<Integer> roundOf = new ArrayList<>();
            boolean failed = false;
            for (int round = 1; round <= rounds && !failed && !session.stopping(); round++) {
                out.println("round " + round + " of " + rounds);
                final FloorRunner.Outcome outcome = floor.run(out, sizes, messages + warmup);
                out.println(floor.note(outcome));
                if (outcome != null) {
                    floors.add(FloorResult.withoutRepeats(outcome.results()));
                    for (final FloorResult line : floors.get(floors.size() - 1)) {
                        out.println("  " + line.name() + (line.size() < 0 ? "" : " size=" + line.size()) + ": p50 "
                            + LatencyTable.micros(line.p50()) + " us");
                    }
                }
                for (final RunSpec run : runs(LoadCommand.rotated(chosen, round - 1))) {
                    if (session.pingpong(run) == null) {
                        failed = true;
                        break;
                    }
                }
                while (roundOf.size() < session.results().size()) {
                    roundOf.add(round);
                }
            }
            final List<RunResult> results = session.results();
            out.print(Summary.pingpongRounds(results, floors).toText());
            if ((stacks.contains("separated") || stacks.contains("separated-sleep")) && stacks.contains("shared")) {
                SeparatedBound.print(out, results, sizes);
            }
            common.writeFiles(results, out, JsonResults.toJson(results, roundOf, jsonFields()), roundOf);
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    private Map<String, String> jsonFields() {
        return Map.of("client_wait", clientWaitName());
    }

    /** The transports with their stacks: each transport in every stack asked, shared first. */
    private List<BenchTransport> stacked(final List<BenchTransport> chosen) {
        final List<BenchTransport> stacked = new ArrayList<>();
        for (final BenchTransport transport : chosen) {
            if (stacks.contains("shared")) {
                stacked.add(transport);
            }
            if (stacks.contains("separated")) {
                stacked.add(SeparatedBench.of(transport));
            }
            if (stacks.contains("separated-sleep")) {
                stacked.add(SeparatedBench.sleeping(transport));
            }
            if (stacks.contains("logged")) {
                stacked.add(LoggedBench.of(transport));
            }
        }
        return stacked;
    }

    /** The runs asked for: every size of every transport in every stack, in that order. */
    private List<RunSpec> runs(final List<BenchTransport> chosen) {
        final List<RunSpec> runs = new ArrayList<>();
        for (final BenchTransport transport : stacked(chosen)) {
            for (final int size : sizes) {
                runs.add(new RunSpec("pingpong", transport, size, messages, warmup, rate, 1, common.inProcess,
                    common.clientCpu(), common.responderCpu(), common.busySpin(true), common.host)
                    .withTimeLimit(timeLimit).withReplySize(replySize == null ? size : replySize)
                    .withClientBlocks(clientBlocks()));
            }
        }
        return runs;
    }

    private UnavailableRuns unavailable(final List<BenchTransport> chosen) {
        return UnavailableRuns.of(runs(chosen), BenchRunner::unavailableReason);
    }
}
