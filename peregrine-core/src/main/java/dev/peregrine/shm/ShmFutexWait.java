package dev.peregrine.shm;

import java.util.function.LongSupplier;

/**
 * Spins a little, yields for a while if asked to, then sleeps in the kernel on the ring's futex word until the
 * writer's commit wakes it: an idle reader costs no CPU and wakes within microseconds. The writer issues
 * {@code FUTEX_WAKE} only when the reader announced that it sleeps, so a busy channel makes no system call; the
 * announcement and the commit are fenced on both sides, so no wake-up is lost (see {@link ShmRingDescriptor}).
 *
 * <p>The yield window: after its spins the reader gives its core away ({@code Thread.yield()}) for up to
 * {@code yieldNs} before it sleeps. A stream whose records come closer together than that is read without a sleep
 * and a wake-up per record. {@link #readyToSleep} is the same decision for a reader that sleeps on a futex word of
 * its own (the broadcast log's blocking reader).
 *
 * <p>Not thread-safe: one reading thread. Allocates nothing.
 */
public final class ShmFutexWait implements ShmWaitStrategy {
    private final int maxSpins;
    private final long yieldNs;
    private final LongSupplier clock;
    private int spins;
    private boolean yielding;
    private long yieldingSinceNs;

    /**
     * Creates the strategy without a yield window: it sleeps right after its spins.
     *
     * @param maxSpins idle polls spent spinning before sleeping (0: sleep at once)
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public ShmFutexWait(final int maxSpins) {
        this(maxSpins, 0);
    }

    /**
     * Creates the strategy with a yield window between the spins and the sleep.
     *
     * @param maxSpins idle polls spent spinning before yielding
     * @param yieldNs how long to yield after the spins before sleeping (0: sleep right after the spins)
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public ShmFutexWait(final int maxSpins, final long yieldNs) {
        this(maxSpins, yieldNs, System::nanoTime);
    }

    /**
     * Creates the strategy on a clock of the caller's (tests; a reader that reads its clock already).
     *
     * @param maxSpins idle polls spent spinning before yielding
     * @param yieldNs how long to yield after the spins before sleeping (0: sleep right after the spins)
     * @param clock a monotonic clock in nanoseconds, read once per idle poll while yielding
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public ShmFutexWait(final int maxSpins, final long yieldNs, final LongSupplier clock) {
        if (maxSpins < 0 || yieldNs < 0 || clock == null) {
            throw new IllegalArgumentException("maxSpins=" + maxSpins + ", yieldNs=" + yieldNs + ", clock=" + clock);
        }
        if (!ShmFutex.isAvailable()) {
            throw new IllegalStateException("futex unavailable: " + ShmFutex.unavailableReason());
        }
        this.maxSpins = maxSpins;
        this.yieldNs = yieldNs;
        this.clock = clock;
    }

    @Override
    public void idle(final ShmRingReader reader, final int workCount, final long maxWaitNs) {
        if (readyToSleep(workCount)) {
            reader.sleep(maxWaitNs);
        }
    }

    /**
     * One idle step: after work it starts over; else it spins, then yields, and once the spins and the yield window
     * are spent it answers true, and the caller sleeps on its futex word (again at every idle poll until work comes).
     *
     * @param workCount what the last poll did; more than 0 starts over
     * @return true if the caller should sleep now; false if this call spun, yielded or saw work
     */
    public boolean readyToSleep(final int workCount) {
        if (workCount > 0) {
            spins = 0;
            yielding = false;
            return false;
        }
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
            return false;
        }
        if (yieldNs == 0) {
            return true;
        }
        if (!yielding) {
            yielding = true;
            yieldingSinceNs = clock.getAsLong();
            Thread.yield();
            return false;
        }
        if (clock.getAsLong() - yieldingSinceNs < yieldNs) {
            Thread.yield();
            return false;
        }
        return true;
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
