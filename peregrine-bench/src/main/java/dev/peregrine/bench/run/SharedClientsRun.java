package dev.peregrine.bench.run;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import org.HdrHistogram.Histogram;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The client side of {@code bench load}'s default topology: one thread connects every client to the one
 * responder, warms up, waits for the go, and measures them all with a {@link SharedClientLoop}, each client at
 * the run's rate on its own schedule and into its own histogram. It also runs a single client whose responder
 * answers only every Nth message ({@link RunSpec#respondEvery()}): that needs the loop's bursts and sustained rate.
 */
final class SharedClientsRun extends ClientSideRun {
    private final Progress progress;
    private final Histogram[] histograms;
    private List<PingClient> clients = List.of();
    private volatile SharedClientLoop loop;
    /** The rate each client sustained on average in the measurement, messages per second; NaN if unknown. */
    private volatile double sentRate = Double.NaN;

    /**
     * @param spec the run
     * @param config where the one responder listens
     * @param progress where the thread reports its progress
     * @param warmedUp counted down once every client has warmed up
     * @param go awaited before measuring
     * @param measured counted down once the measurement has ended
     * @param mayClose awaited before closing
     */
    SharedClientsRun(final RunSpec spec, final BenchConfig config, final Progress progress,
                     final CountDownLatch warmedUp, final CountDownLatch go, final CountDownLatch measured,
                     final CountDownLatch mayClose) {
        super(spec, config, "clients", spec.clientCpu(), warmedUp, go, measured, mayClose);
        this.progress = progress;
        this.histograms = new Histogram[spec.clients()];
        for (int k = 0; k < histograms.length; k++) {
            histograms[k] = PingPongLoop.newHistogram();
        }
    }

    @Override
    void connect() throws Exception {
        clients = spec.transport().connectAll(config, spec.clients());
        final long[] rates = new long[spec.clients()];
        Arrays.fill(rates, spec.rate());
        final SharedClientLoop shared = new SharedClientLoop(clients.toArray(new PingClient[0]), rates,
            (int)Math.max(spec.warmup(), spec.messages()), progress, spec.busySpin(), spec.transport().lossy(),
            spec.respondEvery());
        loop = shared;
        if (stopRequested()) {
            shared.requestStop();
        }
    }

    @Override
    void warmUp(final long deadlineNs) {
        if (progress != null) {
            progress.phase(spec.label(), "warm-up", spec.warmup() * spec.clients());
        }
        if (spec.warmup() > 0) {
            loop.run(0, spec.warmup(), null, deadlineNs);
        }
    }

    @Override
    void measure(final long deadlineNs) {
        loop.run(spec.warmup(), spec.messages(), histograms, deadlineNs);
    }

    @Override
    void measurementEnded() {
        sentRate = meanSentRate(loop, spec.clients());
    }

    @Override
    long lost() {
        return loop.lost();
    }

    @Override
    void stopLoop() {
        final SharedClientLoop current = loop;
        if (current != null) {
            current.requestStop();
        }
    }

    @Override
    void close() {
        for (final PingClient client : clients) {
            try {
                client.close();
            } catch (final RuntimeException ex) {
                System.err.println("peregrine: closing a client failed: " + ex);
            }
        }
    }

    /**
     * Every client's histogram added up.
     *
     * @return a new histogram
     */
    @Override
    Histogram measured() {
        final Histogram all = PingPongLoop.newHistogram();
        for (final Histogram histogram : histograms) {
            all.add(histogram);
        }
        return all;
    }

    @Override
    double sentRate() {
        return sentRate;
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
}
