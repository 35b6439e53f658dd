package dev.peregrine.shm;

/**
 * How a reader waits on an empty ring: {@link ShmBusySpinWait} (lowest latency, burns a core),
 * {@link ShmBackoffWait} (spin, then yield, then park) and {@link ShmFutexWait} (sleeps in the kernel and is
 * woken by the writer's commit; no CPU while idle). Not thread-safe: one instance per waiting thread.
 */
public interface ShmWaitStrategy {
    /**
     * Called after a poll; waits a little, or not, when the poll found nothing. Returns at the latest after
     * {@code maxWaitNs} so the caller can check the peer's liveness.
     *
     * @param reader the ring being read
     * @param workCount what the poll delivered; a positive count resets the strategy
     * @param maxWaitNs longest time to wait in this call
     */
    void idle(ShmRingReader reader, int workCount, long maxWaitNs);

    /**
     * The strategy's name, for reports.
     *
     * @return e.g. {@code busy-spin}
     */
    String name();

    /**
     * The futex strategy where futex is available, otherwise back-off (see {@link ShmFutex#unavailableReason()}).
     *
     * @param spins idle polls spent spinning before sleeping
     * @return the strategy
     */
    static ShmWaitStrategy futexOrBackoff(final int spins) {
        return ShmFutex.isAvailable() ? new ShmFutexWait(spins) : new ShmBackoffWait();
    }
}
