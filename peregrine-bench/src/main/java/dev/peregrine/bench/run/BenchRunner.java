package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.support.FreePorts;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs ping-pong measurements (one message in flight, or at a fixed rate with one or more clients): starts
 * the responders in a fresh folder on fresh ports, connects a client thread per responder, warms up,
 * measures, and collects the numbers into a {@link RunResult}. Failures become results with the error;
 * they never end the whole benchmark. The responders' figures (messages, bytes allocated, JIT and GC counts) are
 * read once every client has had its last measured echo and before any closes its connection: they cover the
 * measured messages, not a responder's end-of-connection path.
 */
public final class BenchRunner {
    /** A run answered every Nth message whose clients sustained less than this share of their rate did not keep up. */
    static final double KEPT_UP = 0.95;
    /** The port an availability check describes: any, as no socket is opened; five digits, as a free port has. */
    private static final int PROBE_PORT = 40_000;

    private final Progress progress;
    private final AtomicReference<ClientSideRun[]> live = new AtomicReference<>();
    private volatile boolean stopRequested;

    /**
     * Creates a runner.
     *
     * @param progress where progress goes
     */
    public BenchRunner(final Progress progress) {
        this.progress = progress;
    }

    /**
     * Asks the running measurement to stop (Ctrl-C); it ends with a {@link RunResult.Status#PARTIAL} result
     * holding what was measured, and no further run starts.
     */
    public void requestStop() {
        stopRequested = true;
        final ClientSideRun[] clients = live.get();
        if (clients != null) {
            for (final ClientSideRun client : clients) {
                client.requestStop();
            }
        }
    }

    /**
     * Whether {@link #requestStop} was called.
     *
     * @return true once stopping
     */
    public boolean stopRequested() {
        return stopRequested;
    }

    /**
     * Runs one ping-pong (one client in flight, or clients at a fixed rate). With
     * {@link RunSpec#sharedResponder()} and more than one client, the clients run on one thread against one
     * responder that serves them all (a transport without such a responder is reported unavailable); otherwise
     * each client has a thread and a responder of its own.
     *
     * @param spec what to run
     * @return the result, whatever happened
     */
    public RunResult pingpong(final RunSpec spec) {
        final BenchTransport transport = spec.transport();
        final Path folder = RunEnvironment.freshFolder();
        try {
            // one client: a client thread and a responder either way, and every transport has that
            final boolean shared = spec.sharedResponder() && spec.clients() > 1;
            final int responderCount = shared ? 1 : spec.clients();
            final int port = FreePorts.block(spec.host(), BenchConfig.PORTS_PER_RESPONDER * responderCount);
            final BenchConfig base = config(spec, port, folder);
            final String unavailable = unavailableReason(spec, base);
            if (unavailable != null) {
                return noNumbers(spec, RunResult.Status.UNAVAILABLE, unavailable);
            }
            final List<BenchConfig> configs = RunEnvironment.forResponders(base, responderCount);
            RunEnvironment.createFolders(configs);
            progress.phase(spec.label(), "starting responder", 0);
            try (ResponderSide responders = spec.inProcess()
                ? LocalResponderSide.start(transport, configs, spec.responderCpu(), shared)
                : ChildResponderSide.start(transport, base, responderCount, spec.responderCpu(),
                    shared ? List.of("--shared") : List.of())) {
                // one client answered every Nth message: the shared loop, whose bursts keep a high rate and which
                // measures the rate it sustained
                return measure(spec, shared || spec.respondEvery() > 1, configs, responders);
            }
        } catch (final Exception | LinkageError ex) {
            return noNumbers(spec, RunResult.Status.FAILED, Failures.oneLine(ex));
        } finally {
            progress.endLine();
            RunEnvironment.deleteFolder(folder);
        }
    }

    /**
     * Why {@link #pingpong} would report a run {@link RunResult.Status#UNAVAILABLE} without starting it, or null if it
     * would run: so that a command can say so before it runs anything. A transport whose own check fails is taken
     * as available here; the run reports the failure.
     *
     * @param spec what to run
     * @return the reason, in one sentence, or null
     */
    public static String unavailableReason(final RunSpec spec) {
        final Path folder = RunEnvironment.freshFolder(); // a run's folder: shm's socket path is measured in it
        try {
            return unavailableReason(spec, config(spec, PROBE_PORT, folder));
        } catch (final RuntimeException | LinkageError ex) {
            return null;
        } finally {
            RunEnvironment.deleteFolder(folder);
        }
    }

    private static BenchConfig config(final RunSpec spec, final int port, final Path folder) {
        return new BenchConfig(spec.host(), port, spec.size(), folder, spec.busySpin(), spec.replySize(),
            spec.respondEvery());
    }

    private static String unavailableReason(final RunSpec spec, final BenchConfig base) {
        final BenchTransport transport = spec.transport();
        if (spec.sharedResponder() && spec.clients() > 1 && !transport.sharedResponder()) {
            return transport.name() + " has no responder that serves several clients on one thread (--topology"
                + " per-client runs it with a responder per client)";
        }
        final String tooMany = transport.clientsUnavailableReason(base, spec.clients());
        if (tooMany != null) {
            return tooMany;
        }
        if (base.asymmetric() && !transport.supportsReplySize()) {
            return transport.name() + " cannot answer with a reply of another size than the message (--reply-size="
                + spec.replySize() + ", --size=" + spec.size() + ")";
        }
        if (spec.respondEvery() > 1) {
            final String why = respondEveryUnavailable(spec, spec.sharedResponder() && spec.clients() > 1);
            if (why != null) {
                return why;
            }
        }
        return transport.unavailableReason(base);
    }

    /** Why a run whose responder answers every Nth message cannot run as asked, or null if it can. */
    private static String respondEveryUnavailable(final RunSpec spec, final boolean shared) {
        final BenchTransport transport = spec.transport();
        if (!transport.supportsRespondEvery()) {
            return transport.name() + " cannot answer only every Nth message (--respond-every=" + spec.respondEvery()
                + "); peregrine-tcp, netty, nio and socket can";
        }
        if (spec.rate() <= 0) {
            return "--respond-every=" + spec.respondEvery() + " needs a fixed rate (bench load)";
        }
        if (!shared && spec.clients() > 1) {
            return "--respond-every=" + spec.respondEvery() + " runs with --topology shared (one client thread), not"
                + " with a thread per client";
        }
        return null;
    }

    /**
     * Starts the client threads (one for every client, or with {@code shared} one for them all), lets them warm
     * up, measures them together, and collects what they measured with the responders' side of it.
     */
    private RunResult measure(final RunSpec spec, final boolean shared, final List<BenchConfig> configs,
                              final ResponderSide responders) throws Exception {
        final CountDownLatch go = new CountDownLatch(1);
        final int threads = shared ? 1 : spec.clients();
        final CountDownLatch warmedUp = new CountDownLatch(threads);
        final CountDownLatch measured = new CountDownLatch(threads);
        final CountDownLatch mayClose = new CountDownLatch(1);
        final ClientSideRun[] clients = new ClientSideRun[threads];
        for (int i = 0; i < threads; i++) {
            clients[i] = shared ? new SharedClientsRun(spec, configs.get(0), progress, warmedUp, go, measured, mayClose)
                : new ClientRun(spec, configs.get(i), i == 0 ? progress : null, threads == 1 ? spec.clientCpu() : -1,
                    warmedUp, go, measured, mayClose);
        }
        live.set(clients);
        if (stopRequested) { // a stop asked before live was set found no clients to stop
            for (final ClientSideRun client : clients) {
                client.requestStop();
            }
        }
        try {
            for (final ClientSideRun client : clients) {
                client.thread.start();
                if (responders instanceof LocalResponderSide local) {
                    local.excludeThread(client.thread.threadId());
                }
            }
            if (!await(warmedUp, clients, warmupDeadlineNs(spec))) {
                return failure(spec, clients);
            }
            final ResponderStats before = responders.stats();
            final RuntimeCounters runtimeBefore = RuntimeCounters.now();
            // each thread's progress counts every client it drives
            progress.phase(spec.label(), "measuring", spec.messages() * (shared ? spec.clients() : 1));
            go.countDown();
            // every client has had its last measured echo and none has closed yet: the responder's "after" figures
            // cover the measured messages, not its end-of-connection path (EOF, close), which raced with this reading
            measured.await();
            final ResponderStats after = statsAfter(responders);
            mayClose.countDown();
            for (final ClientSideRun client : clients) {
                client.thread.join();
            }
            final RuntimeCounters clientRuntime = RuntimeCounters.now().since(runtimeBefore);
            return collect(spec, clients, before, after, clientRuntime).withPeregrineCounters(peregrineCounters(spec, responders));
        } finally {
            live.set(null);
            for (final ClientSideRun client : clients) {
                client.requestStop();
            }
            mayClose.countDown();
            go.countDown(); // clients still waiting see the stop request at once
        }
    }

    /** The responder's Peregrine counters, read while it still serves; null for another transport. */
    private static List<dev.peregrine.bench.stat.RunCounter> peregrineCounters(final RunSpec spec, final ResponderSide responders) {
        return Transports.isPeregrine(spec.transport()) ? dev.peregrine.bench.stat.RunCounters.read(responders.pid()) : null;
    }

    private static ResponderStats statsAfter(final ResponderSide responders) {
        try {
            return responders.stats();
        } catch (final RuntimeException ex) {
            // Ctrl-C reaches the responder JVM too; what the client measured still stands
            return new ResponderStats(-1, -1, RuntimeCounters.UNKNOWN);
        }
    }

    private static String interruption(final Throwable error, final Histogram measured) {
        return error instanceof PingPongLoop.StoppedException
            ? "interrupted: numbers cover the messages measured until then"
            : "stopped by an error after " + measured.getTotalCount() + " messages: " + Failures.oneLine(error);
    }

    /** Connecting may take a minute (a JVM, a media driver); warm-up as long as its schedule, twice over. */
    private static long warmupDeadlineNs(final RunSpec spec) {
        final long warmupNs = spec.rate() > 0
            ? TimeUnit.SECONDS.toNanos(2 * spec.warmup() / spec.rate() + 1)
            : TimeUnit.MICROSECONDS.toNanos(100 * spec.warmup());
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(60) + warmupNs;
    }

    /** Waits until every client is warmed up; false if one failed or ended first, or time ran out. */
    private static boolean await(final CountDownLatch warmedUp, final ClientSideRun[] clients, final long deadlineNs)
        throws InterruptedException {
        while (!warmedUp.await(100, TimeUnit.MILLISECONDS)) {
            if (System.nanoTime() - deadlineNs > 0) {
                for (final ClientSideRun client : clients) {
                    client.error.compareAndSet(null, new IllegalStateException(
                        "connect and warm-up did not finish in time (stuck connecting?)"));
                    client.requestStop();
                }
                return false;
            }
            for (final ClientSideRun client : clients) {
                if (client.error.get() != null || !client.thread.isAlive()) {
                    for (final ClientSideRun other : clients) {
                        other.requestStop();
                    }
                    return false;
                }
            }
        }
        return true;
    }

    private RunResult failure(final RunSpec spec, final ClientSideRun[] clients) throws InterruptedException {
        for (final ClientSideRun client : clients) {
            client.thread.join(TimeUnit.SECONDS.toMillis(5));
        }
        boolean stopped = false;
        for (final ClientSideRun client : clients) {
            final Throwable error = client.error.get();
            if (error instanceof PingPongLoop.StoppedException) {
                stopped = true; // by Ctrl-C, or because another client failed: that failure is the reason
            } else if (error != null) {
                return noNumbers(spec, RunResult.Status.FAILED, Failures.oneLine(error));
            }
        }
        return noNumbers(spec, RunResult.Status.FAILED, !stopped ? "a client thread ended without a result"
            : stopRequested ? "stopped before measuring (Ctrl-C)" : "stopped before measuring");
    }

    private RunResult collect(final RunSpec spec, final ClientSideRun[] clients, final ResponderStats before,
                              final ResponderStats after, final RuntimeCounters clientRuntime) {
        final Histogram all = PingPongLoop.newHistogram();
        long allocated = 0;
        boolean allocationKnown = true;
        long lost = 0;
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        String note = null;
        for (final ClientSideRun client : clients) {
            all.add(client.measured());
            if (client.allocatedBefore < 0 || client.allocatedAfter < 0) {
                allocationKnown = false;
            } else {
                allocated += client.allocatedAfter - client.allocatedBefore;
            }
            lost += client.lostAfter - client.lostBefore;
            firstStart = Math.min(firstStart, client.startNs);
            lastEnd = Math.max(lastEnd, client.endNs);
            final Throwable error = client.error.get();
            if (error != null && note == null) {
                note = interruption(error, all);
            }
        }
        // only the shared loop measures the rate its clients sustained; a thread per client leaves it NaN
        final double sentRate = clients.length == 1 ? clients[0].sentRate() : Double.NaN;
        return result(spec, new Measured(all, allocationKnown ? allocated : -1, lost, firstStart, lastEnd, note,
            sentRate), before, after, clientRuntime);
    }

    /**
     * What the clients measured: every latency, bytes they allocated (-1 if unknown), losses, when, why it ended
     * early, and the rate each client sustained (NaN if not measured).
     */
    private record Measured(Histogram all, long allocated, long lost, long firstStart, long lastEnd, String note,
                            double sentRate) {
    }

    private RunResult result(final RunSpec spec, final Measured clients, final ResponderStats before,
                             final ResponderStats after, final RuntimeCounters clientRuntime) {
        final Histogram all = clients.all();
        final long lost = clients.lost();
        String note = clients.note();
        final long measured = all.getTotalCount();
        if (note == null && measured + lost < spec.answeredMessages()) {
            note = "time limit of " + number(spec.timeLimitSeconds(), 1) + " s reached: " + (measured + lost)
                + " of " + spec.answeredMessages() + " messages measured";
        }
        final double sentRate = clients.sentRate();
        // judged only where the scenario asks for it (--respond-every): elsewhere a run that fell behind is said so in
        // its note, and its status stays ok, so that a load run's exit code stays what it was on a machine whose other
        // work slows the client thread (and whenever a peer saturates at the higher rates)
        final String behind = sentRate < KEPT_UP * spec.rate() // false for NaN: not measured
            ? "could not keep up: sustained " + number(sentRate, 0) + " msg/s of " + spec.rate()
                + " offered" + (spec.clients() > 1 ? " per client" : "")
            : null;
        if (spec.respondEvery() > 1) {
            note = RunResult.joinedNote(note, behind);
        }
        if (measured == 0) {
            return noNumbers(spec, RunResult.Status.FAILED, note != null ? note
                : lost > 0 ? "every one of " + lost + " messages was lost" : "nothing was measured");
        }
        final String lossNote = lost == 0 ? null : String.format(Locale.ROOT, "%d of %d messages lost (%.2f%%): datagrams"
            + " without a recovery layer; the percentiles are of the %d echoes that came back in order", lost,
            lost + measured, 100.0 * lost / (lost + measured), measured);
        // what an ok run has to say: its losses, and that it fell behind where that is not judged
        final String remarks = spec.respondEvery() > 1 ? lossNote : RunResult.joinedNote(behind, lossNote);
        final double seconds = (clients.lastEnd() - clients.firstStart()) / 1e9;
        final double throughput = seconds > 0 ? measured / seconds : Double.NaN;
        final double clientPerMessage = clients.allocated() >= 0 ? (double)clients.allocated() / measured : Double.NaN;
        final long echoed = after.messages() - before.messages();
        final double responderPerMessage = after.allocatedBytes() >= 0 && before.allocatedBytes() >= 0 && echoed > 0
            && after.messages() >= 0
            ? (double)(after.allocatedBytes() - before.allocatedBytes()) / echoed : Double.NaN;
        final RuntimeCounters responderRuntime = after.runtime().since(before.runtime());
        return new RunResult(spec.scenario(), spec.transport().name(), spec.transport().path(),
            Transports.isPeregrine(spec.transport()), spec.size(), measured, spec.rate(), spec.clients(), all,
            throughput, clientPerMessage, responderPerMessage, clientRuntime, responderRuntime,
            note == null ? RunResult.Status.OK : RunResult.Status.PARTIAL,
            RunResult.joinedNote(note, remarks), spec.replySize())
            .withSending(spec.respondEvery(), sentRate);
    }

    private static RunResult noNumbers(final RunSpec spec, final RunResult.Status status, final String note) {
        return RunResult.withoutNumbers(spec.scenario(), spec.transport().name(), spec.transport().path(),
            Transports.isPeregrine(spec.transport()), spec.size(), spec.rate(), spec.clients(), status, note)
            .withReplySize(spec.replySize()).withSending(spec.respondEvery(), Double.NaN);
    }

    /** A number for a note, as the tables print it (report.LatencyTable#number): n/a when not finite. */
    private static String number(final double value, final int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "n/a"
            : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
