package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.BlockingClients;
import dev.peregrine.peers.PingClient;
import dev.peregrine.reactor.NanoClock;
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
 *
 * <p>For a lossy transport (datagrams without a recovery layer) a message whose echo does not come back in
 * order is counted {@linkplain #lost() lost} instead of ending the run: an echo that skips sequences counts
 * the skipped ones, and once nothing more is to be sent, echoes still missing after {@link #LOSS_WAIT_NS}
 * are lost too; a late echo of a message already counted lost is ignored. The histogram holds the echoes
 * that came back. On any other transport a missing or out-of-order echo is an error.
 */
public final class PingPongLoop {
    /** The largest latency a histogram tracks; larger values are recorded as this. */
    public static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(60);
    /** An echo missing for this long ends the run with an error. */
    public static final long NO_ECHO_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    /** On a lossy transport, how long an echo may be missing, once nothing more is to be sent, before it is lost. */
    public static final long LOSS_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int CLOCK_CHECK_MASK = 1023;
    private static final long NO_ECHO = -1;

    private final PingClient client;
    private final Progress progress;
    private final boolean spin;
    private final BlockingClients.Client sleeper; // null unless the client waits asleep
    private final boolean lossy;
    private final NanoClock clock;
    private long lost;
    private volatile boolean stopRequested;

    /**
     * Creates the loops for one connected client.
     *
     * @param client the client
     * @param progress where progress is counted, or null
     * @param spin whether to busy-spin while waiting (else yield)
     */
    public PingPongLoop(final PingClient client, final Progress progress, final boolean spin) {
        this(client, progress, spin, false);
    }

    /**
     * Creates the loops for one connected client of a transport that may lose messages.
     *
     * @param client the client
     * @param progress where progress is counted, or null
     * @param spin whether to busy-spin while waiting (else yield)
     * @param lossy whether a missing echo is a loss to count (datagrams without a recovery layer) rather than
     *              an error
     */
    public PingPongLoop(final PingClient client, final Progress progress, final boolean spin, final boolean lossy) {
        this(client, progress, spin, lossy, NanoClock.SYSTEM);
    }

    /**
     * Creates the loops on a clock of the caller's: every time they take (send and echo times, the schedule,
     * deadlines, how long an echo has been missing) is read from it, so that a test can drive time itself.
     *
     * @param client the client
     * @param progress where progress is counted, or null
     * @param spin whether to busy-spin while waiting (else yield)
     * @param lossy whether a missing echo is a loss to count rather than an error
     * @param clock the clock, read on the loop's thread only
     */
    public PingPongLoop(final PingClient client, final Progress progress, final boolean spin, final boolean lossy,
                        final NanoClock clock) {
        if (clock == null) {
            throw new IllegalArgumentException("clock=null");
        }
        this.client = client;
        this.sleeper = null;
        this.progress = progress;
        this.spin = spin;
        this.lossy = lossy;
        this.clock = clock;
    }

    /**
     * Creates the loops for one connected client that waits for each echo asleep ({@link BlockingClients}): one
     * message in flight only ({@link #oneInFlight}), on a transport that loses nothing.
     *
     * @param client the client
     * @param progress where progress is counted, or null
     */
    public PingPongLoop(final BlockingClients.Client client, final Progress progress) {
        this.client = client;
        this.sleeper = client;
        this.progress = progress;
        this.spin = false;
        this.lossy = false;
        this.clock = NanoClock.SYSTEM;
    }

    /**
     * Messages counted lost so far by this loop (a lossy transport only); read it from the loop's thread or
     * after joining it.
     *
     * @return the count since the loop was created
     */
    public long lost() {
        return lost;
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
     * @return messages completed: echoed, or on a lossy transport counted lost
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
     * @param deadlineNs a time on the loop's clock after which no new message is sent, or 0 for none
     * @return messages completed: echoed, or on a lossy transport counted lost
     */
    public long oneInFlight(final long first, final long count, final Histogram histogram, final long deadlineNs) {
        for (long i = 0; i < count; i++) {
            if ((i & CLOCK_CHECK_MASK) == 0) {
                checkStop();
            }
            final long sequence = first + i;
            final long start = clock.nanoTime();
            client.send(sequence);
            final long echoed = awaitEcho(sequence);
            final long end = clock.nanoTime();
            if (echoed == NO_ECHO) {
                lost++;
            } else if (echoed != sequence) {
                throw outOfOrder(sequence, echoed);
            } else if (histogram != null) {
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

    /** The echo, NO_ECHO if a lossy transport's echo did not come in time; late echoes of lost ones skipped. */
    private long awaitEcho(final long sequence) {
        int spins = 0;
        long since = 0;
        while (true) {
            final long echoed = client.poll();
            if (echoed >= 0) {
                if (!lossy || echoed >= sequence) {
                    return echoed;
                }
                continue; // the late echo of a message already counted lost
            }
            if ((++spins & CLOCK_CHECK_MASK) == 0) {
                final long now = clock.nanoTime();
                if (since == 0) {
                    since = now;
                } else if (lossy && now - since > LOSS_WAIT_NS) {
                    return NO_ECHO;
                } else if (now - since > NO_ECHO_TIMEOUT_NS) {
                    throw noEcho(sequence);
                }
                checkStop();
            }
            if (sleeper != null) {
                sleeper.awaitInput();
            } else if (spin) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
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
     * @return messages completed: echoed, or on a lossy transport counted lost
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
     * @param deadlineNs a time on the loop's clock after which no new message is sent, or 0 for none
     * @return messages completed: echoed, or on a lossy transport counted lost
     */
    public long atRate(final long first, final long count, final long ratePerSecond, final long[] intended,
                       final Histogram histogram, final long deadlineNs) {
        if (sleeper != null) {
            throw new IllegalStateException("a client that waits asleep has one message in flight only, rate="
                + ratePerSecond);
        }
        if (ratePerSecond <= 0 || intended.length < count) {
            throw new IllegalArgumentException("rate=" + ratePerSecond + " intended.length=" + intended.length
                + " count=" + count);
        }
        final double intervalNs = 1e9 / ratePerSecond;
        final long start = clock.nanoTime();
        long sent = 0;
        long received = 0;
        long lastEchoNs = start;
        long limit = count;
        int turns = 0;
        while (received < limit) {
            final long now = clock.nanoTime();
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
                    if (!lossy || index >= sent) {
                        throw outOfOrder(first + received, echoed);
                    }
                    if (index > received) {
                        lost += index - received; // skipped: their echoes did not come back in order
                        received = index;
                    }
                }
                if (index == received) { // else the late echo of a message already counted lost
                    final long latency = clock.nanoTime() - intended[(int)index];
                    if (histogram != null) {
                        histogram.recordValue(Math.max(0, Math.min(latency, HIGHEST_TRACKABLE_NS)));
                    }
                    received++;
                    lastEchoNs = now;
                    if (progress != null) {
                        progress.advance(received);
                    }
                }
                worked = true;
            } else if (received < sent) {
                if (lossy && sent == limit && now - lastEchoNs > LOSS_WAIT_NS) {
                    lost += sent - received; // nothing more to send, and nothing more came back
                    received = sent;
                } else if (now - lastEchoNs > NO_ECHO_TIMEOUT_NS) {
                    throw noEcho(first + received);
                }
            }
            // every so many turns, busy or not: a loop that sends or reads in most turns (a yielding thread among
            // more threads than cores) may never go 1024 turns idle
            if ((++turns & CLOCK_CHECK_MASK) == 0) {
                checkStop();
            }
            if (!worked) {
                if (spin) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield(); // more clients than cores: let the others run
                }
            }
        }
        return received;
    }

    private static IllegalStateException outOfOrder(final long expected, final long echoed) {
        return new IllegalStateException("echo out of order: expected sequence=" + expected + " got=" + echoed);
    }

    private static IllegalStateException noEcho(final long sequence) {
        return new IllegalStateException("no echo of sequence=" + sequence + " within "
            + TimeUnit.NANOSECONDS.toSeconds(NO_ECHO_TIMEOUT_NS) + " s");
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
