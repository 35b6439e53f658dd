package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.BlockingClients;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import org.HdrHistogram.Histogram;

import java.util.concurrent.CountDownLatch;

/**
 * One client on a thread of its own, with a responder of its own: one message in flight, or messages at the run's
 * rate on the client's schedule ({@link PingPongLoop}).
 */
final class ClientRun extends ClientSideRun {
    private final Progress progress;
    private final Histogram histogram = PingPongLoop.newHistogram();
    private PingClient client;
    private long[] intended;
    private volatile PingPongLoop loop;

    /**
     * @param spec the run
     * @param config where to connect
     * @param progress where this client reports its progress, or null (when another client does)
     * @param cpu the CPU to pin the thread to, or -1
     * @param warmedUp counted down once this client has warmed up
     * @param go awaited before measuring
     * @param measured counted down once the measurement has ended
     * @param mayClose awaited before closing
     */
    ClientRun(final RunSpec spec, final BenchConfig config, final Progress progress, final int cpu,
              final CountDownLatch warmedUp, final CountDownLatch go, final CountDownLatch measured,
              final CountDownLatch mayClose) {
        super(spec, config, "client", cpu, warmedUp, go, measured, mayClose);
        this.progress = progress;
    }

    @Override
    void connect() throws Exception {
        final PingPongLoop pingPong;
        if (spec.clientBlocks()) {
            if (!(spec.transport() instanceof BlockingClients blocking)) {
                throw new IllegalStateException("transport=" + spec.transport().name() + " has no client that waits"
                    + " asleep");
            }
            final BlockingClients.Client sleeper = blocking.connectBlocking(config);
            client = sleeper;
            pingPong = new PingPongLoop(sleeper, progress);
        } else {
            client = spec.transport().connect(config);
            pingPong = new PingPongLoop(client, progress, spec.busySpin(), spec.transport().lossy());
        }
        loop = pingPong;
        if (stopRequested()) {
            pingPong.requestStop();
        }
        intended = spec.rate() > 0 ? new long[(int)Math.max(spec.warmup(), spec.messages())] : null;
    }

    @Override
    void warmUp(final long deadlineNs) {
        if (progress != null) {
            progress.phase(spec.label(), "warm-up", spec.warmup());
        }
        run(0, spec.warmup(), null, deadlineNs);
    }

    @Override
    void measure(final long deadlineNs) {
        run(spec.warmup(), spec.messages(), histogram, deadlineNs);
    }

    private void run(final long first, final long count, final Histogram into, final long deadlineNs) {
        if (count == 0) {
            return;
        }
        if (spec.rate() > 0) {
            loop.atRate(first, count, spec.rate(), intended, into, deadlineNs);
        } else {
            loop.oneInFlight(first, count, into, deadlineNs);
        }
    }

    @Override
    long lost() {
        return loop.lost();
    }

    @Override
    void stopLoop() {
        final PingPongLoop current = loop;
        if (current != null) {
            current.requestStop();
        }
    }

    @Override
    void close() {
        if (client != null) {
            client.close();
        }
    }

    @Override
    Histogram measured() {
        return histogram;
    }
}
