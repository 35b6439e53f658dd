package dev.peregrine.broadcast;

import dev.peregrine.reactor.BackoffIdleStrategy;
import dev.peregrine.shm.ShmFutex;
import dev.peregrine.shm.ShmFutexWait;

import java.util.function.LongSupplier;

/**
 * A broadcast reader for a thread of its own: {@link #read} polls, and waits as configured while nothing is ready.
 * Not thread-safe: one thread reads. {@link #read} allocates nothing.
 */
public final class BroadcastBlockingReader implements AutoCloseable {
    /** Polls a futex reader spins through before its window; Aeron's subscribers' back-off spins as many. */
    public static final int FUTEX_SPINS = 100;
    /**
     * How long a futex reader waits after its spins (a few yields, then parks: {@link ShmFutexWait}) before it asks to
     * be woken and sleeps: longer than the gap between records of a writer at 100 000 msg/s, so that a steady stream is
     * read without a sleep and a wake-up per record.
     */
    public static final long FUTEX_WINDOW_NS = 100_000;
    /** The longest single wait by default: how often a waiting reader looks at the writer's liveness. */
    public static final long DEFAULT_LONGEST_SLEEP_NS = 10_000_000L;
    /**
     * While its wait only spins, {@link #read} reads its clock once in this many idle polls: the spins every wait
     * starts with (a few microseconds together) were most of a spinning reader's CPU with a clock read on each poll
     * (60-80 ns on a VM; docs/broadcast-bcast12.md). Once the wait yields, parks or sleeps, every poll reads it.
     */
    static final int SPIN_POLLS_PER_CLOCK_READ = 64;
    /** The shortest timeout for which {@link #read} leaves its clock unread while spinning; a shorter one is exact. */
    static final long SPIN_CLOCK_MIN_TIMEOUT_NS = 100_000L;

    private final BroadcastReader reader;
    private final BroadcastWait wait;
    private final BackoffIdleStrategy backoff;
    private final long longestSleepNs;
    private final LongSupplier clock;
    private final ShmFutexWait futex;
    private long idlePolls;

    /**
     * Wraps a reader.
     *
     * @param reader the reader, now owned by this
     * @param wait how to wait; {@link BroadcastWait#FUTEX} where futex is unavailable waits as {@code BACKOFF}
     */
    public BroadcastBlockingReader(final BroadcastReader reader, final BroadcastWait wait) {
        this(reader, wait, DEFAULT_LONGEST_SLEEP_NS);
    }

    /**
     * Wraps a reader, with a longest single wait of its own.
     *
     * @param reader the reader, now owned by this
     * @param wait how to wait
     * @param longestSleepNs the longest single sleep; the writer's liveness is looked at no more often than this
     */
    public BroadcastBlockingReader(final BroadcastReader reader, final BroadcastWait wait, final long longestSleepNs) {
        this(reader, wait, longestSleepNs, System::nanoTime);
    }

    BroadcastBlockingReader(final BroadcastReader reader, final BroadcastWait wait, final long longestSleepNs,
                            final LongSupplier clock) {
        if (reader == null || wait == null || longestSleepNs <= 0) {
            throw new IllegalArgumentException("reader=" + reader + ", wait=" + wait + ", longestSleepNs="
                + longestSleepNs);
        }
        this.longestSleepNs = longestSleepNs;
        this.clock = clock;
        this.reader = reader;
        this.wait = wait == BroadcastWait.FUTEX && !ShmFutex.isAvailable() ? BroadcastWait.BACKOFF : wait;
        this.backoff = new BackoffIdleStrategy(100, 10, 1_000, 1_000_000);
        this.futex = this.wait == BroadcastWait.FUTEX ? new ShmFutexWait(FUTEX_SPINS, FUTEX_WINDOW_NS, clock) : null;
    }

    /**
     * Delivers up to {@code limit} records, waiting up to {@code timeoutNs} for the first.
     *
     * @param handler receives records and events
     * @param limit most records
     * @param timeoutNs the longest wait
     * @return records delivered; 0 after the timeout, or once the reader is done ({@link BroadcastReader#isDone()})
     */
    public int read(final BroadcastHandler handler, final int limit, final long timeoutNs) {
        long deadline = 0;
        boolean waited = false;
        int spinPolls = 0;
        final boolean spinWithoutClock = timeoutNs >= SPIN_CLOCK_MIN_TIMEOUT_NS;
        while (true) {
            final int count = reader.poll(handler, limit);
            if (count > 0 || reader.isDone()) {
                if (futex != null) {
                    futex.readyToSleep(1);
                }
                backoff.idle(1, 0);
                return count;
            }
            if (waited && spinWithoutClock && spinsNext() && ++spinPolls < SPIN_POLLS_PER_CLOCK_READ) {
                idle(longestSleepNs); // a spin, which neither sleeps nor parks: the bound is not used
                continue;
            }
            spinPolls = 0;
            final long nowNs = clock.getAsLong();
            if (!waited) {
                waited = true; // the clock is read only once a poll found nothing: a busy reader pays no clock read
                deadline = nowNs + timeoutNs;
            }
            final long left = deadline - nowNs;
            if (left <= 0) {
                return 0;
            }
            idle(Math.min(left, longestSleepNs));
        }
    }

    /** Whether the next {@link #idle} only spins. */
    private boolean spinsNext() {
        if (wait == BroadcastWait.FUTEX) {
            return futex.spinsNext();
        }
        return wait == BroadcastWait.BACKOFF ? backoff.spinsNext() : wait == BroadcastWait.BUSY_SPIN;
    }

    private void idle(final long maxWaitNs) {
        idlePolls++;
        // compared, not switched on: an enum switch loads its map class at the first idle, maybe in a measured stream
        if (wait == BroadcastWait.FUTEX) {
            if (futex.readyToSleep(0)) {
                reader.sleep(maxWaitNs);
            }
        } else if (wait == BroadcastWait.BACKOFF) {
            backoff.idle(0, maxWaitNs);
        } else if (wait == BroadcastWait.BUSY_SPIN) {
            Thread.onSpinWait();
        } else {
            throw new IllegalStateException("wait=" + wait);
        }
    }

    /**
     * Polls that found nothing and waited, since this was made; for tests.
     *
     * @return idle polls
     */
    long idlePolls() {
        return idlePolls;
    }

    /**
     * The reader underneath.
     *
     * @return the reader
     */
    public BroadcastReader reader() {
        return reader;
    }

    /** Closes the reader. */
    @Override
    public void close() {
        reader.close();
    }
}
