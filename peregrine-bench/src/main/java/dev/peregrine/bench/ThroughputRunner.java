package dev.peregrine.bench;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * One-way throughput: a sender offers {@code warmup + messages} messages as fast as the transport takes
 * them, a receiver thread checks that every sequence number arrives once and in order, and the rate is
 * taken over the measured messages as the receiver saw them. Both sides run in this JVM, on two threads.
 */
public final class ThroughputRunner {
    private final Progress progress;
    private volatile boolean stopRequested;

    /**
     * Creates a runner.
     *
     * @param progress where progress goes
     */
    public ThroughputRunner(final Progress progress) {
        this.progress = progress;
    }

    /** Asks a running measurement to stop (Ctrl-C). */
    public void requestStop() {
        stopRequested = true;
    }

    /**
     * Measures one transport at one size.
     *
     * @param spec what to run ({@code rate} and {@code clients} are ignored)
     * @return the result, whatever happened
     */
    public RunResult run(final RunSpec spec) {
        final BenchTransport transport = spec.transport();
        final Path folder = RunEnvironment.freshFolder();
        try {
            final BenchConfig config = new BenchConfig(spec.host(), RunEnvironment.freePorts(spec.host(), BenchConfig.PORTS_PER_RESPONDER),
                spec.size(), folder, spec.busySpin());
            final String unavailable = transport.unavailableReason(config);
            if (unavailable != null) {
                return noNumbers(spec, RunResult.Status.UNAVAILABLE, unavailable);
            }
            if (!transport.supportsStream()) {
                return noNumbers(spec, RunResult.Status.UNAVAILABLE, transport.name() + " has no one-way stream mode");
            }
            return measure(spec, config);
        } catch (final Exception | LinkageError ex) {
            return noNumbers(spec, RunResult.Status.FAILED, ResponderCommand.oneLine(ex));
        } finally {
            progress.endLine();
            RunEnvironment.deleteFolder(folder);
        }
    }

    private RunResult measure(final RunSpec spec, final BenchConfig config) throws Exception {
        final long total = spec.warmup() + spec.messages();
        final long limitNs = (long)(spec.timeLimitSeconds() * 1e9);
        final Checker checker = new Checker(spec.warmup(), total);
        try (StreamReceiver receiver = spec.transport().startStreamReceiver(config);
             StreamSender sender = spec.transport().connectStreamSender(config)) {
            final Thread receiving = new Thread(() -> checker.drain(receiver), "bench-stream-receiver");
            receiving.setDaemon(true);
            receiving.start();
            progress.phase(spec.label(), "streaming", total);
            final RuntimeCounters before = RuntimeCounters.now();
            final long allocatedBefore = ThreadAllocation.currentThread();
            final long deadline = System.nanoTime() + limitNs;
            long sequence = 0;
            long spins = 0;
            while (sequence < total && checker.failure.get() == null && !stopRequested) {
                if (sender.offer(sequence)) {
                    sequence++;
                    progress.advance(sequence);
                    if (limitNs != 0 && (sequence & 1023) == 0 && System.nanoTime() - deadline > 0) {
                        break;
                    }
                } else if ((++spins & 1023) == 0 && !receiving.isAlive()) {
                    break;
                }
            }
            if (sequence < total) {
                checker.total = sequence; // stopped early: the receiver waits for what was sent
            }
            final long allocatedAfter = ThreadAllocation.currentThread();
            receiving.join(TimeUnit.NANOSECONDS.toMillis(PingPongLoop.NO_ECHO_TIMEOUT_NS) + 1000);
            checker.stop = true;
            receiving.join(1000);
            final RuntimeCounters runtime = RuntimeCounters.now().since(before);
            final long measured = Math.max(0, checker.received - spec.warmup());
            final Throwable failure = checker.failure.get();
            if (measured == 0) {
                return noNumbers(spec, RunResult.Status.FAILED, failure != null ? ResponderCommand.oneLine(failure)
                    : stopRequested ? "interrupted before measuring" : "received " + checker.received + " of " + total);
            }
            final long end = checker.endNs != 0 ? checker.endNs : checker.lastNs;
            final double seconds = (end - checker.startNs) / 1e9;
            final RunResult.Status status = failure == null && checker.received == total && !stopRequested
                ? RunResult.Status.OK : RunResult.Status.PARTIAL;
            final String note = status == RunResult.Status.OK ? null
                : failure != null ? "stopped: " + ResponderCommand.oneLine(failure)
                : "received " + checker.received + " of " + total;
            return new RunResult(spec.scenario(), spec.transport().name(), spec.transport().path(),
                Transports.isPeregrine(spec.transport()), spec.size(), measured, 0, 1, null,
                seconds > 0 ? measured / seconds : Double.NaN,
                allocatedBefore < 0 ? Double.NaN : (double)(allocatedAfter - allocatedBefore) / sequence, Double.NaN,
                runtime, RuntimeCounters.UNKNOWN, status, note);
        }
    }

    private static RunResult noNumbers(final RunSpec spec, final RunResult.Status status, final String note) {
        return RunResult.withoutNumbers(spec.scenario(), spec.transport().name(), spec.transport().path(),
            Transports.isPeregrine(spec.transport()), spec.size(), 0, 1, status, note);
    }

    /** The receiving thread's state: the next expected sequence and the times of the measured window. */
    private static final class Checker implements LongConsumer {
        final long warmup;
        volatile long total;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile long received;
        volatile long startNs;
        volatile long endNs;
        volatile long lastNs;
        volatile boolean stop;

        Checker(final long warmup, final long total) {
            this.warmup = warmup;
            this.total = total;
        }

        @Override
        public void accept(final long sequence) {
            final long expected = received;
            if (sequence != expected) {
                throw new IllegalStateException("sequence gap: expected=" + expected + " got=" + sequence);
            }
            final long next = expected + 1;
            received = next;
            if (next == warmup || warmup == 0 && next == 1) {
                startNs = System.nanoTime();
            }
            if (next == total) {
                endNs = System.nanoTime();
            }
        }

        void drain(final StreamReceiver receiver) {
            try {
                long lastProgress = System.nanoTime();
                while (received < total && !stop) {
                    final int got = receiver.poll(this);
                    final long now = System.nanoTime();
                    if (got > 0) {
                        lastProgress = now;
                        lastNs = now;
                    } else if (now - lastProgress > PingPongLoop.NO_ECHO_TIMEOUT_NS) {
                        throw new IllegalStateException("nothing received for "
                            + TimeUnit.NANOSECONDS.toSeconds(PingPongLoop.NO_ECHO_TIMEOUT_NS) + " s after "
                            + received + " messages");
                    } else {
                        Thread.onSpinWait();
                    }
                }
            } catch (final RuntimeException ex) {
                failure.compareAndSet(null, ex);
            }
        }
    }
}
