package dev.peregrine.bench.run;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.reactor.ThreadAffinity;
import org.HdrHistogram.Histogram;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A client thread of a ping-pong run, whatever it drives: it pins itself, connects, warms up, says so, waits for
 * the go, and measures, keeping what {@link BenchRunner} reads once the thread has ended (the window it measured,
 * the bytes it allocated in it, the messages lost in it, and the first error). Subclasses say how to connect,
 * what a warm-up and a measurement are, and how to close: {@link ClientRun} is one client on a thread of its own,
 * {@link SharedClientsRun} every client on one thread.
 *
 * <p>A thread that has measured counts down {@code measured} and closes its connections only once the runner
 * releases {@code mayClose}: the runner reads a responder's "after" figures in between, so that they cover the
 * measured messages and not the responder's end-of-connection path (an EOF, a close), which would otherwise race
 * with that reading.
 *
 * <p>The fields are written by the client thread and read by the runner after {@link #thread} has ended (or, for
 * {@link #error}, while it waits for the warm-up); {@link #requestStop()} may be called from any thread.
 */
abstract class ClientSideRun implements Runnable {
    final RunSpec spec;
    final BenchConfig config;
    final Thread thread;
    final AtomicReference<Throwable> error = new AtomicReference<>();
    private final String who;
    private final int cpu;
    private final CountDownLatch warmedUp;
    private final CountDownLatch go;
    private final CountDownLatch measured;
    private final CountDownLatch mayClose;
    private volatile boolean stopRequested;
    volatile long allocatedBefore = -1;
    volatile long allocatedAfter = -1;
    volatile long lostBefore;
    volatile long lostAfter;
    volatile long startNs;
    volatile long endNs;

    /**
     * @param spec the run
     * @param config where to connect
     * @param who what this thread drives, for messages ("client", "clients")
     * @param cpu the CPU to pin the thread to, or -1
     * @param warmedUp counted down once this thread has warmed up
     * @param go awaited before measuring
     * @param measured counted down once this thread's measurement has ended, however it ended (or could not start)
     * @param mayClose awaited, once measured, before closing
     */
    ClientSideRun(final RunSpec spec, final BenchConfig config, final String who, final int cpu,
                  final CountDownLatch warmedUp, final CountDownLatch go, final CountDownLatch measured,
                  final CountDownLatch mayClose) {
        this.spec = spec;
        this.config = config;
        this.who = who;
        this.cpu = cpu;
        this.warmedUp = warmedUp;
        this.go = go;
        this.measured = measured;
        this.mayClose = mayClose;
        this.thread = new Thread(this, "bench-" + who + "-" + config.port());
        thread.setDaemon(true);
    }

    /**
     * Connects and makes the loop that {@link #warmUp} and {@link #measure} drive; calls {@link #stopRequested()}
     * once that loop can be stopped.
     *
     * @throws Exception if it cannot connect
     */
    abstract void connect() throws Exception;

    /**
     * The unmeasured messages.
     *
     * @param deadlineNs when to give up ({@link System#nanoTime()}), 0 for never
     */
    abstract void warmUp(long deadlineNs);

    /**
     * The measured messages, into this run's histograms.
     *
     * @param deadlineNs when to stop ({@link System#nanoTime()}), 0 for never
     */
    abstract void measure(long deadlineNs);

    /**
     * Messages lost so far (datagrams without a recovery layer).
     *
     * @return the count
     */
    abstract long lost();

    /** Stops the loop, if there is one yet. */
    abstract void stopLoop();

    /** Closes what {@link #connect()} opened, if anything; called on the client thread, whatever happened. */
    abstract void close();

    /**
     * Every latency this thread measured.
     *
     * @return a histogram the caller may add to
     */
    abstract Histogram measured();

    /**
     * The rate each client sustained in the measurement, messages per second.
     *
     * @return the rate, or NaN if not measured
     */
    double sentRate() {
        return Double.NaN;
    }

    /** Called on the client thread when the measurement has ended, however it ended. */
    void measurementEnded() {
    }

    /** Asks the loop to stop, now or as soon as it exists; from any thread. */
    final void requestStop() {
        stopRequested = true;
        stopLoop();
    }

    /**
     * Whether {@link #requestStop()} came before the loop existed: a subclass asks right after publishing its loop,
     * so that a request between the two is not missed.
     *
     * @return true if the loop must stop at once
     */
    final boolean stopRequested() {
        return stopRequested;
    }

    @Override
    public final void run() {
        if (cpu >= 0) {
            final String why = ThreadAffinity.pinCurrentThread(cpu);
            if (why != null) {
                System.err.println("peregrine: " + who + " not pinned to cpu " + cpu + ": " + why);
            }
        }
        boolean ended = false;
        try {
            connect();
            final long limitNs = (long)(spec.timeLimitSeconds() * 1e9);
            warmUp(limitNs == 0 ? 0 : System.nanoTime() + limitNs / 2);
            warmedUp.countDown();
            go.await();
            startNs = System.nanoTime();
            allocatedBefore = ThreadAllocation.currentThread();
            lostBefore = lost();
            try {
                measure(limitNs == 0 ? 0 : startNs + limitNs);
            } finally {
                allocatedAfter = ThreadAllocation.currentThread();
                lostAfter = lost();
                endNs = System.nanoTime();
                measurementEnded();
                measured.countDown();
                ended = true;
            }
            // the connections stay open until the runner has read the responder's "after" figures
            mayClose.await();
        } catch (final Throwable ex) {
            error.compareAndSet(null, ex);
        } finally {
            if (!ended) {
                measured.countDown();
            }
            try {
                close();
            } catch (final RuntimeException ex) { // what was measured stands
                System.err.println("peregrine: closing the " + who + " failed: " + ex);
            }
        }
    }
}
