package dev.peregrine.bench.run;

import dev.peregrine.peers.RecoveringStreamReceiver;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.reactor.NanoClock;
import org.HdrHistogram.Histogram;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * The receiving side of a throughput run, on a thread of its own: it checks that every sequence number
 * arrives once and in order, and decides the measured window. Counted, exactly at the message that ends
 * the warm-up and at the last measured one; timed, at the end of the first poll that finds the phase's time
 * over (a poll delivers at most a few thousand messages, so the window is exact to well under a
 * millisecond). Per message it does a compare and an increment of a plain field; the clock is read once per
 * poll. Used in the sender's JVM ({@link ThroughputRunner}) and in a receiver JVM of its own
 * ({@link StreamReceiverChild}, started as {@link ResponderChild} with {@code --stream}).
 */
final class StreamChecker implements LongConsumer {
    /** How long a lossy receiver waits, once the sender is done, before it counts the rest as lost. */
    static final long LOSSY_DRAIN_NS = 500_000_000L;

    final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** What the sender sent in all; the receiver drains up to it, then stops. */
    volatile long total = Long.MAX_VALUE;
    /** Set by the receiver when the window is over (or it failed): the sender may stop. */
    volatile boolean stopSending;
    /** Counted down when {@link #stopSending} is set, for a thread that waits for it without polling. */
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    /** Set by the owner to give up draining. */
    volatile boolean stop;
    // written by the receiving thread; read by others after join(), or after it printed its result
    long received;
    long startNs;
    long startSequence;
    long endNs;
    long endSequence;
    long lastNs;
    long allocatedAtStart = -1;
    long allocatedAtEnd = -1;
    /** Messages skipped by forward gaps (a lossy transport only). */
    long lost;
    long lostAtStart;
    long lostAtEnd;
    /** Recovery latency of each gap filled in the measured window, if the receiver has a recovery layer. */
    final Histogram recovery = RecoveryLatency.newHistogram();
    /** Whether the receiver reports recovery latencies ({@link RecoveringStreamReceiver}). */
    boolean recovering;
    private final LongConsumer recoveryRecorder = nanos -> {
        if (startNs != 0 && endNs == 0) {
            recovery.recordValue(Math.max(1, Math.min(nanos, RecoveryLatency.HIGHEST_NS)));
        }
    };

    private final long warmup;
    private final long countedEnd;
    private final long warmupNs;
    private final long measureNs;
    private final String label;
    private final Progress progress;
    private final boolean lossy;
    private final NanoClock clock;

    /**
     * Creates the checker.
     *
     * @param warmup warm-up messages (the least, when timed)
     * @param messages measured messages when counted
     * @param window the timed window, or {@link ThroughputRunner.Window#COUNTED}
     * @param label the run's label for progress
     * @param progress where progress goes, or null
     * @param lossy whether a forward gap is loss to count rather than a failure
     */
    StreamChecker(final long warmup, final long messages, final ThroughputRunner.Window window, final String label,
                  final Progress progress, final boolean lossy) {
        this(warmup, messages, window, label, progress, lossy, NanoClock.SYSTEM);
    }

    /**
     * Creates the checker on a clock of the caller's (a test driving time).
     *
     * @param warmup warm-up messages (the least, when timed)
     * @param messages measured messages when counted
     * @param window the timed window, or {@link ThroughputRunner.Window#COUNTED}
     * @param label the run's label for progress
     * @param progress where progress goes, or null
     * @param lossy whether a forward gap is loss to count rather than a failure
     * @param clock the clock the windows and waits are read from
     */
    StreamChecker(final long warmup, final long messages, final ThroughputRunner.Window window, final String label,
                  final Progress progress, final boolean lossy, final NanoClock clock) {
        this.lossy = lossy;
        this.clock = clock;
        final boolean timed = window.seconds() > 0;
        this.warmup = warmup;
        this.countedEnd = timed ? -1 : warmup + messages;
        this.warmupNs = (long)(window.warmupSeconds() * 1e9);
        this.measureNs = (long)(window.seconds() * 1e9);
        this.label = label;
        this.progress = progress;
    }

    @Override
    public void accept(final long sequence) {
        final long expected = received;
        if (sequence != expected) {
            if (!lossy || sequence < expected) {
                throw new IllegalStateException((sequence < expected ? "sequence out of order or repeated" : "sequence gap")
                    + ": expected=" + expected + " got=" + sequence);
            }
            lost += sequence - expected;
        }
        final long next = sequence + 1;
        received = next;
        if (countedEnd > 0) {
            if (next >= warmup && startNs == 0) {
                startWindow(clock.nanoTime(), warmup == 0 ? 0 : next);
            }
            if (next >= countedEnd && endNs == 0) {
                endWindow(clock.nanoTime(), next);
            }
        }
    }

    /**
     * Polls until everything sent has arrived ({@link #total}), {@link #stop} is set, or nothing arrives for
     * {@link PingPongLoop#NO_ECHO_TIMEOUT_NS}; a failure is kept in {@link #failure}.
     *
     * @param receiver the receiving end
     */
    void drain(final StreamReceiver receiver) {
        try {
            if (receiver instanceof final RecoveringStreamReceiver recoveringReceiver) {
                recoveringReceiver.recoveryLatencies(recoveryRecorder);
                recovering = true;
            }
            long lastProgress = clock.nanoTime();
            long firstNs = 0;
            while (received < total && !stop) {
                if (lossy && total != Long.MAX_VALUE && clock.nanoTime() - lastProgress > LOSSY_DRAIN_NS) {
                    // the sender is done and nothing came for a while: the rest was lost
                    lost += total - received;
                    received = total;
                    break;
                }
                final int got = receiver.poll(this);
                final long now = clock.nanoTime();
                if (got > 0) {
                    lastProgress = now;
                    lastNs = now;
                    if (countedEnd < 0) {
                        if (firstNs == 0) {
                            firstNs = now;
                        }
                        if (startNs == 0 && now - firstNs >= warmupNs && received >= warmup) {
                            startWindow(now, received);
                            if (progress != null) {
                                progress.phase(label, "measuring", 0);
                            }
                        } else if (startNs != 0 && endNs == 0 && now - startNs >= measureNs) {
                            endWindow(now, received);
                        }
                    }
                    if (progress != null) {
                        progress.advance(received);
                    }
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
            signalStop();
        }
    }

    private void signalStop() {
        stopSending = true;
        stopSignal.countDown();
    }

    /**
     * Waits until the sender may stop ({@link #stopSending}), without polling.
     *
     * @param timeoutMs the longest wait
     * @return true once the sender may stop
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitStop(final long timeoutMs) throws InterruptedException {
        return stopSignal.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Messages in the measured window: the whole window if it ended, else up to the last received.
     *
     * @return the count, 0 if the window never started
     */
    long measured() {
        return startNs == 0 ? 0
            : Math.max(0, (endNs != 0 ? endSequence : received) - startSequence - lostInWindow());
    }

    /**
     * Messages lost inside the measured window (a lossy transport only).
     *
     * @return the count
     */
    long lostInWindow() {
        return startNs == 0 ? 0 : (endNs != 0 ? lostAtEnd : lost) - lostAtStart;
    }

    /**
     * Seconds of the measured window (to the last message received if it did not end).
     *
     * @return seconds, 0 if the window never started
     */
    double seconds() {
        return startNs == 0 ? 0 : ((endNs != 0 ? endNs : lastNs) - startNs) / 1e9;
    }

    /**
     * Bytes the receiving thread allocated per message in the window.
     *
     * @return bytes per message, or NaN if unknown
     */
    double allocatedPerMessage() {
        final long measured = measured();
        return allocatedAtStart < 0 || allocatedAtEnd < 0 || measured == 0 ? Double.NaN
            : (double)(allocatedAtEnd - allocatedAtStart) / measured;
    }

    private void startWindow(final long now, final long sequence) {
        startNs = now;
        startSequence = sequence;
        lostAtStart = lost;
        allocatedAtStart = ThreadAllocation.currentThread();
    }

    private void endWindow(final long now, final long sequence) {
        allocatedAtEnd = ThreadAllocation.currentThread();
        endNs = now;
        endSequence = sequence;
        lostAtEnd = lost;
        signalStop();
    }
}
