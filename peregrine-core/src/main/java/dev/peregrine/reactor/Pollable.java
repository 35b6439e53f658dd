package dev.peregrine.reactor;

/**
 * Something the reactor polls once per duty cycle.
 */
@FunctionalInterface
public interface Pollable {
    /**
     * Does whatever work is ready, without blocking.
     *
     * @param nowNs the clock, read once for this cycle
     * @return how much work was done (0 when idle); the reactor passes the sum to its {@link IdleStrategy}
     */
    int doWork(long nowNs);
}
