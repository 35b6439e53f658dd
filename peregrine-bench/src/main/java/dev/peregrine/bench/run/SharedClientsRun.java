package dev.peregrine.bench.run;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.reactor.ThreadAffinity;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client side of {@code bench load}'s default topology: one thread connects every client to the one
 * responder, warms up, waits for the go, and measures them all with a {@link SharedClientLoop}, each client at
 * the run's rate on its own schedule and into its own histogram. It also runs a single client whose responder
 * answers only every Nth message ({@link RunSpec#respondEvery()}): that needs the loop's bursts and sustained rate.
 */
final class SharedClientsRun implements Runnable {
    final RunSpec spec;
    final BenchConfig config;
    final Progress progress;
    final CountDownLatch warmedUp = new CountDownLatch(1);
    final CountDownLatch go;
    final Thread thread;
    final Histogram[] histograms;
    final AtomicReference<Throwable> error = new AtomicReference<>();
    private final boolean stopRequested;
    volatile SharedClientLoop loop;
    volatile long allocatedBefore = -1;
    volatile long allocatedAfter = -1;
    volatile long lostBefore;
    volatile long lostAfter;
    volatile long startNs;
    volatile long endNs;
    /** The rate each client sustained on average in the measurement, messages per second; NaN if unknown. */
    volatile double sentRate = Double.NaN;

    SharedClientsRun(final RunSpec spec, final BenchConfig config, final Progress progress, final CountDownLatch go,
                     final boolean stopRequested) {
        this.spec = spec;
        this.config = config;
        this.progress = progress;
        this.go = go;
        this.stopRequested = stopRequested;
        this.histograms = new Histogram[spec.clients()];
        for (int k = 0; k < histograms.length; k++) {
            histograms[k] = PingPongLoop.newHistogram();
        }
        this.thread = new Thread(this, "bench-clients-" + config.port());
        thread.setDaemon(true);
    }

    void loopStop() {
        final SharedClientLoop current = loop;
        if (current != null) {
            current.requestStop();
        }
    }

    /**
     * Every client's histogram added up.
     *
     * @return a new histogram
     */
    Histogram all() {
        final Histogram all = PingPongLoop.newHistogram();
        for (final Histogram histogram : histograms) {
            all.add(histogram);
        }
        return all;
    }

    /** The clients' sustained rates, averaged over those that sent anything; NaN if none did. */
    private static double meanSentRate(final SharedClientLoop loop, final int clients) {
        double sum = 0;
        int counted = 0;
        for (int k = 0; k < clients; k++) {
            final double rate = loop.sentRate(k);
            if (!Double.isNaN(rate)) {
                sum += rate;
                counted++;
            }
        }
        return counted == 0 ? Double.NaN : sum / counted;
    }

    @Override
    public void run() {
        if (spec.clientCpu() >= 0) {
            final String why = ThreadAffinity.pinCurrentThread(spec.clientCpu());
            if (why != null) {
                System.err.println("peregrine: clients not pinned to cpu " + spec.clientCpu() + ": " + why);
            }
        }
        List<PingClient> clients = List.of();
        try {
            clients = spec.transport().connectAll(config, spec.clients());
            final long[] rates = new long[spec.clients()];
            java.util.Arrays.fill(rates, spec.rate());
            final SharedClientLoop shared = new SharedClientLoop(clients.toArray(new PingClient[0]), rates,
                (int)Math.max(spec.warmup(), spec.messages()), progress, spec.busySpin(), spec.transport().lossy(),
                spec.respondEvery());
            loop = shared;
            if (stopRequested) {
                shared.requestStop();
            }
            if (progress != null) {
                progress.phase(spec.label(), "warm-up", spec.warmup() * spec.clients());
            }
            final long limitNs = (long)(spec.timeLimitSeconds() * 1e9);
            if (spec.warmup() > 0) {
                shared.run(0, spec.warmup(), null, limitNs == 0 ? 0 : System.nanoTime() + limitNs / 2);
            }
            warmedUp.countDown();
            go.await();
            startNs = System.nanoTime();
            allocatedBefore = ThreadAllocation.currentThread();
            lostBefore = shared.lost();
            try {
                shared.run(spec.warmup(), spec.messages(), histograms, limitNs == 0 ? 0 : startNs + limitNs);
            } finally {
                allocatedAfter = ThreadAllocation.currentThread();
                lostAfter = shared.lost();
                endNs = System.nanoTime();
                sentRate = meanSentRate(shared, spec.clients());
            }
        } catch (final Throwable ex) {
            error.compareAndSet(null, ex);
        } finally {
            for (final PingClient client : clients) {
                try {
                    client.close();
                } catch (final RuntimeException ex) {
                    System.err.println("peregrine: closing a client failed: " + ex);
                }
            }
        }
    }
}
