package dev.peregrine.bench;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One-way throughput: a sender offers messages as fast as the transport takes them, a receiver thread checks
 * that every sequence number arrives once and in order, and the rate is taken over the measured window as the
 * receiver saw it. The window is a time (warm-up, then measured seconds: the default, so a fast transport is
 * not measured over a few milliseconds of still-compiling code) or a count of messages. Both sides run in
 * this JVM on two threads ({@code --in-process}) or, by default, the receiver in a JVM of its own.
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
        try (ReceivingEnd receiving = spec.inProcess() ? new ThreadEnd(spec, window, config, progress)
                : new ChildEnd(spec, window, config);
             StreamSender sender = spec.transport().connectStreamSender(config)) {
            final long cap = timed ? Long.MAX_VALUE : spec.warmup() + spec.messages();
            final long limitNs = (long)(spec.timeLimitSeconds() * 1e9);
            progress.phase(spec.label(), timed ? "streaming (warm-up, then measuring)" : "streaming", timed ? 0 : cap);
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
                    if ((sequence & 255) == 0) {
                        if (receiving.stopSending() || stopRequested || limitNs != 0 && System.nanoTime() - deadline > 0) {
                            break;
                        }
                        if (!receiving.inProcess()) {
                            progress.advance(sequence); // a receiver thread of this JVM reports its own
                        }
                    }
                } else if ((++spins & 1023) == 0 && (receiving.stopSending() || !receiving.isAlive() || stopRequested)) {
                    break;
                }
            }
            final long allocatedAfter = ThreadAllocation.currentThread();
            sender.flush(); // a batching sender may still hold the last messages
            final StreamReceiverChild.Result outcome = receiving.finish(sequence);
            final RuntimeCounters runtime = RuntimeCounters.now().since(before);
            final long measured = outcome.measured();
            if (measured <= 0) {
                return noNumbers(spec, RunResult.Status.FAILED, !outcome.failure().isEmpty() ? outcome.failure()
                    : stopRequested ? "interrupted before measuring" : "received " + outcome.received() + " of " + sequence);
            }
            final double seconds = outcome.windowNs() / 1e9;
            final RunResult.Status status = outcome.failure().isEmpty() && outcome.windowEnded()
                && outcome.received() == sequence && !stopRequested ? RunResult.Status.OK : RunResult.Status.PARTIAL;
            final String loss = outcome.lost() == 0 ? null : String.format(java.util.Locale.ROOT,
                "%d of %d messages in the window lost (%.2f%%): datagrams without a recovery layer", outcome.lost(),
                outcome.lost() + measured, 100.0 * outcome.lost() / (outcome.lost() + measured));
            final String note = status == RunResult.Status.OK ? loss
                : !outcome.failure().isEmpty() ? "stopped: " + outcome.failure()
                : "received " + outcome.received() + " of " + sequence + (outcome.windowEnded() ? "" : ", measurement cut short");
            return new RunResult(spec.scenario(), spec.transport().name(), spec.transport().path(),
                Transports.isPeregrine(spec.transport()), spec.size(), measured, 0, 1, null,
                seconds > 0 ? measured / seconds : Double.NaN,
                allocatedBefore < 0 ? Double.NaN : (double)(allocatedAfter - allocatedBefore) / sequence,
                outcome.allocatedPerMessage(), runtime, receiving.runtime(), status, note);
        }
    }

    /** Where the messages go: a thread of this JVM, or a JVM of its own. */
    private interface ReceivingEnd extends AutoCloseable {
        /** Whether the window is over or the receiver failed: the sender may stop. */
        boolean stopSending();

        /** Whether the receiver still runs. */
        boolean isAlive();

        /** Whether it shares this JVM (and so this JVM's progress line). */
        boolean inProcess();

        /** Says how many were sent, waits for the receiver to drain them, and returns what it measured. */
        StreamReceiverChild.Result finish(long sent) throws Exception;

        /** JIT and GC counters of the receiver's JVM, if it is not this one. */
        RuntimeCounters runtime();

        @Override
        void close();
    }

    /** The receiver on a thread of this JVM. */
    private static final class ThreadEnd implements ReceivingEnd {
        private final StreamChecker checker;
        private final StreamReceiver receiver;
        private final Thread thread;

        ThreadEnd(final RunSpec spec, final Window window, final BenchConfig config, final Progress progress)
            throws Exception {
            this.checker = new StreamChecker(spec.warmup(), spec.messages(), window, spec.label(), progress,
                spec.transport().lossy());
            this.receiver = spec.transport().startStreamReceiver(config);
            this.thread = new Thread(() -> checker.drain(receiver), "bench-stream-receiver");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public boolean stopSending() {
            return checker.stopSending;
        }

        @Override
        public boolean isAlive() {
            return thread.isAlive();
        }

        @Override
        public boolean inProcess() {
            return true;
        }

        @Override
        public StreamReceiverChild.Result finish(final long sent) throws InterruptedException {
            checker.total = sent;
            thread.join(TimeUnit.NANOSECONDS.toMillis(PingPongLoop.NO_ECHO_TIMEOUT_NS) + 1000);
            checker.stop = true;
            thread.join(1000);
            return StreamReceiverChild.Result.of(checker);
        }

        @Override
        public RuntimeCounters runtime() {
            return RuntimeCounters.UNKNOWN;
        }

        @Override
        public void close() {
            checker.stop = true;
            receiver.close();
        }
    }

    /** The receiver in a JVM of its own ({@code responder --stream}). */
    private static final class ChildEnd implements ReceivingEnd {
        private final ChildResponderSide child;
        private RuntimeCounters runtime = RuntimeCounters.UNKNOWN;

        ChildEnd(final RunSpec spec, final Window window, final BenchConfig config) throws Exception {
            final boolean counted = window.seconds() <= 0;
            this.child = ChildResponderSide.start(spec.transport(), config, 1, spec.responderCpu(), List.of("--stream",
                "--warmup=" + spec.warmup(), "--messages=" + (counted ? spec.messages() : 0),
                "--warmup-seconds=" + window.warmupSeconds(), "--seconds=" + window.seconds()));
        }

        @Override
        public boolean stopSending() {
            return child.stopSeen();
        }

        @Override
        public boolean isAlive() {
            return child.process().isAlive();
        }

        @Override
        public boolean inProcess() {
            return false;
        }

        @Override
        public StreamReceiverChild.Result finish(final long sent) throws InterruptedException {
            child.send("SENT " + sent);
            final long timeoutMs = TimeUnit.NANOSECONDS.toMillis(PingPongLoop.NO_ECHO_TIMEOUT_NS) + 10_000;
            final String line = child.await("RESULT", timeoutMs);
            if (line == null || !line.startsWith("RESULT")) {
                throw new IllegalStateException("the receiver JVM gave no result: " + line);
            }
            final String stats = child.await("STATS", 10_000);
            if (stats != null && stats.startsWith("STATS")) {
                runtime = ResponderStats.parse(stats).runtime();
            }
            return StreamReceiverChild.Result.parse(line);
        }

        @Override
        public RuntimeCounters runtime() {
            return runtime;
        }

        @Override
        public void close() {
            child.close();
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
}
