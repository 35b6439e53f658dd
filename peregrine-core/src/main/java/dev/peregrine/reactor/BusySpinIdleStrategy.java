package dev.peregrine.reactor;

/**
 * Never gives up the core: {@link Thread#onSpinWait()} between idle cycles. Lowest latency; pin the
 * thread to a core of its own.
 */
public final class BusySpinIdleStrategy implements IdleStrategy {
    /** Creates the strategy. */
    public BusySpinIdleStrategy() {
    }

    @Override
    public void idle(final int workCount) {
        if (workCount <= 0) {
            Thread.onSpinWait();
        }
    }

    @Override
    public void reset() {
    }
}
