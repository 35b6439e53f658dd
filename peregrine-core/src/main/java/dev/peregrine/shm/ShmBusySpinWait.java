package dev.peregrine.shm;

/**
 * Spins on the ring: the lowest wake-up latency, one busy core per waiting thread.
 */
public final class ShmBusySpinWait implements ShmWaitStrategy {
    /** Creates the strategy. */
    public ShmBusySpinWait() {
    }

    @Override
    public void idle(final ShmRingReader reader, final int workCount, final long maxWaitNs) {
        if (workCount <= 0) {
            Thread.onSpinWait();
        }
    }

    @Override
    public String name() {
        return "busy-spin";
    }
}
