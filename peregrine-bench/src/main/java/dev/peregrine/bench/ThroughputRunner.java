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
 * One-way throughput: a sender offers messages as fast as the transport takes them, a receiver thread checks
 * that every sequence number arrives once and in order, and the rate is taken over the measured window as the
 * receiver saw it. The window is a time (warm-up, then measured seconds: the default, so a fast transport is
 * not measured over a few milliseconds of still-compiling code) or a count of messages. Both sides run in
 * this JVM, on two threads.
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
     * @param window warm-up and measured time, or {@link Window#COUNTED}
     * @return the result, whatever happened
     */
    public RunResult run(final RunSpec spec, final Window window) {
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
            return measure(spec, window, config);
        } catch (final Exception | LinkageError ex) {
            return noNumbers(spec, RunResult.Status.FAILED, ResponderCommand.oneLine(ex));
        } finally {
            progress.endLine();
            RunEnvironment.deleteFolder(folder);
        }
    }

    private RunResult measure(final RunSpec spec, final Window window, final BenchConfig config) throws Exception {
        final boolean timed = window.seconds() > 0;
        final long cap = timed ? Long.MAX_VALUE : spec.warmup() + spec.messages();
        final long limitNs = (long)(spec.timeLimitSeconds() * 1e9);
        final Checker checker = new Checker(spec, window, progress);
        try (StreamReceiver receiver = spec.transport().startStreamReceiver(config);
             StreamSender sender = spec.transport().connectStreamSender(config)) {
            final Thread receiving = new Thread(() -> checker.drain(receiver), "bench-stream-receiver");
            receiving.setDaemon(true);
            receiving.start();
            progress.phase(spec.label(), timed ? "warm-up" : "streaming", timed ? 0 : cap);
            final RuntimeCounters before = RuntimeCounters.now();
            final long allocatedBefore = ThreadAllocation.currentThread();
            final long deadline = System.nanoTime() + limitNs;
            long sequence = 0;
            long spins = 0;
            while (sequence < cap) {
                if (sender.offer(sequence)) {
                    sequence++;
                    // the flags are read every 256 messages: a volatile read per message would cost more
                    // than some transports' whole offer
                    if ((sequence & 255) == 0 && (checker.stopSending || checker.failure.get() != null
                        || stopRequested || limitNs != 0 && System.nanoTime() - deadline > 0)) {
                        break;
                    }
                } else if ((++spins & 1023) == 0 && (!receiving.isAlive() || checker.stopSending || stopRequested)) {
                    break;
                }
            }
            checker.total = sequence; // the receiver drains what was sent, then stops
            final long allocatedAfter = ThreadAllocation.currentThread();
            receiving.join(TimeUnit.NANOSECONDS.toMillis(PingPongLoop.NO_ECHO_TIMEOUT_NS) + 1000);
            checker.stop = true;
            receiving.join(1000);
            final RuntimeCounters runtime = RuntimeCounters.now().since(before);
            final Throwable failure = checker.failure.get();
            final boolean measuredAll = checker.endNs != 0;
            final long startSequence = checker.startSequence;
            final long endSequence = measuredAll ? checker.endSequence : checker.received;
            final long measured = checker.startNs == 0 ? 0 : Math.max(0, endSequence - startSequence);
            if (measured == 0) {
                return noNumbers(spec, RunResult.Status.FAILED, failure != null ? ResponderCommand.oneLine(failure)
                    : stopRequested ? "interrupted before measuring" : "received " + checker.received + " of " + sequence);
            }
            final long end = measuredAll ? checker.endNs : checker.lastNs;
            final double seconds = (end - checker.startNs) / 1e9;
            final RunResult.Status status = failure == null && measuredAll && checker.received == sequence && !stopRequested
                ? RunResult.Status.OK : RunResult.Status.PARTIAL;
            final String note = status == RunResult.Status.OK ? null
                : failure != null ? "stopped: " + ResponderCommand.oneLine(failure)
                : "received " + checker.received + " of " + sequence + (measuredAll ? "" : ", measurement cut short");
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

    /**
     * How long a throughput run warms up and measures. With {@code seconds} 0 the run is counted instead:
     * {@link RunSpec#warmup()} messages, then {@link RunSpec#messages()} measured.
     *
     * @param warmupSeconds the least warm-up time (and at least {@link RunSpec#warmup()} messages)
     * @param seconds the measured time, or 0 to count messages
     */
    public record Window(double warmupSeconds, double seconds) {
        /** Counted by messages, as the spec says. */
        public static final Window COUNTED = new Window(0, 0);

        /**
         * Checks the values.
         */
        public Window {
            if (!(warmupSeconds >= 0) || !(seconds >= 0)) {
                throw new IllegalArgumentException("warmupSeconds=" + warmupSeconds + " seconds=" + seconds
                    + " must be at least 0");
            }
        }
    }

    /**
     * The receiving thread's state. It checks every sequence number and decides the measured window: by
     * count, exactly at the message that ends the warm-up and at the last one; by time, at the end of the
     * first poll that finds the phase's time over (a poll delivers at most a few thousand messages, so the
     * window is exact to well under a millisecond). Per message it does a compare and an increment of a
     * plain field; clocks are read once per poll.
     */
    private static final class Checker implements LongConsumer {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final long warmup;
        final long countedEnd;
        final long warmupNs;
        final long measureNs;
        final String label;
        final Progress progress;
        volatile long total = Long.MAX_VALUE;
        volatile boolean stopSending;
        volatile boolean stop;
        // written by the receiving thread; read by the sender after join()
        long received;
        long startNs;
        long startSequence;
        long endNs;
        long endSequence;
        long lastNs;

        Checker(final RunSpec spec, final Window window, final Progress progress) {
            final boolean timed = window.seconds() > 0;
            this.warmup = spec.warmup();
            this.countedEnd = timed ? -1 : spec.warmup() + spec.messages();
            this.warmupNs = (long)(window.warmupSeconds() * 1e9);
            this.measureNs = (long)(window.seconds() * 1e9);
            this.label = spec.label();
            this.progress = progress;
        }

        @Override
        public void accept(final long sequence) {
            final long expected = received;
            if (sequence != expected) {
                throw new IllegalStateException("sequence gap: expected=" + expected + " got=" + sequence);
            }
            final long next = expected + 1;
            received = next;
            if (countedEnd > 0) {
                if (next == warmup || warmup == 0 && next == 1) {
                    startNs = System.nanoTime();
                    startSequence = warmup == 0 ? 0 : next;
                }
                if (next == countedEnd) {
                    endNs = System.nanoTime();
                    endSequence = next;
                    stopSending = true;
                }
            }
        }

        void drain(final StreamReceiver receiver) {
            try {
                long lastProgress = System.nanoTime();
                long firstNs = 0;
                while (received < total && !stop) {
                    final int got = receiver.poll(this);
                    final long now = System.nanoTime();
                    if (got > 0) {
                        lastProgress = now;
                        lastNs = now;
                        if (countedEnd < 0) {
                            if (firstNs == 0) {
                                firstNs = now;
                            }
                            if (startNs == 0 && now - firstNs >= warmupNs && received >= warmup) {
                                startNs = now;
                                startSequence = received;
                                progress.phase(label, "measuring", 0);
                            } else if (startNs != 0 && endNs == 0 && now - startNs >= measureNs) {
                                endNs = now;
                                endSequence = received;
                                stopSending = true;
                            }
                        }
                        progress.advance(received);
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
