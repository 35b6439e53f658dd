package dev.peregrine.cli;

import dev.peregrine.bench.report.JsonResults;
import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.session.BenchSession;
import dev.peregrine.bench.transports.LossyLoadTransport;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.StreamLoss;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bench load}: Chronicle's scenario, several clients each at a fixed rate, one row per rate. By default
 * ({@code --topology shared}) the clients run on one thread against one responder thread that serves every
 * connection; {@code --topology per-client} gives each client a thread and a responder of its own. With
 * {@code --rounds N} every transport runs N times, alternately, and each row shows its medians
 * ({@link dev.peregrine.bench.report.RoundRows}).
 */
@Command(name = "load", mixinStandardHelpOptions = true,
    description = {"Latency under load (Chronicle's scenario): N clients, each at a fixed rate on its own schedule,"
        + " against one responder; latency from the intended send time (coordinated omission corrected), a"
        + " histogram per client, added up per row; one row per rate. A run whose clients sustained less than 95%% of"
        + " the rate offered is ok with the note \"could not keep up\" and the rate sustained (partial with"
        + " --respond-every).",
        "",
        "Topology shared (the default): one client thread drives all N clients (one reactor for Peregrine) and one"
            + " responder thread serves all N connections (Peregrine TCP: one reactor; Netty: one event loop; NIO:"
            + " one selector loop; Aeron: one thread polling every session; Peregrine UDP: one endpoint answering every"
            + " client by its address; Peregrine shared memory: one reactor polling every client's rings; MoldUDP64:"
            + " one thread following every client's session and echoing on a session of its own to each, with its request"
            + " server; java.net.Socket: a thread per connection, which blocking sockets need). That is two threads, so on"
            + " two cores both may busy-spin. A transport without such a responder is reported unavailable"
            + " (peregrine-shm-futex: one thread cannot sleep on several rings' futex words).",
        "Topology per-client: each client has a thread and a responder of its own (2N threads: with more threads"
            + " than cores this measures the scheduler as much as the transport)."})
public final class LoadCommand implements Callable<Integer>, Validated {
    /** A few hundred clients is already far past what a machine serves well. */
    static final int MAX_CLIENTS = 1000;

    /** How the clients and responders are laid out on threads. */
    enum Topology {
        /** One client thread for every client, one responder serving every connection. */
        SHARED("shared"),
        /** A client thread and a responder per client. */
        PER_CLIENT("per-client");

        final String label;

        Topology(final String label) {
            this.label = label;
        }
    }

    /** Accepts {@code shared} or {@code per-client}. */
    static final class TopologyConverter implements ITypeConverter<Topology> {
        TopologyConverter() {
        }

        @Override
        public Topology convert(final String value) {
            for (final Topology topology : Topology.values()) {
                if (topology.label.equals(value.trim())) {
                    return topology;
                }
            }
            throw new TypeConversionException("'" + value + "' is not a topology; use shared (one client thread, one"
                + " responder for all clients) or per-client (a client thread and a responder per client)");
        }
    }

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--transport", required = true, split = ",", converter = Converters.TransportName.class,  paramLabel = "NAME[,NAME...]",
        description = "Transports to measure.")
    List<String> transports;

    @Range(min = BenchConfig.MIN_SIZE, max = 1 << 20, note = CommonOptions.IN_FLIGHT_SIZE_NOTE)
    @Option(names = "--size", split = ",", defaultValue = "256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = 1, max = MAX_CLIENTS)
    @Option(names = "--clients", defaultValue = "5", description = "Concurrent clients (default: ${DEFAULT-VALUE}).")
    int clients;

    @Range(min = 1, max = Range.PER_NANOSECOND)
    @Option(names = "--rates", split = ",", defaultValue = "1000,10000,25000,50000,100000",
        description = "Messages per second per client (default: ${DEFAULT-VALUE}).")
    List<Long> rates;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--seconds", defaultValue = "5", description = "Measured seconds per rate (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Range(max = Range.DAY)
    @Option(names = "--warmup-seconds", defaultValue = "2", description = "Warm-up seconds per rate (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--topology", defaultValue = "shared", converter = TopologyConverter.class, paramLabel = "shared|per-client",
        description = "shared: one client thread for all clients, one responder thread serving every connection"
            + " (two threads); per-client: a client thread and a responder per client (default: ${DEFAULT-VALUE}).")
    Topology topology;

    @Range(min = 0, max = 1, maxExclusive = true)
    @Option(names = "--loss", defaultValue = "0", paramLabel = "P",
        description = "Transports with a recovery layer (peregrine-mold): each client's publisher drops this fraction"
            + " of its live packets, in [0, 1), before they reach the socket; the responder recovers them from the"
            + " client's request server, and every message must still be echoed exactly once, in order (default:"
            + " ${DEFAULT-VALUE}).")
    double loss;

    @Range(min = 1, max = Integer.MAX_VALUE)
    @Option(names = "--respond-every", defaultValue = "1", paramLabel = "N",
        description = "AsyncTCP's high-rate scenario: each client sends every message at its rate, the responder answers"
            + " only every Nth (message numbers 0, N, 2N, ...), and latency is taken on the answered ones from their"
            + " intended send time; the rate each client sustained is shown beside the rate offered, and a run that"
            + " sustained less than 95%% of it is reported partial. Transports: peregrine-tcp, netty, nio, socket; with"
            + " --topology shared only (default: ${DEFAULT-VALUE}, every message).")
    int respondEvery;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
        description = "Seed of the --loss draws: client k draws from S + k, so a run's losses repeat (default:"
            + " ${DEFAULT-VALUE}).")
    long seed;

    @Range(min = 1, max = 1000)
    @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
        description = "Run every transport at every rate N times, alternately (one transport's rates, then the next"
            + " transport's, and again, each round starting one transport further on); the table shows each row's"
            + " medians over the rounds and the range of its p99, the JSON every round's run with its round"
            + " (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Override
    public void validate() {
        if (respondEvery > 1 && topology == Topology.PER_CLIENT && clients > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--respond-every=" + respondEvery + " runs"
                + " its clients on one thread: use --topology shared (the default), or --clients 1");
        }
        checkRates(spec.commandLine(), rates, seconds, warmupSeconds, "--seconds/--warmup-seconds");
        unavailable(withLoss(CommonOptions.transports(transports))).refuseIfNoneRuns(spec.commandLine());
    }

    /**
     * Refuses a rate whose run would hold more messages than a run counts (in an int): before anything runs, not
     * after the runs at other rates.
     *
     * @param commandLine the command
     * @param rates messages per second per client
     * @param seconds measured seconds per rate
     * @param warmupSeconds warm-up seconds per rate
     * @param durations the options that set the seconds, for the message
     */
    static void checkRates(final CommandLine commandLine, final List<Long> rates, final double seconds,
                           final double warmupSeconds, final String durations) {
        final double longest = Math.max(seconds, warmupSeconds);
        for (final long rate : rates) {
            if (rate * longest > RunSpec.MAX_MESSAGES) {
                throw Cli.invalid(commandLine, "--rates", rate + " messages per second for " + longest + " s is more"
                    + " than a run holds (" + RunSpec.MAX_MESSAGES + " messages); lower the rate or " + durations);
            }
        }
    }

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        final List<BenchTransport> named = CommonOptions.transports(transports);
        final List<BenchTransport> chosen = withLoss(named); // a wrong --loss is answered before anything starts
        final Integer relaunched = Relaunch.ifNeeded(spec, named);
        if (relaunched != null) {
            return relaunched;
        }
        unavailable(chosen).print(out);
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, false)) {
            out.println(topologyNote(topology, clients));
            final List<Integer> roundOf = new ArrayList<>();
            for (int round = 1; round <= rounds && !session.stopping(); round++) {
                if (rounds > 1) {
                    out.println("round " + round + " of " + rounds);
                }
                run(session, rotated(chosen, round - 1), sizes, clients, rates, seconds, warmupSeconds, topology,
                    respondEvery, common);
                while (roundOf.size() < session.results().size()) {
                    roundOf.add(round);
                }
            }
            for (final BenchTransport transport : chosen) {
                if (transport instanceof LossyLoadTransport lossy) {
                    out.println("--loss " + loss + " --seed " + seed + ": the " + transport.name() + " clients dropped "
                        + lossy.dropped() + " of their packets; the responder recovered them");
                }
            }
            final List<RunResult> results = session.results();
            out.print(Summary.load(results).note(topologyNote(topology, clients)).toText());
            if (rounds > 1) {
                common.writeFiles(results, out, JsonResults.toJson(results, roundOf), roundOf);
            } else {
                common.writeFiles(results, out);
            }
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    /**
     * The transports as {@code --loss} runs them: each wrapped so that its clients drop packets, or as they are
     * without loss.
     *
     * @throws CommandLine.ParameterException if a transport cannot drop a client's packets
     */
    private List<BenchTransport> withLoss(final List<BenchTransport> named) {
        if (loss == 0) {
            return named;
        }
        final List<BenchTransport> wrapped = new ArrayList<>();
        for (final BenchTransport transport : named) {
            if (!(transport instanceof RecoveringStreamTransport recovering) || !recovering.supportsPingLoss()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--loss=" + loss + " needs transports"
                    + " whose clients can drop packets that a recovery layer brings back; " + transport.name()
                    + " has none (use peregrine-mold)");
            }
            wrapped.add(new LossyLoadTransport(recovering, new StreamLoss(loss, seed)));
        }
        return wrapped;
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
     * @param topology how clients and responders are laid out on threads
     * @param respondEvery the responder answers every Nth message; 1 for all
     * @param common the common options
     */
    static void run(final BenchSession session, final List<BenchTransport> chosen, final List<Integer> sizes,
                    final int clients, final List<Long> rates, final double seconds, final double warmupSeconds,
                    final Topology topology, final int respondEvery, final CommonOptions common) {
        for (final RunSpec run : runs(chosen, sizes, clients, rates, seconds, warmupSeconds, topology, respondEvery, common)) {
            if (session.stopping()) {
                return;
            }
            session.pingpong(run);
        }
    }

    /**
     * The runs of the load scenario for some transports, in the order {@link #run} makes them.
     *
     * @param chosen the transports
     * @param sizes message sizes
     * @param clients clients per run
     * @param rates rates per client
     * @param seconds measured seconds per rate
     * @param warmupSeconds warm-up seconds per rate
     * @param topology how clients and responders are laid out on threads
     * @param respondEvery the responder answers every Nth message; 1 for all
     * @param common the common options
     * @return the runs
     */
    static List<RunSpec> runs(final List<BenchTransport> chosen, final List<Integer> sizes, final int clients,
                              final List<Long> rates, final double seconds, final double warmupSeconds,
                              final Topology topology, final int respondEvery, final CommonOptions common) {
        final boolean shared = topology == Topology.SHARED;
        // shared: a client thread and a responder thread, whatever the number of clients
        final boolean spinByDefault = (shared ? 2 : 2 * clients) <= Runtime.getRuntime().availableProcessors();
        final List<RunSpec> runs = new ArrayList<>();
        for (final BenchTransport transport : chosen) {
            for (final int size : sizes) {
                for (final long rate : rates) {
                    final long messages = Math.max(1, (long)(rate * seconds));
                    final long warmup = (long)(rate * warmupSeconds);
                    runs.add(new RunSpec("load", transport, size, messages, warmup, rate, clients,
                        common.inProcess, -1, common.responderCpu(), common.busySpin(spinByDefault), common.host)
                        .withTimeLimit(3 * seconds + 5) // a transport that cannot keep up ends early, marked partial
                        .withSharedResponder(shared).withRespondEvery(respondEvery));
                }
            }
        }
        return runs;
    }

    /** The runs asked for, and why some of them cannot run. */
    private UnavailableRuns unavailable(final List<BenchTransport> chosen) {
        return UnavailableRuns.of(runs(chosen, sizes, clients, rates, seconds, warmupSeconds, topology, respondEvery,
            common), BenchRunner::unavailableReason);
    }

    /**
     * The transports in the order a round runs them: each round starts one transport further on, so that none is
     * always first. The first runs of a bench JVM measured worse tails than the same runs later in it (a load run's
     * p99 at 1 000 msg/s per client: 1.2-2.5 ms first, 0.06-0.6 ms second, whichever transport was first), and a
     * median over rounds should not carry that for one transport only.
     *
     * @param chosen the transports as named
     * @param shift how many places to start further on
     * @return the list for this round
     */
    static List<BenchTransport> rotated(final List<BenchTransport> chosen, final int shift) {
        final List<BenchTransport> order = new ArrayList<>(chosen);
        if (!order.isEmpty()) {
            Collections.rotate(order, -(shift % order.size()));
        }
        return order;
    }

    /**
     * What the run's topology is, in one sentence for the output.
     *
     * @param topology the topology
     * @param clients the number of clients
     * @return the sentence
     */
    static String topologyNote(final Topology topology, final int clients) {
        return topology == Topology.SHARED
            ? "Topology shared: " + clients + " client(s) on one client thread against one responder thread serving every"
                + " connection (java.net.Socket: a thread per connection); two threads, so on two cores both may spin."
            : "Topology per-client: each of " + clients + " client(s) has a thread and a responder of its own ("
                + 2 * clients + " threads" + (2 * clients > Runtime.getRuntime().availableProcessors()
                ? ", more than the " + Runtime.getRuntime().availableProcessors() + " cores: the scheduler is measured too"
                : "") + ").";
    }
}
