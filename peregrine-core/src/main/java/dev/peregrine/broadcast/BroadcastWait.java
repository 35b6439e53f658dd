package dev.peregrine.broadcast;

/** How a {@link BroadcastBlockingReader} waits when nothing is ready. */
public enum BroadcastWait {
    /** Spins: the lowest wake-up latency, one busy core per reader. */
    BUSY_SPIN,
    /** Spins, yields, then parks for a time that doubles up to 1 ms; any record resets it. */
    BACKOFF,
    /**
     * Spins a little, then sleeps in the kernel on the log's futex word; the writer wakes every sleeping reader at
     * once. Falls back to {@link #BACKOFF} where futex is unavailable.
     */
    FUTEX
}
