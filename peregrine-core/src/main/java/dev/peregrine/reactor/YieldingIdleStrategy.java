package dev.peregrine.reactor;

/**
 * Yields the core to the OS scheduler between idle cycles.
 */
public final class YieldingIdleStrategy implements IdleStrategy {
    /** Creates the strategy. */
    public YieldingIdleStrategy() {
    }

    @Override
    public void idle(final int workCount) {
        if (workCount <= 0) {
            Thread.yield();
        }
    }

    @Override
    public void reset() {
    }
}
