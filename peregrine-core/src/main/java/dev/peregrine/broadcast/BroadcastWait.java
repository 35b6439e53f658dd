package dev.peregrine.broadcast;

/** How a {@link BroadcastBlockingReader} waits when nothing is ready. */
public enum BroadcastWait {
    /** Spins: the lowest wake-up latency, one busy core per reader. */
    BUSY_SPIN,
    /** Spins, yields, then parks for a time that doubles up to 1 ms; any record resets it. */
    BACKOFF,
    /**
     * Spins a little (100 polls), yields 10 times, parks for the rest of a 100 µs window, then sleeps in the kernel on
     * the log's futex word; the writer wakes every sleeping reader at once. The window carries a reader over the gaps of
     * a steady stream (10 µs at 100 000 msg/s) without a sleep and a wake-up system call per record, which on two cores
     * left four readers lapped; its parks, unlike yields, let a core go idle when its reader has nothing to read. Falls
     * back to {@link #BACKOFF} where futex is unavailable.
     */
    FUTEX
}
