package dev.peregrine.bench;

import dev.peregrine.peers.PingClient;
import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/**
 * The measuring loops of one client. Nothing here allocates per message: the histogram is sized up front,
 * intended send times go to a preallocated array indexed by sequence, progress is a counter.
 *
 * <ul>
 *   <li>{@link #oneInFlight}: send, wait for the echo, record now minus the send time.</li>
 *   <li>{@link #atRate}: send on a fixed schedule while polling for echoes, and record now minus the
 *       <em>intended</em> send time of the echoed message. A stalled echo delays every message scheduled
 *       during the stall, and each of them is recorded as late (coordinated omission corrected).</li>
 * </ul>
 */
public final class PingPongLoop {
    /** The largest latency a histogram tracks; larger values are recorded as this. */
    public static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(60);
    /** An echo missing for this long ends the run with an error. */
    public static final long NO_ECHO_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int CLOCK_CHECK_MASK = 1023;

    private final PingClient client;
    private final Progress progress;
    private final boolean spin;
    private volatile boolean stopRequested;

    /**
     * Creates the loops for one connected client.
     *
     * @param client the client
     * @param progress where progress is counted, or null
     * @param spin whether to busy-spin while waiting (else yield)
     */
    public PingPongLoop(final PingClient client, final Progress progress, final boolean spin) {
        this.client = client;
        this.progress = progress;
        this.spin = spin;
    }

    /**
     * A histogram for round-trip times in nanoseconds, 3 significant digits, up to a minute.
     *
     * @return the histogram
     */
    public static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_TRACKABLE_NS, 3);
    }

    /**
     * Asks a running loop to stop early (Ctrl-C); it throws {@link StoppedException} at its next check.
     */
    public void requestStop() {
        stopRequested = true;
    }

    /**
     * One message in flight: {@code count} round trips with sequences {@code first ..}.
     *
     * @param first the first sequence number
     * @param count how many messages
     * @param histogram where round-trip times go, or null (warm-up)
     * @return messages completed
     */
    public long oneInFlight(final long first, final long count, final Histogram histogram) {
        return oneInFlight(first, count, histogram, 0);
    }

    /**
     * One message in flight, ending early (after a complete round trip) once {@code deadlineNs} has passed.
     *
     * @param first the first sequence number
     * @param count how many messages at most
     * @param histogram where round-trip times go, or null (warm-up)
     * @param deadlineNs a {@link System#nanoTime()} after which no new message is sent, or 0 for none
     * @return messages completed
     */
    public long oneInFlight(final long first, final long count, final Histogram histogram, final long deadlineNs) {
        for (long i = 0; i < count; i++) {
            if ((i & CLOCK_CHECK_MASK) == 0) {
                checkStop();
            }
            final long sequence = first + i;
            final long start = System.nanoTime();
            client.send(sequence);
            final long echoed = awaitEcho(sequence);
            final long end = System.nanoTime();
            if (echoed != sequence) {
                throw new IllegalStateException("echo out of order: expected sequence=" + sequence + " got=" + echoed);
            }
            if (histogram != null) {
                histogram.recordValue(Math.min(end - start, HIGHEST_TRACKABLE_NS));
            }
            if (progress != null) {
                progress.advance(i + 1);
            }
            if (deadlineNs != 0 && end - deadlineNs > 0) {
                return i + 1;
            }
        }
        return count;
    }

    private long awaitEcho(final long sequence) {
        long echoed;
        int spins = 0;
        long since = 0;
        while ((echoed = client.poll()) < 0) {
            if ((++spins & CLOCK_CHECK_MASK) == 0) {
                final long now = System.nanoTime();
                if (since == 0) {
                    since = now;
                } else if (now - since > NO_ECHO_TIMEOUT_NS) {
                    throw new IllegalStateException("no echo of sequence=" + sequence + " within "
                        + TimeUnit.NANOSECONDS.toSeconds(NO_ECHO_TIMEOUT_NS) + " s");
                }
                checkStop();
            }
            if (spin) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return echoed;
    }

    /**
     * Sends {@code count} messages at {@code ratePerSecond} on a fixed schedule from now, while polling for
     * echoes, and records each echo's latency from its intended send time.
     *
     * @param first the first sequence number
     * @param count how many messages
     * @param ratePerSecond the schedule
     * @param intended an array of at least {@code count} slots for the intended send times
     * @param histogram where latencies go, or null (warm-up)
     * @return messages completed
     */
    public long atRate(final long first, final long count, final long ratePerSecond, final long[] intended,
                       final Histogram histogram) {
        return atRate(first, count, ratePerSecond, intended, histogram, 0);
    }

    /**
     * Like {@link #atRate(long, long, long, long[], Histogram)}, but once {@code deadlineNs} has passed no new
     * message is sent; the echoes of those already sent are still awaited and recorded.
     *
     * @param first the first sequence number
     * @param count how many messages at most
     * @param ratePerSecond the schedule
     * @param intended an array of at least {@code count} slots for the intended send times
     * @param histogram where latencies go, or null (warm-up)
     * @param deadlineNs a {@link System#nanoTime()} after which no new message is sent, or 0 for none
     * @return messages completed
     */
    public long atRate(final long first, final long count, final long ratePerSecond, final long[] intended,
                       final Histogram histogram, final long deadlineNs) {
        if (ratePerSecond <= 0 || intended.length < count) {
            throw new IllegalArgumentException("rate=" + ratePerSecond + " intended.length=" + intended.length
                + " count=" + count);
        }
        final double intervalNs = 1e9 / ratePerSecond;
        final long start = System.nanoTime();
        long sent = 0;
        long received = 0;
        long lastEchoNs = start;
        long limit = count;
        int idle = 0;
        while (received < limit) {
            final long now = System.nanoTime();
            boolean worked = false;
            if (deadlineNs != 0 && sent < limit && now - deadlineNs > 0) {
                limit = sent; // out of time: send no more, but wait for what is in flight
            }
            if (sent < limit) {
                final long due = start + (long)(sent * intervalNs);
                if (now - due >= 0) {
                    intended[(int)sent] = due; // late sends keep their schedule: the delay is the system's
                    if (received == sent) {
                        lastEchoNs = now; // nothing was outstanding: the wait for an echo starts now
                    }
                    client.send(first + sent);
                    sent++;
                    worked = true;
                }
            }
            final long echoed = client.poll();
            if (echoed >= 0) {
                final long index = echoed - first;
                if (index != received) {
                    throw new IllegalStateException("echo out of order: expected sequence=" + (first + received)
                        + " got=" + echoed);
                }
                final long latency = System.nanoTime() - intended[(int)index];
                if (histogram != null) {
                    histogram.recordValue(Math.max(0, Math.min(latency, HIGHEST_TRACKABLE_NS)));
                }
                received++;
                lastEchoNs = now;
                if (progress != null) {
                    progress.advance(received);
                }
                worked = true;
            } else if (received < sent && now - lastEchoNs > NO_ECHO_TIMEOUT_NS) {
                throw new IllegalStateException("no echo of sequence=" + (first + received) + " within "
                    + TimeUnit.NANOSECONDS.toSeconds(NO_ECHO_TIMEOUT_NS) + " s");
            }
            if (worked) {
                idle = 0;
            } else {
                if ((++idle & CLOCK_CHECK_MASK) == 0) {
                    checkStop();
                }
                if (spin) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield(); // more clients than cores: let the others run
                }
            }
        }
        return received;
    }

    private void checkStop() {
        if (stopRequested) {
            throw new StoppedException();
        }
    }

    /** Thrown inside a loop asked to stop; the histogram holds what was measured until then. */
    public static final class StoppedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** Creates it. */
        public StoppedException() {
            super("stopped", null, false, false);
        }
    }
}
