package dev.peregrine.bench.session;

import dev.peregrine.bench.report.LatencyTable;
import dev.peregrine.bench.report.Summary;
import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.run.Progress;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.run.ThroughputRunner;
import dev.peregrine.peers.StreamLoss;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The runs of one command: executes them one after another, prints each result as it comes, and on Ctrl-C
 * (a shutdown hook) stops the running measurement and prints everything measured so far, the interrupted
 * run included.
 */
public final class BenchSession implements AutoCloseable {
    private static final long INTERRUPT_WAIT_MS = 3000;

    private final PrintStream out;
    private final Progress progress;
    private final BenchRunner pingPong;
    private final ThroughputRunner throughput;
    private final List<RunResult> results = new ArrayList<>();
    private final Thread hook;
    private final boolean printEach;
    private boolean running;
    private volatile boolean finished;

    /**
     * Starts a session and installs its Ctrl-C hook.
     *
     * @param out where tables go
     * @param err where progress goes
     * @param quiet no progress line
     * @param printEach whether to print each run's full table as it finishes
     */
    public BenchSession(final PrintStream out, final PrintStream err, final boolean quiet, final boolean printEach) {
        this.out = out;
        this.printEach = printEach;
        this.progress = new Progress(err, quiet);
        this.pingPong = new BenchRunner(progress);
        this.throughput = new ThroughputRunner(progress);
        this.hook = new Thread(this::stopAndPrint, "bench-ctrl-c");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Runs a ping-pong or load run.
     *
     * @param spec the run
     * @return its result, or null if the session is stopping and the run was not started
     */
    public RunResult pingpong(final RunSpec spec) {
        return run(() -> pingPong.pingpong(spec));
    }

    /**
     * Runs a throughput run.
     *
     * @param spec the run
     * @param window warm-up and measured time, or {@link ThroughputRunner.Window#COUNTED}
     * @return its result, or null if the session is stopping
     */
    public RunResult throughput(final RunSpec spec, final ThroughputRunner.Window window) {
        return throughput(spec, window, Batch.defaultFor(spec.rate()));
    }

    /**
     * Runs a throughput run, flushing the sender after every batch.
     *
     * @param spec the run
     * @param window warm-up and measured time, or {@link ThroughputRunner.Window#COUNTED}
     * @param batch what the sender offers between two flushes
     * @return its result, or null if the session is stopping
     */
    public RunResult throughput(final RunSpec spec, final ThroughputRunner.Window window, final Batch batch) {
        return throughput(spec, window, batch, StreamLoss.NONE);
    }

    /**
     * Runs a throughput run, flushing the sender after every batch and dropping some of its live packets on
     * purpose ({@link ThroughputRunner#run(RunSpec, ThroughputRunner.Window, Batch, StreamLoss)}).
     *
     * @param spec the run
     * @param window warm-up and measured time, or {@link ThroughputRunner.Window#COUNTED}
     * @param batch what the sender offers between two flushes
     * @param loss the simulated loss
     * @return its result, or null if the session is stopping
     */
    public RunResult throughput(final RunSpec spec, final ThroughputRunner.Window window, final Batch batch,
                                final StreamLoss loss) {
        return run(() -> throughput.run(spec, window, batch, loss));
    }

    /**
     * Records a result that was not run (e.g. an unavailable transport).
     *
     * @param result the result
     */
    public void add(final RunResult result) {
        synchronized (this) {
            results.add(result);
        }
        if (printEach && !stopping()) { // when stopping, the Ctrl-C hook prints everything once
            out.print(LatencyTable.format(result));
            out.println();
            out.flush();
        }
    }

    private RunResult run(final Supplier<RunResult> body) {
        synchronized (this) {
            if (pingPong.stopRequested()) {
                return null;
            }
            running = true;
        }
        RunResult result = null;
        try {
            result = body.get();
            add(result);
            return result;
        } finally {
            synchronized (this) {
                running = false;
                notifyAll();
            }
        }
    }

    /**
     * Whether Ctrl-C stopped the session.
     *
     * @return true once stopping
     */
    public boolean stopping() {
        return pingPong.stopRequested();
    }

    /**
     * The results so far.
     *
     * @return a copy
     */
    public synchronized List<RunResult> results() {
        return new ArrayList<>(results);
    }

    /**
     * The progress display.
     *
     * @return it
     */
    public Progress progress() {
        return progress;
    }

    /**
     * What Ctrl-C does (the shutdown hook): stops the running measurement, waits briefly for it to hand over
     * its partial result, and prints everything measured so far.
     */
    void stopAndPrint() {
        if (finished) {
            return;
        }
        pingPong.requestStop();
        throughput.requestStop();
        final List<RunResult> soFar;
        synchronized (this) {
            final long deadline = System.currentTimeMillis() + INTERRUPT_WAIT_MS;
            while (running && System.currentTimeMillis() < deadline) {
                try {
                    wait(Math.max(1, deadline - System.currentTimeMillis()));
                } catch (final InterruptedException ex) {
                    break;
                }
            }
            soFar = new ArrayList<>(results);
        }
        progress.close();
        out.println();
        out.println("Interrupted. What was measured so far (" + soFar.size() + " run(s), the last one possibly partial):");
        for (final RunResult result : soFar) {
            out.print(LatencyTable.format(result));
        }
        if (!soFar.isEmpty()) {
            out.print(Summary.pingpong(soFar, List.of()).toText());
        }
        out.flush();
    }

    @Override
    public void close() {
        finished = true;
        progress.close();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (final IllegalStateException ex) {
            // already shutting down: the hook runs (and returns at once, as finished is set)
        }
    }
}
