package dev.peregrine.reactor;

/**
 * Sleeps in the reactor's selector when a cycle found no work, until a channel is ready, the next timer
 * is due, work is handed over with {@link Reactor#execute(Runnable)} or committed to a
 * {@link dev.peregrine.handoff.ReactorCommandRing} (any source that calls {@link Reactor#wakeUp()}), or
 * {@code maxWaitNs} passes.
 * Costs no CPU while idle; wake-up takes a system call. Only meaningful inside a {@link Reactor}, which
 * does the selecting itself; {@link #idle(int)} on its own does nothing.
 */
public final class BlockingSelectIdleStrategy implements IdleStrategy {
    private final long maxWaitNs;

    /** Creates the strategy with a longest sleep of 100 ms. */
    public BlockingSelectIdleStrategy() {
        this(100_000_000L);
    }

    /**
     * Creates the strategy.
     *
     * @param maxWaitNs the longest sleep, at least one millisecond (the selector's resolution)
     */
    public BlockingSelectIdleStrategy(final long maxWaitNs) {
        if (maxWaitNs < 1_000_000L) {
            throw new IllegalArgumentException("maxWaitNs=" + maxWaitNs + " is below the selector's 1 ms resolution");
        }
        this.maxWaitNs = maxWaitNs;
    }

    /**
     * The longest sleep.
     *
     * @return nanoseconds
     */
    public long maxWaitNs() {
        return maxWaitNs;
    }

    @Override
    public void idle(final int workCount) {
    }

    @Override
    public void reset() {
    }
}
