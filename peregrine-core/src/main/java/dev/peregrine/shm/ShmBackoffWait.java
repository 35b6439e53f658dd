package dev.peregrine.shm;

import java.util.concurrent.locks.LockSupport;

/**
 * Spins, then yields, then parks for a time that doubles up to a maximum; any message resets it. Costs
 * little CPU when idle, but a parked reader notices a message only when its park ends.
 */
public final class ShmBackoffWait implements ShmWaitStrategy {
    private final int maxSpins;
    private final int maxYields;
    private final long minParkNs;
    private final long maxParkNs;
    private int spins;
    private int yields;
    private long parkNs;

    /** Creates the strategy with 1000 spins, 100 yields and parks from 1 µs to 1 ms. */
    public ShmBackoffWait() {
        this(1000, 100, 1_000, 1_000_000);
    }

    /**
     * Creates the strategy.
     *
     * @param maxSpins idle polls spent spinning
     * @param maxYields idle polls spent yielding after that
     * @param minParkNs first park
     * @param maxParkNs longest park
     */
    public ShmBackoffWait(final int maxSpins, final int maxYields, final long minParkNs, final long maxParkNs) {
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
    public void idle(final ShmRingReader reader, final int workCount, final long maxWaitNs) {
        if (workCount > 0) {
            spins = 0;
            yields = 0;
            parkNs = minParkNs;
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(parkNs, maxWaitNs));
            parkNs = Math.min(parkNs << 1, maxParkNs);
        }
    }

    @Override
    public String name() {
        return "backoff";
    }
}
