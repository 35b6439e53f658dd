package dev.peregrine.cli;

import dev.peregrine.bench.report.HtmlReport;
import dev.peregrine.bench.report.JsonResults;
import dev.peregrine.bench.report.MachineInfo;
import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.report.Table;
import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.session.BenchSession;
import dev.peregrine.bench.transports.LossyLoadTransport;
import dev.peregrine.bench.transports.PeregrineWorkersBench;
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
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

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
            + " responder thread serves all N connections (Peregrine TCP: one reactor; Netty: one event loop; NIO: one"
            + " loop reading every connection in turn; NIO selector: one selector loop; Aeron: one thread polling every"
            + " session; Peregrine UDP: one endpoint answering every client by its address; Peregrine shared memory:"
            + " one reactor polling every client's rings; MoldUDP64: one thread following every client's session and"
            + " echoing on a session of its own to each, with its request server; the socket peer excepted: blocking"
            + " sockets take a thread per connection). That is two threads, so on two cores both may busy-spin. A"
            + " transport without such a responder is reported unavailable"
            + " (peregrine-shm-futex: one thread cannot sleep on several rings' futex words).",
        "How the cost grows with the work: --clients 1,10,100,1000 --total-rates 100000 runs each client count at"
            + " the same total rate, spread evenly over the clients, a row per (transport, clients, rate); --workers"
            + " 0,2 adds rows of peregrine-tcp and peregrine-shm whose responder reactor hands every message to 2"
            + " worker threads that answer through its command ring (0: on the reactor thread).",
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
    @Option(names = "--clients", split = ",", defaultValue = "5", paramLabel = "N[,N...]",
        description = "Concurrent clients; a list runs each count in turn (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Range(min = 1, max = Range.PER_NANOSECOND)
    @Option(names = "--rates", split = ",", defaultValue = "1000,10000,25000,50000,100000",
        description = "Messages per second per client (default: ${DEFAULT-VALUE}).")
    List<Long> rates;

    @Range(min = 1, max = Range.PER_NANOSECOND)
    @Option(names = "--total-rates", split = ",", paramLabel = "R[,R...]",
        description = "Messages per second of all clients together, spread evenly over them, instead of --rates:"
            + " with --clients 1,10,100,1000 each count carries the same load. Each must divide by every client"
            + " count.")
    List<Long> totalRates;

    @Range(min = 0, max = PeregrineWorkersBench.MAX_WORKERS)
    @Option(names = "--workers", split = ",", defaultValue = "0", paramLabel = "N[,N...]",
        description = "peregrine-tcp and peregrine-shm: worker threads behind the one responder reactor, which hands"
            + " each message to one of them (WorkerDemux, keyed by connection) and sends what they answer through its"
            + " command ring; 0 answers on the reactor thread. A list gives rows of each in the same run, labelled"
            + " TRANSPORT+workers=N; other transports run at 0 only. With --topology shared (default: ${DEFAULT-VALUE}).")
    List<Integer> workers;

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

    @Option(names = "--report", converter = Converters.WritableFile.class, paramLabel = "FILE",
        description = "Also write an HTML report: the tables, latency against the offered rate, and with several"
            + " --clients counts at one total rate, p50 and p99 against the connections.")
    Path report;

    @Override
    public void validate() {
        final int most = clients.stream().mapToInt(Integer::intValue).max().orElse(1);
        if (respondEvery > 1 && topology == Topology.PER_CLIENT && most > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--respond-every=" + respondEvery + " runs"
                + " its clients on one thread: use --topology shared (the default), or --clients 1");
        }
        Cli.exclusive(spec, "--rates", "--total-rates");
        if (totalRates != null) {
            for (final long total : totalRates) {
                for (final int count : clients) {
                    if (total % count != 0) {
                        throw Cli.invalid(spec.commandLine(), "--total-rates", total + " messages per second do not"
                            + " spread evenly over " + count + " clients; use a multiple of every --clients count");
                    }
                }
            }
        }
        checkRates(spec.commandLine(), offered(), seconds, warmupSeconds, "--seconds/--warmup-seconds");
        checkWorkers();
        final String fds = fileDescriptorShortfall(most, common.inProcess, maxFileDescriptors());
        if (fds != null) {
            throw Cli.invalid(spec.commandLine(), "--clients", fds);
        }
        unavailable(withLoss(CommonOptions.transports(transports))).refuseIfNoneRuns(spec.commandLine());
    }

    /** The rates as given: per client, or all clients together with --total-rates. */
    private List<Long> offered() {
        return totalRates != null ? totalRates : rates;
    }

    /** Workers need the shared topology, every answer, and a transport that has them. */
    private void checkWorkers() {
        final int most = workers.stream().mapToInt(Integer::intValue).max().orElse(0);
        if (most == 0) {
            return;
        }
        final String list = workers.stream().map(String::valueOf).collect(Collectors.joining(","));
        if (topology != Topology.SHARED) {
            throw Cli.invalid(spec.commandLine(), "--workers", list + " puts workers behind the one responder of"
                + " --topology shared (the default), not per-client");
        }
        if (respondEvery > 1) {
            throw Cli.invalid(spec.commandLine(), "--workers", list + " answers every message; drop --respond-every");
        }
        if (CommonOptions.transports(transports).stream().noneMatch(PeregrineWorkersBench::supports)) {
            throw Cli.invalid(spec.commandLine(), "--workers", list + " needs peregrine-tcp or peregrine-shm among"
                + " the transports (the others answer on their event loop only)");
        }
    }

    /**
     * Why this process cannot hold the sockets of a run, or null if it can. Each client takes up to
     * {@value #FILE_DESCRIPTORS_PER_CLIENT} file descriptors: its socket and, for the peers' clients (Netty, NIO), a
     * selector of its own with its wake-up descriptor. With the responder in this process, each of its connections
     * takes one more.
     *
     * @param clients the most clients of a run
     * @param inProcess whether the responder runs in this process
     * @param limit the most descriptors this process may open, or -1 if unknown
     * @return one sentence, or null
     */
    static String fileDescriptorShortfall(final int clients, final boolean inProcess, final long limit) {
        final long needed = (FILE_DESCRIPTORS_PER_CLIENT + (inProcess ? 1L : 0L)) * clients + FILE_DESCRIPTOR_MARGIN;
        if (limit < 0 || needed <= limit) {
            return null;
        }
        return clients + " clients need about " + needed + " file descriptors and this process may open " + limit
            + " (ulimit -n); raise the limit or run fewer clients";
    }

    /** Descriptors a client may take: a socket, and a selector with its wake-up descriptor. */
    static final int FILE_DESCRIPTORS_PER_CLIENT = 3;

    /** Descriptors a bench JVM holds besides the clients': jars, its own selectors and pipes, the JIT's files. */
    static final int FILE_DESCRIPTOR_MARGIN = 256;

    /** The most file descriptors this process may open, or -1 if the platform does not say. */
    private static long maxFileDescriptors() {
        final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.UnixOperatingSystemMXBean unix ? unix.getMaxFileDescriptorCount() : -1;
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
        final List<BenchTransport> measured = withWorkers(chosen, workers);
        try (BenchSession session = new BenchSession(out, System.err, common.quiet, false)) {
            out.println(topologyNote(topology, clients));
            final List<Integer> roundOf = new ArrayList<>();
            for (int round = 1; round <= rounds && !session.stopping(); round++) {
                if (rounds > 1) {
                    out.println("round " + round + " of " + rounds);
                }
                run(session, runs(rotated(measured, round - 1), sizes, clients, offered(), totalRates != null,
                    seconds, warmupSeconds, topology, respondEvery, common));
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
            final Table summary = Summary.load(results).note(topologyNote(topology, clients));
            if (measured.size() > chosen.size()) {
                summary.note(workersNote(measured));
            }
            out.print(summary.toText());
            if (report != null) {
                writeReport(measured, results, summary);
                out.println("report: " + report.toAbsolutePath());
            }
            if (rounds > 1) {
                common.writeFiles(results, out, JsonResults.toJson(results, roundOf), roundOf);
            } else {
                common.writeFiles(results, out);
            }
            return results.stream().allMatch(r -> r.status() == RunResult.Status.OK) ? 0 : 1;
        }
    }

    /** The HTML report of the run: its command line, the transports measured, every result and the table. */
    private void writeReport(final List<BenchTransport> measured, final List<RunResult> results, final Table summary) {
        final List<HtmlReport.TransportInfo> infos = new ArrayList<>();
        for (final BenchTransport transport : measured) {
            infos.add(new HtmlReport.TransportInfo(transport.name(), transport.path(),
                dev.peregrine.bench.transports.Transports.isPeregrine(transport), transport.description(), null));
        }
        final List<String> args = spec.commandLine().getParseResult() == null ? List.of()
            : spec.commandLine().getParseResult().originalArgs();
        final java.util.Map<String, String> options = common.describe();
        options.put("clients", clients.toString());
        options.put(totalRates != null ? "total rates (msg/s, all clients)" : "rates (msg/s per client)",
            offered().toString());
        options.put("workers", workers.toString());
        CommonOptions.write(report, HtmlReport.render(new HtmlReport.Data("./peregrine bench load "
            + String.join(" ", args), options, MachineInfo.describe(), infos, results, List.of(summary), List.of(),
            "bench load measures no floor; bench compare does.", List.of(topologyNote(topology, clients)), List.of())));
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
        run(session, runs(chosen, sizes, clients, rates, seconds, warmupSeconds, topology, respondEvery, common));
    }

    private static void run(final BenchSession session, final List<RunSpec> runs) {
        for (final RunSpec run : runs) {
            if (session.stopping()) {
                return;
            }
            session.pingpong(run);
        }
    }

    /**
     * The transports with their worker variants, in the order they run: each transport at each count of
     * {@code --workers}, 0 as it is, more only for a transport that has workers ({@link PeregrineWorkersBench}).
     *
     * @param chosen the transports
     * @param workers the counts of workers
     * @return the transports to measure
     */
    static List<BenchTransport> withWorkers(final List<BenchTransport> chosen, final List<Integer> workers) {
        final List<BenchTransport> measured = new ArrayList<>();
        for (final BenchTransport transport : chosen) {
            for (final int count : workers) {
                if (count == 0) {
                    measured.add(transport);
                } else if (PeregrineWorkersBench.supports(transport)) {
                    measured.add(PeregrineWorkersBench.of(transport, count));
                }
            }
        }
        return measured;
    }

    /** The note under a table with worker rows: what they are and how their threads wait. */
    private static String workersNote(final List<BenchTransport> measured) {
        final int cores = Runtime.getRuntime().availableProcessors();
        return "TRANSPORT+workers=N: the responder reactor hands each message to one of N worker threads (WorkerDemux,"
            + " keyed by connection), which answer through its ReactorCommandRing; the rows without it answer on the"
            + " reactor thread. Workers idle with Thread.yield (YieldingIdleStrategy) whenever the client thread, the"
            + " reactor and the workers outnumber the " + cores + " cores; a message a full worker ring could not take"
            + " closes its connection and fails the row.";
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
        return runs(chosen, sizes, List.of(clients), rates, false, seconds, warmupSeconds, topology, respondEvery,
            common);
    }

    /**
     * The runs of the load scenario for some transports and client counts: for each transport, size, client count
     * and rate, in that order.
     *
     * @param chosen the transports
     * @param sizes message sizes
     * @param clientCounts the numbers of clients
     * @param rates rates per client, or with {@code totalRates} of all clients together
     * @param totalRates whether each rate is spread over the clients (it divides by every count)
     * @param seconds measured seconds per rate
     * @param warmupSeconds warm-up seconds per rate
     * @param topology how clients and responders are laid out on threads
     * @param respondEvery the responder answers every Nth message; 1 for all
     * @param common the common options
     * @return the runs
     */
    static List<RunSpec> runs(final List<BenchTransport> chosen, final List<Integer> sizes,
                              final List<Integer> clientCounts, final List<Long> rates, final boolean totalRates,
                              final double seconds, final double warmupSeconds, final Topology topology,
                              final int respondEvery, final CommonOptions common) {
        final boolean shared = topology == Topology.SHARED;
        final List<RunSpec> runs = new ArrayList<>();
        for (final BenchTransport transport : chosen) {
            for (final int size : sizes) {
                for (final int clients : clientCounts) {
                    // shared: a client thread and a responder thread, whatever the number of clients
                    final boolean spinByDefault = (shared ? 2 : 2 * clients) <= Runtime.getRuntime().availableProcessors();
                    for (final long offered : rates) {
                        final long rate = totalRates ? offered / clients : offered;
                        final long messages = Math.max(1, (long)(rate * seconds));
                        final long warmup = (long)(rate * warmupSeconds);
                        runs.add(new RunSpec("load", transport, size, messages, warmup, rate, clients,
                            common.inProcess, -1, common.responderCpu(), common.busySpin(spinByDefault), common.host)
                            .withTimeLimit(3 * seconds + 5) // a transport that cannot keep up ends early, marked partial
                            .withSharedResponder(shared).withRespondEvery(respondEvery));
                    }
                }
            }
        }
        return runs;
    }

    /** The runs asked for, and why some of them cannot run. */
    private UnavailableRuns unavailable(final List<BenchTransport> chosen) {
        return UnavailableRuns.of(runs(withWorkers(chosen, workers), sizes, clients, offered(), totalRates != null,
            seconds, warmupSeconds, topology, respondEvery, common), BenchRunner::unavailableReason);
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
    static String topologyNote(final Topology topology, final List<Integer> clients) {
        if (clients.size() == 1) {
            return topologyNote(topology, clients.get(0));
        }
        final String counts = clients.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return topology == Topology.SHARED
            ? "Topology shared: " + counts + " clients in turn, each time on one client thread against one responder"
                + " thread serving every connection (the socket peer excepted: blocking sockets take a thread per connection); two threads, so on two"
                + " cores both may spin."
            : "Topology per-client: " + counts + " clients in turn, each with a thread and a responder of its own.";
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
                + " connection (the socket peer excepted: blocking sockets take a thread per connection); two threads, so on two cores both may spin."
            : "Topology per-client: each of " + clients + " client(s) has a thread and a responder of its own ("
                + 2 * clients + " threads" + (2 * clients > Runtime.getRuntime().availableProcessors()
                ? ", more than the " + Runtime.getRuntime().availableProcessors() + " cores: the scheduler is measured too"
                : "") + ").";
    }
}
