package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.FreePorts;
import dev.peregrine.reactor.NanoClock;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * One-way throughput: a sender offers messages as fast as the transport takes them, a receiver thread checks
 * that every sequence number arrives once and in order, and the rate is taken over the measured window as the
 * receiver saw it. The window is a time (warm-up, then measured seconds: the default, so a fast transport is
 * not measured over a few milliseconds of still-compiling code) or a count of messages. Both sides run in
 * this JVM on two threads ({@code --in-process}) or, by default, the receiver in a JVM of its own. The sender
 * offers messages in batches and flushes after each one ({@link StreamSender#flush()}), as an application with
 * many messages at once does, and flushes until nothing is left after the last. A batch is a count of messages
 * or a payload size ({@link Batch}); by default 64 KiB of payload, 256 messages when paced.
 */
public final class ThroughputRunner {
    /**
     * The rate at which an unpaced stream without flow control but with a recovery layer (MoldUDP64) is offered
     * during the first {@link #PACED_WARMUP_SHARE} of a timed warm-up: see {@link #run(RunSpec, Window, Batch,
     * StreamLoss)}.
     */
    static final long WARMUP_RATE = 1_000_000;
    /** The port an availability check describes: any, as no socket is opened; five digits, as a free port has. */
    private static final int PROBE_PORT = 40_000;
    /** The share of a timed warm-up paced at {@link #WARMUP_RATE}; the rest is unpaced, as the measured window. */
    static final double PACED_WARMUP_SHARE = 0.75;
    /** A gap that takes longer than this to fill is reported as an overrun ({@link #overrun}). */
    static final long OVERRUN_NS = 100_000_000L;
    /** The most messages offered in one run ({@link StreamSender#offer(long, int)}). */
    static final int MAX_RUN = 256;
    /** How long the sender may take to hand its last batch to the kernel once it stopped offering. */
    private static final long FINAL_FLUSH_NS = PingPongLoop.NO_ECHO_TIMEOUT_NS;

    private final Progress progress;
    private final NanoClock clock;
    private volatile boolean stopRequested;

    /**
     * Creates a runner.
     *
     * @param progress where progress goes
     */
    public ThroughputRunner(final Progress progress) {
        this(progress, NanoClock.SYSTEM);
    }

    /**
     * Creates a runner on a clock of the caller's, so that a test can drive time: the sender's pacing, the paced
     * part of the warm-up, the time limit and an in-process receiver's windows are read from it. A receiver JVM
     * of its own keeps its system clock.
     *
     * @param progress where progress goes
     * @param clock the clock, read on the sending thread and an in-process receiver's thread
     */
    public ThroughputRunner(final Progress progress, final NanoClock clock) {
        if (clock == null) {
            throw new IllegalArgumentException("clock=null");
        }
        this.progress = progress;
        this.clock = clock;
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
        return run(spec, window, Batch.defaultFor(spec.rate()));
    }

    /**
     * Measures one transport at one size, offering messages in batches: the sender is flushed after every
     * batch and, until nothing waits in it, after the last one.
     *
     * @param spec what to run ({@code rate} and {@code clients} are ignored)
     * @param window warm-up and measured time, or {@link Window#COUNTED}
     * @param batch what the sender offers between two flushes
     * @return the result, whatever happened
     */
    public RunResult run(final RunSpec spec, final Window window, final Batch batch) {
        return run(spec, window, batch, StreamLoss.NONE);
    }

    /**
     * Measures one transport at one size, offering messages in batches and, on a transport with a recovery
     * layer ({@link RecoveringStreamTransport}), dropping some of the sender's live packets on purpose. Such
     * a sender goes on answering re-requests after the last message until the receiver has them all, and
     * the result carries the receiver's recovery latencies ({@link RunResult#recovery()}).
     *
     * <p>Such a stream has no flow control: a sender faster than its receiver overruns it, and what the kernel
     * then drops has to be recovered on top of the live stream, which a receiver that only just keeps up with
     * the live stream cannot do while the sender goes on at full speed; the gap outlives the sender's store and
     * the run fails. A receiver whose code is still being compiled is that slow. So an unpaced timed run of a
     * recovering stream offers {@value #WARMUP_RATE} messages per second for the first
     * {@value #PACED_WARMUP_SHARE} of its warm-up, and as fast as the sender takes them from then on, the
     * measured window included.
     *
     * @param spec what to run ({@code clients} is ignored; a {@code rate} above 0 paces the sender, batch by
     *     batch: {@link StreamPacer})
     * @param window warm-up and measured time, or {@link Window#COUNTED}
     * @param batch what the sender offers between two flushes
     * @param loss the simulated loss; anything but {@link StreamLoss#NONE} needs a recovering transport
     * @return the result, whatever happened
     */
    public RunResult run(final RunSpec spec, final Window window, final Batch batch, final StreamLoss loss) {
        final BenchTransport transport = spec.transport();
        final Path folder = RunEnvironment.freshFolder();
        try {
            final BenchConfig config = new BenchConfig(spec.host(), FreePorts.block(spec.host(), BenchConfig.PORTS_PER_RESPONDER),
                spec.size(), folder, spec.busySpin());
            final String unavailable = unavailableReason(spec, config, loss);
            if (unavailable != null) {
                return noNumbers(spec, RunResult.Status.UNAVAILABLE, unavailable);
            }
            return measure(spec, window, config, batch.messagesAt(spec.size()), loss);
        } catch (final Exception | LinkageError ex) {
            return noNumbers(spec, RunResult.Status.FAILED, Failures.oneLine(ex));
        } finally {
            progress.endLine();
            RunEnvironment.deleteFolder(folder);
        }
    }

    /**
     * Why {@link #run} would report a run {@link RunResult.Status#UNAVAILABLE} without starting it, or null if it
     * would run: so that a command can say so before it runs anything. A transport whose own check fails is taken
     * as available here; the run reports the failure.
     *
     * @param spec what to run
     * @param loss the simulated loss
     * @return the reason, in one sentence, or null
     */
    public static String unavailableReason(final RunSpec spec, final StreamLoss loss) {
        final Path folder = RunEnvironment.freshFolder(); // a run's folder: shm's socket path is measured in it
        try {
            return unavailableReason(spec, new BenchConfig(spec.host(), PROBE_PORT, spec.size(), folder,
                spec.busySpin()), loss);
        } catch (final RuntimeException | LinkageError ex) {
            return null;
        } finally {
            RunEnvironment.deleteFolder(folder);
        }
    }

    private static String unavailableReason(final RunSpec spec, final BenchConfig config, final StreamLoss loss) {
        final BenchTransport transport = spec.transport();
        final String unavailable = transport.unavailableReason(config);
        if (unavailable != null) {
            return unavailable;
        }
        if (!transport.supportsStream()) {
            return transport.name() + " has no one-way stream mode";
        }
        if (loss.drops() && !(transport instanceof RecoveringStreamTransport)) {
            return "--loss needs a stream with a recovery layer; " + transport.name() + " has none";
        }
        return null;
    }

    /**
     * Says so when a gap took longer than {@link #OVERRUN_NS} to fill: on a stream without flow control that is
     * a receiver overrun by the sender, which recovers only once the sender slows down or stops.
     */
    static String overrun(final Histogram recovery) {
        if (recovery == null || recovery.getTotalCount() == 0 || recovery.getMaxValue() <= OVERRUN_NS) {
            return null;
        }
        final long late = recovery.getCountBetweenValues(OVERRUN_NS + 1, recovery.getMaxValue());
        return String.format(java.util.Locale.ROOT, "%d of %d gaps took over %d ms to fill (the longest %.0f ms):"
            + " the sender overran the receiver (no flow control), which caught up only when the sender slowed",
            late, recovery.getTotalCount(), OVERRUN_NS / 1_000_000, recovery.getMaxValue() / 1e6);
    }

    private RunResult measure(final RunSpec spec, final Window window, final BenchConfig config, final int batch,
                              final StreamLoss loss) throws Exception {
        final boolean timed = window.seconds() > 0;
        try (ReceivingEnd receiving = spec.inProcess() ? new ThreadEnd(spec, window, config, progress, clock)
                : new ChildEnd(spec, window, config);
             StreamSender sender = spec.transport() instanceof final RecoveringStreamTransport recovering
                 ? recovering.connectStreamSender(config, loss) : spec.transport().connectStreamSender(config)) {
            final long cap = timed ? Long.MAX_VALUE : spec.warmup() + spec.messages();
            final long limitNs = (long)(spec.timeLimitSeconds() * 1e9);
            progress.phase(spec.label(), timed ? "streaming (warm-up, then measuring)" : "streaming", timed ? 0 : cap);
            final RuntimeCounters before = RuntimeCounters.now();
            final long deadline = clock.nanoTime() + limitNs;
            // made (and the lambda's call site linked) before the sending thread's allocation is counted
            final LongSupplier nanos = clock::nanoTime;
            final StreamPacer pacer = new StreamPacer(spec.rate(), sender, nanos);
            final boolean pacedWarmup = timed && spec.rate() == 0 && sender instanceof RecoveringStreamSender;
            final StreamPacer warmupPacer = new StreamPacer(pacedWarmup ? WARMUP_RATE : 0, sender, nanos);
            final long warmupPacedNs = (long)(window.warmupSeconds() * PACED_WARMUP_SHARE * 1e9);
            long warmupPacedUntil = 0;
            boolean warmingUp = pacedWarmup;
            final BooleanSupplier stopWaiting = () -> receiving.stopSending() || stopRequested
                || !receiving.isAlive() || limitNs != 0 && clock.nanoTime() - deadline > 0;
            final long allocatedBefore = ThreadAllocation.currentThread();
            long sequence = 0;
            long spins = 0;
            int untilFlush = batch;
            while (sequence < cap) {
                if (untilFlush == batch) {
                    if (warmingUp) {
                        final long now = clock.nanoTime();
                        if (sequence == 0) {
                            warmupPacedUntil = now + warmupPacedNs;
                        }
                        warmingUp = now - warmupPacedUntil < 0;
                    }
                    if (!(warmingUp ? warmupPacer : pacer).awaitDue(sequence, stopWaiting)) {
                        break;
                    }
                }
                // a run of the batch's messages at a time, as a sender with them at hand offers them
                final int taken = sender.offer(sequence, (int)Math.min(Math.min(untilFlush, MAX_RUN), cap - sequence));
                if (taken > 0) {
                    sequence += taken;
                    untilFlush -= taken;
                    if (untilFlush == 0) {
                        untilFlush = batch;
                        sender.flush();
                    }
                    // the flags are read once every 256 messages (a run is at most that long): a volatile read
                    // per message would cost more than some transports' whole offer
                    if ((sequence - taken) >>> 8 != sequence >>> 8) {
                        if (receiving.stopSending() || stopRequested || limitNs != 0 && clock.nanoTime() - deadline > 0) {
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
            final String unflushed = flushAll(sender, receiving, clock);
            final Servicing servicing = sender instanceof final RecoveringStreamSender recovering
                ? new Servicing(recovering) : null;
            final StreamReceiverChild.Result outcome;
            try {
                outcome = receiving.finish(sequence);
            } finally {
                if (servicing != null) {
                    servicing.stop();
                }
            }
            final RuntimeCounters runtime = RuntimeCounters.now().since(before);
            final long measured = outcome.measured();
            if (measured <= 0) {
                return noNumbers(spec, RunResult.Status.FAILED, !outcome.failure().isEmpty() ? outcome.failure()
                    : stopRequested ? "interrupted before measuring" : "received " + outcome.received() + " of " + sequence);
            }
            final double seconds = outcome.windowNs() / 1e9;
            final RunResult.Status status = outcome.failure().isEmpty() && outcome.windowEnded()
                && outcome.received() == sequence && !stopRequested ? RunResult.Status.OK : RunResult.Status.PARTIAL;
            final String lost = outcome.lost() == 0 ? null : String.format(java.util.Locale.ROOT,
                "%d of %d messages in the window lost (%.2f%%): datagrams without a recovery layer", outcome.lost(),
                outcome.lost() + measured, 100.0 * outcome.lost() / (outcome.lost() + measured));
            final String injected = !(sender instanceof final RecoveringStreamSender recovering) || !loss.drops() ? null
                : String.format(java.util.Locale.ROOT, "%d live packets dropped on purpose (--loss %s --seed %d), recovered",
                    recovering.packetsDropped(), Double.toString(loss.fraction()), loss.seed());
            final String okNote = RunResult.joinedNote(RunResult.joinedNote(lost, injected), overrun(outcome.recovery()));
            final String note = status == RunResult.Status.OK ? okNote
                : !outcome.failure().isEmpty() ? "stopped: " + outcome.failure()
                : unflushed != null ? unflushed
                : "received " + outcome.received() + " of " + sequence + (outcome.windowEnded() ? "" : ", measurement cut short");
            return new RunResult(spec.scenario(), spec.transport().name(), spec.transport().path(),
                Transports.isPeregrine(spec.transport()), spec.size(), measured, spec.rate(), 1, null,
                seconds > 0 ? measured / seconds : Double.NaN,
                allocatedBefore < 0 ? Double.NaN : (double)(allocatedAfter - allocatedBefore) / sequence,
                outcome.allocatedPerMessage(), runtime, receiving.runtime(), status, note).withRecovery(outcome.recovery());
        }
    }

    /**
     * Drives a recovering sender on a thread of its own once the last message is offered, so that it
     * answers re-requests (and sends heartbeats) while the receiver drains; the sending thread hands the
     * sender over by starting this thread and takes it back by joining it.
     */
    private static final class Servicing {
        private final Thread thread;
        private volatile boolean running = true;
        private volatile RuntimeException failure;

        Servicing(final RecoveringStreamSender sender) {
            this.thread = new Thread(() -> {
                try {
                    while (running) {
                        if (sender.service() == 0) {
                            Thread.yield(); // the receiver's catching up matters more than an answer's microseconds
                        }
                    }
                } catch (final RuntimeException ex) {
                    failure = ex;
                }
            }, "bench-stream-service");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(10_000);
            if (thread.isAlive()) {
                throw new IllegalStateException("the sender's service thread did not stop in 10 s");
            }
            if (failure != null) {
                throw new IllegalStateException("serving re-requests failed: " + Failures.oneLine(failure), failure);
            }
        }
    }

    /**
     * Flushes until nothing waits in the sender, so that everything offered reaches the receiver.
     *
     * @return null, or why some messages may still wait in the sender
     */
    private static String flushAll(final StreamSender sender, final ReceivingEnd receiving, final NanoClock clock) {
        final long deadline = clock.nanoTime() + FINAL_FLUSH_NS;
        int spins = 0;
        while (!sender.flush()) {
            if ((++spins & 1023) == 0 && (clock.nanoTime() - deadline > 0 || !receiving.isAlive())) {
                return "the sender still held messages " + FINAL_FLUSH_NS / 1_000_000 + " ms after the last offer";
            }
            Thread.onSpinWait();
        }
        return null;
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

        ThreadEnd(final RunSpec spec, final Window window, final BenchConfig config, final Progress progress,
                  final NanoClock clock) throws Exception {
            this.checker = new StreamChecker(spec.warmup(), spec.messages(), window, spec.label(), progress,
                spec.transport().lossy(), clock);
            this.receiver = spec.transport().startStreamReceiver(config);
            this.thread = new Thread(() -> drainAndClose(checker, receiver), "bench-stream-receiver");
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
            try {
                thread.join(TimeUnit.NANOSECONDS.toMillis(PingPongLoop.NO_ECHO_TIMEOUT_NS) + 1000);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                receiver.close(); // the receiving thread is stuck: release what can be released from here
            }
        }
    }

    /**
     * Drains on the receiving thread, then closes the receiver on that same thread: a receiver driven by its
     * polling thread (Netty's {@code ManualIoEventLoop}) can be shut down only by that thread.
     *
     * @param checker the checker
     * @param receiver the receiver
     */
    static void drainAndClose(final StreamChecker checker, final StreamReceiver receiver) {
        try {
            checker.drain(receiver);
        } finally {
            try {
                receiver.close();
            } catch (final RuntimeException ex) {
                checker.failure.compareAndSet(null, new IllegalStateException("closing the receiver failed: "
                    + Failures.oneLine(ex), ex));
            }
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
