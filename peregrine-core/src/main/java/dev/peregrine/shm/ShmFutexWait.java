package dev.peregrine.shm;

/**
 * Spins a little, then sleeps in the kernel on the ring's futex word until the writer's commit wakes it:
 * an idle reader costs no CPU and wakes within microseconds. The writer issues {@code FUTEX_WAKE} only when
 * the reader announced that it sleeps, so a busy channel makes no system call; the announcement and the
 * commit are fenced on both sides, so no wake-up is lost (see {@link ShmRingDescriptor}).
 */
public final class ShmFutexWait implements ShmWaitStrategy {
    private final int maxSpins;
    private int spins;

    /**
     * Creates the strategy.
     *
     * @param maxSpins idle polls spent spinning before sleeping (0: sleep at once)
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public ShmFutexWait(final int maxSpins) {
        if (maxSpins < 0) {
            throw new IllegalArgumentException("maxSpins=" + maxSpins);
        }
        if (!ShmFutex.isAvailable()) {
            throw new IllegalStateException("futex unavailable: " + ShmFutex.unavailableReason());
        }
        this.maxSpins = maxSpins;
    }

    @Override
    public void idle(final ShmRingReader reader, final int workCount, final long maxWaitNs) {
        if (workCount > 0) {
            spins = 0;
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else {
            reader.sleep(maxWaitNs);
        }
    }

    @Override
    public String name() {
        return "futex";
    }
}
