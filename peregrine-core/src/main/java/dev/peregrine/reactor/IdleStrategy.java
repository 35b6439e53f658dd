package dev.peregrine.reactor;

/**
 * What the duty cycle does after a cycle, given how much work it did.
 *
 * <p>Implementations: {@link BusySpinIdleStrategy} (lowest latency, burns a core),
 * {@link YieldingIdleStrategy}, {@link BackoffIdleStrategy} (spin, then yield, then park) and
 * {@link BlockingSelectIdleStrategy} (sleeps in the selector until a channel is ready, a timer is due
 * or work is handed over). Not thread-safe: one instance per reactor.
 */
public interface IdleStrategy {
    /**
     * Idles, or not, after a cycle.
     *
     * @param workCount the work done in the cycle; a positive count resets the strategy
     */
    void idle(int workCount);

    /** Forgets any back-off state. */
    void reset();
}
