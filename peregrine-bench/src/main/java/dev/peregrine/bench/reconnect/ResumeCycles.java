package dev.peregrine.bench.reconnect;

/**
 * One reactor's view of each resume, fed once per duty cycle by a pollable of that reactor: the cycles it ran while a
 * cut was being resumed (from the cut to the client's first message after it), the longest time between two of them,
 * and from the scheduler ({@link ThreadSchedStat}) the time the thread ran and the time it waited for a CPU over the
 * resume. Stamped into the run's {@link CutHops}; allocates nothing per cycle. Used by one thread.
 */
final class ResumeCycles {
    private final CutSchedule cuts;
    private final int side;
    private final ThreadSchedStat sched = new ThreadSchedStat();
    private long previousCycleNs;
    /** The cut whose resume this thread is in, or -1. */
    private long spanCut = -1;
    private long spanRanNs;
    private long spanWaitedNs;

    /**
     * @param cuts the run's cuts, with their hops set
     * @param side the reactor's side, {@link CutSchedule#SERVER} or {@link CutSchedule#CLIENT}
     */
    ResumeCycles(final CutSchedule cuts, final int side) {
        this.cuts = cuts;
        this.side = side;
    }

    /** A duty cycle of this reactor, its clock {@code nowNs}. */
    void cycle(final long nowNs) {
        final long previous = previousCycleNs;
        previousCycleNs = nowNs;
        final CutHops hops = cuts.hops();
        if (hops == null) {
            return;
        }
        final long made = cuts.made();
        final boolean resuming = made > 0 && cuts.resumed() < made;
        if (resuming && previous != 0) {
            hops.cycle(side, made - 1, nowNs - previous);
        }
        if (spanCut >= 0 && (!resuming || spanCut != made - 1)) {
            sched.read();
            if (spanRanNs >= 0 && sched.ranNs() >= 0) {
                hops.scheduled(side, spanCut, sched.ranNs() - spanRanNs, sched.waitedNs() - spanWaitedNs);
            }
            spanCut = -1;
        }
        if (resuming && spanCut < 0) {
            sched.read();
            spanCut = made - 1;
            spanRanNs = sched.ranNs();
            spanWaitedNs = sched.waitedNs();
        }
    }

    /** Releases the scheduler file; on the same thread, once the reactor is done with it. */
    void close() {
        sched.close();
    }
}
