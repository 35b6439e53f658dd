package dev.peregrine.bench.reconnect;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.BackoffIdleStrategy;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code bench reconnect} in one process: the server and the client on two reactor threads, the connection cut
 * by an abort every {@link Spec#cutEveryNs()}, alternately by the server and by the client.
 */
public final class ReconnectRunner {
    private ReconnectRunner() {
    }

    /**
     * What to run.
     *
     * @param count messages in the stream, at least 1
     * @param rate messages per second, at least 1
     * @param cutEveryNs time between cuts, at least 1 ms
     * @param busySpin whether the reactors spin when idle (else they back off, parking up to 100 us)
     * @param skip a test hook: the client drops the message with this number, as a broken client would; 0 for none
     * @param clientReceiveBuffer the client socket's SO_RCVBUF in bytes, 0 for the system's (autotuned): a server's
     *     reset reaches the client only after what its receive buffer holds, so a smaller one bounds that wait
     * @param settleNs the least time from the client's resume to the next cut, 0 for none (cuts at their fixed
     *     times, back to back after a slow resume)
     * @param clientCpu the CPU the client's reactor thread is pinned to, -1 for none
     * @param serverCpu the CPU the server's reactor thread is pinned to, -1 for none
     */
    public record Spec(long count, long rate, long cutEveryNs, boolean busySpin, long skip, int clientReceiveBuffer,
                       long settleNs, int clientCpu, int serverCpu) {
        /** Checks the values. */
        public Spec {
            if (count < 1 || rate < 1 || cutEveryNs < 1_000_000 || skip < 0 || clientReceiveBuffer < 0 || settleNs < 0
                || clientCpu < -1 || serverCpu < -1) {
                throw new IllegalArgumentException("count=" + count + " rate=" + rate + " cutEveryNs=" + cutEveryNs
                    + " skip=" + skip + " clientReceiveBuffer=" + clientReceiveBuffer + " settleNs=" + settleNs
                    + " clientCpu=" + clientCpu + " serverCpu=" + serverCpu);
            }
        }

        /** A spec whose reactor threads are not pinned. */
        public Spec(final long count, final long rate, final long cutEveryNs, final boolean busySpin, final long skip,
                    final int clientReceiveBuffer, final long settleNs) {
            this(count, rate, cutEveryNs, busySpin, skip, clientReceiveBuffer, settleNs, -1, -1);
        }

        /** A spec whose cuts come at their fixed times. */
        public Spec(final long count, final long rate, final long cutEveryNs, final boolean busySpin, final long skip,
                    final int clientReceiveBuffer) {
            this(count, rate, cutEveryNs, busySpin, skip, clientReceiveBuffer, 0);
        }

        /** Whether either reactor thread is pinned. */
        public boolean pinned() {
            return clientCpu >= 0 || serverCpu >= 0;
        }

        /** How long the run may take: twice its paced time and 30 s more. */
        long deadlineNs() {
            return 2 * count * 1_000_000_000L / rate + TimeUnit.SECONDS.toNanos(30);
        }
    }

    static IdleStrategy idle(final boolean busySpin) {
        return busySpin ? new BusySpinIdleStrategy() : new BackoffIdleStrategy(100, 10, 1_000, 100_000);
    }

    /**
     * Runs the stream with cuts and reports on {@code out} (a progress line a second, then the result).
     *
     * @param spec what to run
     * @param out where the lines go
     * @return the result
     * @throws InterruptedException if interrupted while waiting
     */
    public static ReconnectResult run(final Spec spec, final PrintStream out) throws InterruptedException {
        return run(spec, out, null);
    }

    /**
     * How many streams a warm-up runs, one after the other, each on its own store, reactors and connections. A
     * stream's end (its last messages, End of Session, the reactors closing) and a new stream's start (new instances,
     * their first cycles and first messages) take branches that the cuts in between never take. The hot loop's C2 code
     * compiled during a stream has uncommon traps on them (unstable_if, null and class checks): at that stream's end
     * and the next one's start the JIT throws the code away and compiles it again, with those branches in its
     * profile, while the next stream runs. With a single warm-up stream that happened in the measured stream's first
     * second, on a core the reactor threads needed (docs/soup-resume-jit.md); with two it happens in the second.
     */
    public static final int WARM_UP_STREAMS = 2;

    /**
     * The messages of each warm-up stream: about {@code cuts} cuts at {@code spec}'s rate and cut interval.
     *
     * @param spec the measured run's spec
     * @param cuts warm-up cuts wanted in each stream, at least 1
     * @return each stream's message count
     */
    public static long warmUpCount(final Spec spec, final int cuts) {
        if (cuts < 1) {
            throw new IllegalArgumentException("cuts=" + cuts + " must be at least 1");
        }
        // cut k is due k + 1/2 intervals after the start and none once the last message is out: one interval more
        return Math.max(1, (long)((cuts + 1) * (double)spec.cutEveryNs() * spec.rate() / 1e9));
    }

    /**
     * Runs the warm-up before the measured stream, in this JVM: {@link #WARM_UP_STREAMS} streams one after the
     * other, each on its own store, reactors and connections, each of about {@code cuts} cuts at the measured run's
     * rate and interval (each as long as the single warm-up stream was: halves of it were too short to wrap the
     * store's ring twice, and its first wrap then trapped the append path in the measured stream), so that the code of
     * a resume, and of a stream's start and end, is compiled before the measured stream starts. Nothing of it is
     * counted in the measured run's figures. A stream that does not finish does not stop the next one.
     *
     * @param spec the measured run's spec
     * @param cuts warm-up cuts wanted in each stream, at least 1
     * @return each warm-up stream's result, in the order run, to report a line each
     * @throws InterruptedException if interrupted while waiting
     */
    public static java.util.List<ReconnectResult> warmUp(final Spec spec, final int cuts) throws InterruptedException {
        final Spec warm = new Spec(warmUpCount(spec, cuts), spec.rate(), spec.cutEveryNs(), spec.busySpin(), 0,
            spec.clientReceiveBuffer(), spec.settleNs(), spec.clientCpu(), spec.serverCpu());
        final java.util.List<ReconnectResult> results = new java.util.ArrayList<>(WARM_UP_STREAMS);
        for (int stream = 0; stream < WARM_UP_STREAMS; stream++) {
            results.add(run(warm, new PrintStream(java.io.OutputStream.nullOutputStream()), null));
        }
        return results;
    }

    /**
     * Runs the stream with cuts and reports on {@code out}, and writes every cut's hops to {@code cutLog} (a CSV, the
     * diagnostic {@code --cut-log}) if not null.
     *
     * @param spec what to run
     * @param out where the lines go
     * @param cutLog where the per-cut CSV goes, or null for none
     * @return the result
     * @throws InterruptedException if interrupted while waiting
     */
    public static ReconnectResult run(final Spec spec, final PrintStream out, final java.nio.file.Path cutLog)
        throws InterruptedException {
        final JvmActivity jvm = JvmActivity.now();
        final CutSchedule cuts = new CutSchedule(spec.cutEveryNs(), true);
        cuts.settle(spec.settleNs());
        final int storeMessages = 1 << 20;
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(ReconnectServer.SESSION, storeMessages,
                (long)storeMessages * ReconnectFeed.LENGTH);
             Reactor serverReactor = new Reactor(new ReactorOptions().name("reconnect-server")
                 .idleStrategy(idle(spec.busySpin())).cpu(spec.serverCpu()));
             Reactor clientReactor = new Reactor(new ReactorOptions().name("reconnect-client")
                 .idleStrategy(idle(spec.busySpin())).cpu(spec.clientCpu()))) {
            final ReconnectServer server = new ReconnectServer(serverReactor, store, spec.count(), spec.rate(), cuts);
            server.listen(new InetSocketAddress("127.0.0.1", 0));
            final long listenDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.localAddress() == null && server.listenFailure() == null && System.nanoTime() < listenDeadline) {
                serverReactor.doWork(); // before the thread starts: the publisher's clock starts with the first cycle
            }
            if (server.localAddress() == null) {
                return failed(spec, "the server did not listen: " + server.listenFailure());
            }
            final ReconnectClient client = new ReconnectClient(clientReactor, server.localAddress(), spec.count(), cuts,
                spec.skip(), spec.clientReceiveBuffer());
            final CutHops hops = CutHops.forSpec(spec);
            cuts.hops(hops, server::published, client::delivered);
            client.start();
            serverReactor.start();
            clientReactor.start();
            final String failure = await(spec, client, server, cuts, out);
            // closed on their own threads: what the client counted is read after its latch (happens-before)
            final String[] allowed = new String[2];
            closeOn(clientReactor, () -> {
                allowed[0] = AllowedCpus.ofThisThread();
                client.close();
            });
            closeOn(serverReactor, () -> {
                allowed[1] = AllowedCpus.ofThisThread();
                server.close();
            });
            final java.util.List<String> breakdown = new java.util.ArrayList<>(client.breakdown());
            breakdown.add(jvm.since());
            breakdown.add(AllowedCpus.line(spec, allowed[1], allowed[0]));
            if (cutLog != null) {
                try {
                    java.nio.file.Files.write(cutLog, hops.csv(cuts.made(), cuts.startNs()));
                    breakdown.add("  every cut's hops written to " + cutLog);
                } catch (final java.io.IOException ex) {
                    throw new java.io.UncheckedIOException("cut log " + cutLog, ex);
                }
            }
            return new ReconnectResult(spec.count(), client.delivered(), client.lost(), client.repeated(),
                client.foreign(), cuts.made(), client.connects() - 1, client.skippedRepeats(), client.resume(), null,
                failure, breakdown);
        }
    }

    /** Waits until the client stopped (End of Session) or the deadline; a progress line a second. */
    private static String await(final Spec spec, final ReconnectClient client, final ReconnectServer server,
                                final CutSchedule cuts, final PrintStream out) throws InterruptedException {
        final long start = System.nanoTime();
        final long deadline = start + spec.deadlineNs();
        long nextLine = start + TimeUnit.SECONDS.toNanos(1);
        while (client.stopped() == null) {
            if (System.nanoTime() - deadline > 0) {
                return "not finished in " + spec.deadlineNs() / 1_000_000_000L + " s: published " + server.published()
                    + ", delivered " + client.delivered();
            }
            Thread.sleep(10); // progress only: the result waits for the client's End of Session
            if (System.nanoTime() - nextLine > 0) {
                nextLine = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); // one line, however long a restart held the loop
                out.println(String.format(Locale.ROOT, "  %.0f s: published %d, delivered %d, cuts %d",
                    (System.nanoTime() - start) / 1e9, server.published(), client.delivered(), cuts.made()));
                out.flush();
            }
        }
        return client.endedAtEndOfSession() ? null : "the client stopped: " + client.stopped();
    }

    /** Runs a close on a reactor's thread and waits for it (up to 5 s). */
    static void closeOn(final Reactor reactor, final Runnable close) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        if (reactor.execute(() -> {
            close.run();
            done.countDown();
        })) {
            done.await(5, TimeUnit.SECONDS);
        }
    }

    private static ReconnectResult failed(final Spec spec, final String failure) {
        return new ReconnectResult(spec.count(), 0, spec.count(), 0, 0, 0, 0, 0, new org.HdrHistogram.Histogram(3),
            null, failure, java.util.List.of());
    }
}
