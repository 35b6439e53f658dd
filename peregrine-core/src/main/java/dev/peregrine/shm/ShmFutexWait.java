package dev.peregrine.shm;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Spins a little, waits a while (yields, then parks) if asked to, then sleeps in the kernel on the ring's futex word
 * until the writer's commit wakes it: an idle reader costs no CPU and wakes within microseconds. The writer issues
 * {@code FUTEX_WAKE} only when the reader announced that it sleeps, so a busy channel makes no system call; the
 * announcement and the commit are fenced on both sides, so no wake-up is lost (see {@link ShmRingDescriptor}).
 *
 * <p>The window: after its spins the reader waits up to {@code windowNs} more without asking to be woken, so that a
 * stream whose records come closer together than that is read without a sleep and a wake-up per record. It yields
 * {@value #WINDOW_YIELDS} times, then parks ({@code parkNanos} of {@value #PARK_NS} ns, which sleeps the kernel's timer
 * slack, 50 us by default) for the rest of the window; then it sleeps on the futex word. A thread that yields stays
 * runnable, and one that is alone on its core gets the core straight back: with only yields in the window, a reader of
 * a steady stream never slept, so on a machine with more readers than cores one reader could hold a core for tens of
 * milliseconds while the others queued on the other (perf sched, docs/broadcast-bcast13.md). A park lets the core go
 * idle, and the scheduler place the others there. {@link #readyToSleep} is the same decision for a reader that sleeps
 * on a futex word of its own (the broadcast log's blocking reader).
 *
 * <p>Not thread-safe: one reading thread. Allocates nothing.
 */
public final class ShmFutexWait implements ShmWaitStrategy {
    /** Yields at the start of a window, before it parks. */
    public static final int WINDOW_YIELDS = 10;
    /** What a park in the window asks for; it sleeps the kernel's timer slack on top. */
    public static final long PARK_NS = 1_000;

    private final int maxSpins;
    private final long windowNs;
    private final LongSupplier clock;
    private int spins;
    private boolean waiting;
    private long waitingSinceNs;
    private int yields;
    private long parks;

    /**
     * Creates the strategy without a window: it sleeps right after its spins.
     *
     * @param maxSpins idle polls spent spinning before sleeping (0: sleep at once)
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public ShmFutexWait(final int maxSpins) {
        this(maxSpins, 0);
    }

    /**
     * Creates the strategy with a window between the spins and the sleep.
     *
     * @param maxSpins idle polls spent spinning before the window
     * @param windowNs how long to yield and park after the spins before sleeping (0: sleep right after the spins)
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public ShmFutexWait(final int maxSpins, final long windowNs) {
        this(maxSpins, windowNs, System::nanoTime);
    }

    /**
     * Creates the strategy on a clock of the caller's (tests; a reader that reads its clock already). With a window, it
     * parks the calling thread once, on a permit it gave itself (so without sleeping), to link the park's path before
     * any wait.
     *
     * @param maxSpins idle polls spent spinning before the window
     * @param windowNs how long to yield and park after the spins before sleeping (0: sleep right after the spins)
     * @param clock a monotonic clock in nanoseconds, read once per idle poll in the window
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public ShmFutexWait(final int maxSpins, final long windowNs, final LongSupplier clock) {
        if (maxSpins < 0 || windowNs < 0 || clock == null) {
            throw new IllegalArgumentException("maxSpins=" + maxSpins + ", windowNs=" + windowNs + ", clock=" + clock);
        }
        if (!ShmFutex.isAvailable()) {
            throw new IllegalStateException("futex unavailable: " + ShmFutex.unavailableReason());
        }
        this.maxSpins = maxSpins;
        this.windowNs = windowNs;
        if (windowNs > 0) {
            // the park's path linked here, once, not at the first park of a window: some 200 bytes on its first call
            // in C1 code (BroadcastFirstSleepTest), which a reader that kept up through its warm-up paid in its stream.
            // The permit given first makes the park return at once: nothing sleeps here
            LockSupport.unpark(Thread.currentThread());
            LockSupport.parkNanos(PARK_NS);
        }
        this.clock = clock;
    }

    @Override
    public void idle(final ShmRingReader reader, final int workCount, final long maxWaitNs) {
        if (readyToSleep(workCount)) {
            reader.sleep(maxWaitNs);
        }
    }

    /**
     * One idle step: after work it starts over; else it spins, then yields and parks through its window, and once the
     * spins and the window are spent it answers true, and the caller sleeps on its futex word (again at every idle
     * poll until work comes).
     *
     * @param workCount what the last poll did; more than 0 starts over
     * @return true if the caller should sleep now; false if this call spun, yielded, parked or saw work
     */
    public boolean readyToSleep(final int workCount) {
        if (workCount > 0) {
            spins = 0;
            waiting = false;
            return false;
        }
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
            return false;
        }
        if (windowNs == 0) {
            return true;
        }
        final long nowNs = clock.getAsLong();
        if (!waiting) {
            waiting = true;
            waitingSinceNs = nowNs;
            yields = 0;
        } else if (nowNs - waitingSinceNs >= windowNs) {
            return true;
        }
        if (yields < WINDOW_YIELDS) {
            yields++;
            Thread.yield();
        } else {
            parks++;
            LockSupport.parkNanos(PARK_NS);
        }
        return false;
    }

    /**
     * Parks taken in windows since this was made; for tests.
     *
     * @return parks
     */
    long parks() {
        return parks;
    }

    /**
     * Whether the next idle step only spins: it yields and sleeps nothing, so a caller may leave its clock unread
     * for it.
     *
     * @return true while the spins of this idle spell are not spent
     */
    public boolean spinsNext() {
        return spins < maxSpins;
    }

    @Override
    public String name() {
        return "futex";
    }
}
