package dev.peregrine.shm;

import dev.peregrine.reactor.BackoffIdleStrategy;

/**
 * Spins, then yields, then parks for a time that doubles up to a maximum; any message resets it. Costs
 * little CPU when idle, but a parked reader notices a message only when its park ends. The reactor's
 * {@link BackoffIdleStrategy}, with each park also capped by the caller's longest wait.
 */
public final class ShmBackoffWait implements ShmWaitStrategy {
    private final BackoffIdleStrategy backoff;

    /** Creates the strategy with the reactor's defaults: 100 spins, 10 yields, parks from 1 µs to 1 ms. */
    public ShmBackoffWait() {
        this(100, 10, 1_000, 1_000_000);
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
        this.backoff = new BackoffIdleStrategy(maxSpins, maxYields, minParkNs, maxParkNs);
    }

    @Override
    public void idle(final ShmRingReader reader, final int workCount, final long maxWaitNs) {
        backoff.idle(workCount, maxWaitNs);
    }

    @Override
    public String name() {
        return "backoff";
    }
}
