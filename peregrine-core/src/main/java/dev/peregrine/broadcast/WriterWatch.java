package dev.peregrine.broadcast;

import dev.peregrine.internal.KeptFile;

import java.lang.foreign.MemorySegment;

import static dev.peregrine.broadcast.BroadcastDescriptor.INT;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_ACTIVE;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_CLOSED;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_GENERATION_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_STATE_OFFSET;

/**
 * A reader's watch on its log's writer and file, kept on the reader's idle path: the writer gone (closed, or dead:
 * its lock found free) and the file shrunk under the mapping. A writer gone is told once per writer (a new writer
 * on the log is a new generation). The probes work on descriptors kept open ({@code fstat} of the log file, the
 * {@code flock} probe of the writer's lock), so they allocate nothing unless the lock file is found made again.
 *
 * <p>Not thread-safe: the reader's thread.
 */
final class WriterWatch {
    /**
     * How many times attaching runs the probes ({@link #prime}) before the first poll, some 10 to 20 ms, unless one
     * finds the writer gone or the file shrunk. Run once in 50 ms, the check reached the JIT's thresholds about 10 s
     * after attaching: C1 then compiled the downcalls and their method-handle adapters, 1.5 to 3 ms of CPU per compile
     * in each reader process, in the middle of what the reader was reading. On a host with fewer cores than busy
     * threads that time is taken from readers (bench fanout, four readers on two cores: 3.5 ms late every 4 ms for the
     * readers sharing that core; docs/broadcast-bcast16.md). Run at attach, the compiles happen there.
     */
    static final int PRIMES = 10_000;
    /** {@link #check}: nothing to tell. */
    static final int NOTHING = 0;
    /** {@link #check}: the file is shorter than the mapping. */
    static final int SHRUNK = 1;
    /** {@link #check}: the writer closed the log. */
    static final int CLOSED = 2;
    /** {@link #check}: the writer is active by the log, but its lock is free: its process died. */
    static final int DIED = 3;

    private final MemorySegment log;
    private final KeptFile logFile;
    private final KeptFile writerLock;
    private final WriterCheckSchedule schedule;
    private int generation;
    private boolean gone;
    private long probes;

    /**
     * A watch from now on: the writer's generation as it is now is the one known.
     *
     * @param log the mapped log
     * @param logFile the log file, kept open
     * @param writerLock the writer's lock file, kept open
     * @param intervalNs the shortest time between two checks
     */
    WriterWatch(final MemorySegment log, final KeptFile logFile, final KeptFile writerLock, final long intervalNs) {
        this.log = log;
        this.logFile = logFile;
        this.writerLock = writerLock;
        this.schedule = new WriterCheckSchedule(intervalNs);
        this.generation = (int)INT.getAcquire(log, (long)WRITER_GENERATION_OFFSET);
    }

    /**
     * Runs the probes {@link #PRIMES} times, with no effect but their compiles; stops at the first finding, which the
     * first check then tells: a writer gone or a file shrunk has no steady state to compile for, and a lock found free
     * is looked up again by name each time.
     */
    void prime() {
        int primed = 0;
        while (primed < PRIMES && (int)probe() == NOTHING) {
            primed++;
        }
    }

    /**
     * An idle poll: checks if due ({@link WriterCheckSchedule#dueAtIdlePoll}).
     *
     * @return {@link #SHRUNK} (each check that finds it so), {@link #CLOSED} or {@link #DIED} (once per writer), or
     *     {@link #NOTHING}
     */
    int check() {
        if (!schedule.dueAtIdlePoll()) {
            return NOTHING;
        }
        final long found = probe();
        final int finding = (int)found;
        if (finding == SHRUNK) {
            return SHRUNK;
        }
        final int foundGeneration = (int)(found >>> 32);
        if (foundGeneration != generation) {
            generation = foundGeneration;
            gone = false;
        }
        if (gone || foundGeneration == 0 || finding == NOTHING) {
            return NOTHING;
        }
        gone = true;
        return finding;
    }

    /**
     * What the probes find, with no effect but the system calls: the log file's size, then the writer's generation
     * and state, read in that order (a writer stores them in the other), and, for an active writer, its lock.
     *
     * @return {@link #SHRUNK}, or the generation in the high 32 bits and {@link #NOTHING}, {@link #CLOSED} or
     *     {@link #DIED} in the low
     */
    private long probe() {
        probes++;
        final long size = logFile.size(); // -1: cannot be told
        if (size >= 0 && size < log.byteSize()) {
            return SHRUNK;
        }
        final int foundGeneration = (int)INT.getAcquire(log, (long)WRITER_GENERATION_OFFSET);
        final int state = (int)INT.getAcquire(log, (long)WRITER_STATE_OFFSET);
        final int finding = state == WRITER_CLOSED ? CLOSED
            : state == WRITER_ACTIVE && !isLockHeld() ? DIED : NOTHING;
        return ((long)foundGeneration << 32) | finding;
    }

    /**
     * Whether no writer is there for a reader waiting on its acknowledgement: none active by the log, or one whose
     * lock is free (looked at no more often than the interval).
     *
     * @return true if the reader should not wait for the writer
     */
    boolean absent() {
        if ((int)INT.getAcquire(log, (long)WRITER_STATE_OFFSET) != WRITER_ACTIVE) {
            return true;
        }
        return schedule.due() && !isLockHeld();
    }

    /**
     * Whether the writer holds its lock: probed on the kept descriptor, which allocates nothing. Found free, the lock
     * file may be another than the one kept (a new writer made it again, or it was missing at attach): then the one
     * under the name is opened and probed, the only allocation here, on that rare path.
     */
    private boolean isLockHeld() {
        if (writerLock.lockState() == KeptFile.HELD) {
            return true;
        }
        return writerLock.reopenIfReplaced() && writerLock.lockState() == KeptFile.HELD;
    }

    /**
     * The log file's size now, through the kept descriptor: the size of the file mapped, even if its name was removed.
     *
     * @return bytes, or -1 if it cannot be told
     */
    long fileSize() {
        return logFile.size();
    }

    /**
     * Whether the writer is gone, as far as the last check knows.
     *
     * @return true once a check told it, until a new writer
     */
    boolean isGone() {
        return gone;
    }

    /** The reader slept: its next idle poll reads the clock. */
    void slept() {
        schedule.slept();
    }

    WriterCheckSchedule schedule() {
        return schedule;
    }

    long probes() {
        return probes;
    }

    /** Closes the kept descriptors. */
    void close() {
        logFile.close();
        writerLock.close();
    }
}
