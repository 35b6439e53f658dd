package dev.peregrine.reactor;

import java.util.concurrent.locks.LockSupport;

/**
 * Spins, then yields, then parks for a time that doubles up to a maximum; any work resets it.
 */
public final class BackoffIdleStrategy implements IdleStrategy {
    private final long maxSpins;
    private final long maxYields;
    private final long minParkNs;
    private final long maxParkNs;
    private long spins;
    private long yields;
    private long parkNs;

    /** Creates the strategy with 100 spins, 10 yields and parks from 1 µs to 1 ms. */
    public BackoffIdleStrategy() {
        this(100, 10, 1_000, 1_000_000);
    }

    /**
     * Creates the strategy.
     *
     * @param maxSpins idle cycles spent spinning
     * @param maxYields idle cycles spent yielding after that
     * @param minParkNs first park time
     * @param maxParkNs longest park time
     */
    public BackoffIdleStrategy(final long maxSpins, final long maxYields, final long minParkNs, final long maxParkNs) {
        if (maxSpins < 0 || maxYields < 0 || minParkNs < 1 || maxParkNs < minParkNs) {
            throw new IllegalArgumentException("maxSpins=" + maxSpins + " maxYields=" + maxYields
                + " minParkNs=" + minParkNs + " maxParkNs=" + maxParkNs);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
        this.parkNs = minParkNs;
    }

    @Override
    public void idle(final int workCount) {
        idle(workCount, Long.MAX_VALUE);
    }

    /**
     * Idles, or not, after a cycle, parking no longer than {@code parkLimitNs} so that the caller can check
     * something else in time (a peer's liveness, say).
     *
     * @param workCount the work done in the cycle; a positive count resets the strategy
     * @param parkLimitNs the longest park of this call
     */
    public void idle(final int workCount, final long parkLimitNs) {
        if (workCount > 0) {
            reset();
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(parkNs, parkLimitNs));
            parkNs = Math.min(parkNs << 1, maxParkNs);
        }
    }

    /**
     * Whether the next idle call only spins: it sleeps, parks or yields nothing, so a caller may leave its clock
     * unread for it.
     *
     * @return true while the spins of this idle spell are not spent
     */
    public boolean spinsNext() {
        return spins < maxSpins;
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNs = minParkNs;
    }
}
