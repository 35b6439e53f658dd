package dev.peregrine.broadcast;

/**
 * When a reader looks at its writer's liveness: no more often than an interval, and on the idle path with a clock
 * reading only once in {@link #IDLE_POLLS_PER_CLOCK_READ} idle polls, or at the first idle poll after a sleep.
 *
 * <p>Not thread-safe: the reader's thread. Allocates nothing.
 */
final class WriterCheckSchedule {
    /**
     * Idle polls between two readings of the clock, unless the reader slept in between. A reader spins its idle polls
     * back to back, and a clock reading on each (60-80 ns on a VM) was half of all CPU of four spinning readers on
     * 2 vCPUs (perf, docs/broadcast-bcast12.md). A reader that parks between polls looks at the writer up to this
     * many parks later than the interval.
     */
    static final int IDLE_POLLS_PER_CLOCK_READ = 64;

    private long intervalNs;
    private long lastCheckNs;
    private int idlePollsSinceClock;
    private boolean sleptSinceClock;
    private long clockReads;
    private long checks;

    WriterCheckSchedule(final long intervalNs) {
        this.intervalNs = intervalNs;
    }

    /**
     * An idle poll: whether the writer is due a check now. Counts the check if so.
     *
     * @return true if the interval has passed since the last check (or there was none)
     */
    boolean dueAtIdlePoll() {
        if (++idlePollsSinceClock < IDLE_POLLS_PER_CLOCK_READ && !sleptSinceClock && intervalNs != 0
            && lastCheckNs != 0) {
            return false; // polls spun back to back are far shorter than the interval together
        }
        idlePollsSinceClock = 0;
        sleptSinceClock = false;
        if (!due()) {
            return false;
        }
        checks++;
        return true;
    }

    /**
     * Whether the interval has passed since the last check, with a clock reading; if so, the next interval starts now.
     *
     * @return true if the writer is due a check
     */
    boolean due() {
        clockReads++;
        final long nowNs = System.nanoTime();
        if (lastCheckNs != 0 && nowNs - lastCheckNs < intervalNs) {
            return false;
        }
        lastCheckNs = nowNs;
        return true;
    }

    /** The reader slept: its next idle poll reads the clock. */
    void slept() {
        sleptSinceClock = true;
    }

    void intervalNs(final long intervalNs) {
        this.intervalNs = intervalNs;
    }

    long clockReads() {
        return clockReads;
    }

    long checks() {
        return checks;
    }
}
