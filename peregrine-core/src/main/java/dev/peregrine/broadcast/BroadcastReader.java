package dev.peregrine.broadcast;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.internal.FileLocks;
import dev.peregrine.internal.KeptFile;
import dev.peregrine.shm.ShmFutex;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

import static dev.peregrine.broadcast.BroadcastDescriptor.ATTACH_ACK_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ATTACH_EPOCH_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_ATTACHED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_CLAIMED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_EVICTED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_FREE;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_NAME_LENGTH_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_NAME_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_POSITION_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_REASON_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_STATE_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.FUTEX_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.FUTEX_READERS_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.INT;
import static dev.peregrine.broadcast.BroadcastDescriptor.LONG;
import static dev.peregrine.broadcast.BroadcastDescriptor.MAX_NAME_LENGTH;
import static dev.peregrine.broadcast.BroadcastDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.broadcast.BroadcastDescriptor.RECORD_LENGTH_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.RECORD_SEQUENCE_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.SLEEPERS_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.TAIL_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.WAKE_REQUEST_OFFSET;

/**
 * One reader of a broadcast log, attached by name with an entry of its own in the log's readers' table.
 *
 * <p>{@link #poll} delivers what is ready, in order, to a {@link BroadcastHandler}, and the events with it: joined
 * (the position reading starts at), lapped ({@code DROP}: the exact count missed), evicted ({@code BLOCK}), writer
 * gone, failed. After an eviction or a failure the reader delivers nothing more; close it.
 *
 * <p>The file is never trusted: a record length past the maximum, a tail that went backwards or past what the policy
 * allows, is a failure with the reason, never a read out of bounds. A log found shrunk at attach is refused.
 *
 * <p>Not thread-safe: one thread polls. {@link #poll} allocates nothing.
 */
public final class BroadcastReader implements AutoCloseable {
    /**
     * Shortest time between two checks of the writer's lock while the reader finds nothing to read. An idle reader
     * reads its clock for it once in 64 idle polls, or at the first idle poll after a sleep, so one that parks
     * between polls (a reactor's back-off, say) looks up to 64 parks later than this.
     */
    public static final long WRITER_CHECK_INTERVAL_NS = 50_000_000L;
    /**
     * The longest first sleep after a record was read (or after attaching), and the longest sleep whose wake request
     * was not already set. The writer looks for a request without a fence, so a request made at the very moment a
     * record is committed can go unseen; a reader that sleeps through that wakes at this bound and finds the record.
     * Later sleeps of the same idle spell follow a request that was set well before, which the writer cannot miss,
     * and last up to the caller's bound.
     */
    public static final long FIRST_SLEEP_NS = 50_000L;
    private static final int LOCK_ATTEMPTS = 1_000;
    private static final String[] REASONS = {"evicted", "dead (its lock was free)", "idle past the timeout",
        "its position made no sense"};

    static { // the futex sleep's atomic accesses linked at class load, not at a reader's first sleep (KB; bcast9)
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment word = arena.allocate(4, 4);
            INT.getAndAdd(word, 0L, (int)INT.getAndSet(word, 0L, (int)INT.getVolatile(word, 0L)));
        }
    }

    private final Path path;
    private final Arena arena;
    private final MemorySegment log;
    private final BroadcastDescriptor.Geometry geometry;
    private final boolean block;
    private final long capacity;
    private final String name;
    private final int entry;
    private final long entryOffset;
    private final long attachedWord;
    private final int lockFd;
    /** The writer's liveness and the file's size, looked at on the idle path through descriptors kept open. */
    private final WriterWatch watch;
    private final MemorySegment copy;
    private final MemorySegment futexWord;
    private final MemorySegment timespec;
    private final BroadcastCounters counters;
    private long position;
    private long attachEpoch;
    private boolean pending;
    private boolean joinReported;
    private boolean done;
    private boolean futexRegistered;
    private boolean sleptSinceRecord;
    private long lastSleepBoundNs;
    private String failure;
    private long delivered;
    private long missed;
    private long laps;

    private BroadcastReader(final Path path, final String name, final BroadcastStart start,
        final CountersManager countersManager) {
        final byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (name.isEmpty() || nameBytes.length > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("readerName=" + name + " must be 1 to " + MAX_NAME_LENGTH + " bytes");
        }
        this.path = path;
        this.name = name;
        this.arena = Arena.ofShared();
        KeptFile logFile = null;
        KeptFile writerLock = null;
        try {
            // opened before the mapping: a file put under the name after it is not the one whose size is looked at
            logFile = KeptFile.open(path, arena);
            writerLock = KeptFile.open(BroadcastFiles.writerLockPath(path), arena);
            final BroadcastFiles.Mapped mapped = BroadcastFiles.map(path, arena);
            this.log = mapped.segment();
            this.geometry = mapped.geometry();
            this.block = geometry.policy() == BroadcastPolicy.BLOCK;
            this.capacity = geometry.capacity();
            this.copy = arena.allocate(Math.max(8, geometry.maxRecordLength()), 64);
            this.futexWord = log.asSlice(FUTEX_OFFSET, 4);
            this.timespec = arena.allocate(16, 8);
            checkNameFree(nameBytes);
            final long[] claimed = claimEntry();
            this.entry = (int)claimed[0];
            this.entryOffset = geometry.entryOffset(entry);
            this.lockFd = (int)claimed[2];
            this.attachedWord = (claimed[1] & 0xFFFF_FFFF_0000_0000L) | ENTRY_ATTACHED;
        } catch (final RuntimeException ex) {
            if (logFile != null) {
                logFile.close();
            }
            if (writerLock != null) {
                writerLock.close();
            }
            arena.close();
            throw ex;
        }
        log.set(ValueLayout.JAVA_INT, entryOffset + ENTRY_REASON_OFFSET, 0);
        log.set(ValueLayout.JAVA_INT, entryOffset + ENTRY_NAME_LENGTH_OFFSET, nameBytes.length);
        MemorySegment.copy(nameBytes, 0, log, ValueLayout.JAVA_BYTE, entryOffset + ENTRY_NAME_OFFSET, nameBytes.length);
        final long tail = (long)LONG.getAcquire(log, (long)TAIL_OFFSET);
        position = start == BroadcastStart.LIVE ? tail : oldestHeld(tail);
        LONG.setRelease(log, entryOffset + ENTRY_POSITION_OFFSET, position);
        // release: the position and name are seen by a writer that acquires the attached state
        LONG.setRelease(log, entryOffset + ENTRY_STATE_OFFSET, attachedWord);
        watch = new WriterWatch(log, logFile, writerLock, WRITER_CHECK_INTERVAL_NS);
        if (block) {
            // a full fence on both sides (this add; the writer's after it stores its state): either the writer
            // counts this entry before it overwrites anything, or this reader sees it active and awaits its
            // acknowledgement
            attachEpoch = (long)LONG.getAndAdd(log, (long)ATTACH_EPOCH_OFFSET, 1L) + 1;
            pending = true;
        }
        counters = BroadcastCounters.reader(countersManager, path, name);
        watch.prime(); // the idle check's JIT compiles, here rather than some 10 s into reading (WriterWatch.PRIMES)
    }

    /**
     * Attaches a reader to a log.
     *
     * @param directory the log's directory, checked as the counters directory is
     * @param logName the log's name
     * @param readerName this reader's name, 1 to 64 bytes, unique among the log's live readers
     * @param start where reading starts
     * @return the reader
     * @throws IllegalStateException if the log is refused, the name is taken or the readers' table is full, with the
     *     reason
     */
    public static BroadcastReader attach(final Path directory, final String logName, final String readerName,
        final BroadcastStart start) {
        BroadcastFiles.checkDirectory(directory);
        if (readerName == null || start == null) {
            throw new IllegalArgumentException("readerName=" + readerName + ", start=" + start);
        }
        return attach(directory, logName, readerName, start, null);
    }

    /**
     * Attaches a reader whose counters go to a given manager instead of this process's counters file.
     *
     * @param directory the log's directory, checked as the counters directory is
     * @param logName the log's name
     * @param readerName this reader's name, 1 to 64 bytes, unique among the log's live readers
     * @param start where reading starts
     * @param countersManager where the reader's counters go (missed, laps, evictions), or null for the process-wide
     *     counters file that {@code ./peregrine stat} reads; a manager given here is not closed by the reader
     * @return the reader
     * @throws IllegalStateException if the log is refused, the name is taken or the readers' table is full, with the
     *     reason
     */
    public static BroadcastReader attach(final Path directory, final String logName, final String readerName,
        final BroadcastStart start, final CountersManager countersManager) {
        BroadcastFiles.checkDirectory(directory);
        if (readerName == null || start == null) {
            throw new IllegalArgumentException("readerName=" + readerName + ", start=" + start);
        }
        return new BroadcastReader(BroadcastFiles.logPath(directory, logName), readerName, start, countersManager);
    }

    private long oldestHeld(final long tail) {
        final long written = tail - geometry.initialPosition();
        return written >= 0 && written < capacity ? geometry.initialPosition() : tail - capacity;
    }

    private void checkNameFree(final byte[] nameBytes) {
        for (int i = 0; i < geometry.readers(); i++) {
            final long offset = geometry.entryOffset(i);
            final long word = (long)LONG.getAcquire(log, offset + ENTRY_STATE_OFFSET);
            if ((int)word != ENTRY_ATTACHED
                || log.get(ValueLayout.JAVA_INT, offset + ENTRY_NAME_LENGTH_OFFSET) != nameBytes.length) {
                continue;
            }
            boolean same = true;
            for (int b = 0; b < nameBytes.length && same; b++) {
                same = log.get(ValueLayout.JAVA_BYTE, offset + ENTRY_NAME_OFFSET + b) == nameBytes[b];
            }
            if (same && BroadcastFiles.isHeld(BroadcastFiles.readerLockPath(path, i))) {
                throw new IllegalStateException("reader name " + name + " is already attached to " + path
                    + " (entry " + i + ")");
            }
        }
    }

    /**
     * Takes a free, evicted or dead entry and its lock: {index, claimed word, lock descriptor}. The lock comes first:
     * no entry is claimed without holding its lock, and a live reader holds its lock from its claim to its close. So
     * an entry this call can lock holds no live reader, whatever its state says: an attached or claimed one whose
     * process died, even between its claim and its attach, is taken over.
     */
    private long[] claimEntry() {
        for (int i = 0; i < geometry.readers(); i++) {
            final long offset = geometry.entryOffset(i);
            final int seen = (int)(long)LONG.getAcquire(log, offset + ENTRY_STATE_OFFSET);
            if (!isClaimable(seen)) {
                continue;
            }
            final Path lockFile = BroadcastFiles.readerLockPath(path, i);
            // a free entry's lock may be held for a moment by another party's probe; a taken one's is held by its
            // reader while it lives, so one attempt tells
            final int fd = seen == ENTRY_FREE || seen == ENTRY_EVICTED ? lockWithRetries(lockFile)
                : BroadcastFiles.lock(lockFile);
            if (fd < 0) {
                continue;
            }
            final long word = (long)LONG.getAcquire(log, offset + ENTRY_STATE_OFFSET);
            final long claimed = (((word >>> 32) + 1) << 32) | ENTRY_CLAIMED;
            // compare-and-set: the writer may evict the dead entry meanwhile; then the next pass finds it evicted
            if (!isClaimable((int)word) || !LONG.compareAndSet(log, offset + ENTRY_STATE_OFFSET, word, claimed)) {
                FileLocks.close(fd);
                continue;
            }
            return new long[] {i, claimed, fd};
        }
        throw new IllegalStateException("readers' table of " + path + " is full: all " + geometry.readers()
            + " entries hold live readers");
    }

    private static boolean isClaimable(final int state) {
        return state == ENTRY_FREE || state == ENTRY_EVICTED || state == ENTRY_ATTACHED || state == ENTRY_CLAIMED;
    }

    private static int lockWithRetries(final Path lockFile) {
        for (int attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
            final int fd = BroadcastFiles.lock(lockFile);
            if (fd >= 0) {
                return fd;
            }
            LockSupport.parkNanos(100_000L); // another party's probe holds it for a moment
        }
        return -1;
    }

    /**
     * Delivers up to {@code limit} records, in order, and any event due.
     *
     * @param handler receives records and events
     * @param limit most records this call
     * @return records delivered (0 if none was ready, or the reader is done)
     */
    public int poll(final BroadcastHandler handler, final int limit) {
        if (done) {
            return 0;
        }
        if ((long)LONG.getAcquire(log, entryOffset + ENTRY_STATE_OFFSET) != attachedWord) {
            evicted(handler);
            return 0;
        }
        if (pending && !join(handler)) {
            return 0;
        }
        if (!joinReported) {
            reportJoin(handler);
        }
        // acquire: every record below this tail is complete
        final long tail = (long)LONG.getAcquire(log, (long)TAIL_OFFSET);
        int count = 0;
        int attempts = 0;
        while (count < limit && attempts < limit + 2 && tail - position > 0 && !done) {
            attempts++;
            if (block) {
                count += readInPlace(handler, tail);
            } else {
                count += readCopy(handler, tail);
            }
        }
        if (count > 0 || attempts > 0) {
            sleptSinceRecord = false;
            LONG.setRelease(log, entryOffset + ENTRY_POSITION_OFFSET, position);
        } else if (tail - position < 0 && !done) {
            fail(handler, "tail=" + tail + " is behind this reader's position=" + position + " (went backwards)");
        } else if (!done) {
            checkWriter(handler);
        }
        return count;
    }

    private int readCopy(final BroadcastHandler handler, final long tail) {
        if (tail - position > capacity) {
            lapped(handler);
            return 0;
        }
        final long p = position;
        final long slot = geometry.slotOffset(p);
        final int length = log.get(ValueLayout.JAVA_INT, slot + RECORD_LENGTH_OFFSET);
        if (length < 0 || length > geometry.maxRecordLength()) {
            if (sequenceAfterRead(slot) == p) {
                fail(handler, "record at position=" + p + " has length=" + length + ", past the maximum "
                    + geometry.maxRecordLength());
            } else {
                lapped(handler);
            }
            return 0;
        }
        MemorySegment.copy(log, slot + RECORD_HEADER_LENGTH, copy, 0, length);
        if (sequenceAfterRead(slot) != p) {
            lapped(handler);
            return 0;
        }
        position = p + 1;
        delivered++;
        handler.onRecord(copy, 0, length, p);
        return 1;
    }

    private int readInPlace(final BroadcastHandler handler, final long tail) {
        final long p = position;
        final long slot = geometry.slotOffset(p);
        if (tail - p > capacity || log.get(ValueLayout.JAVA_LONG, slot + RECORD_SEQUENCE_OFFSET) != p) {
            overwritten(handler, p);
            return 0;
        }
        final int length = log.get(ValueLayout.JAVA_INT, slot + RECORD_LENGTH_OFFSET);
        if (length < 0 || length > geometry.maxRecordLength()) {
            fail(handler, "record at position=" + p + " has length=" + length + ", past the maximum "
                + geometry.maxRecordLength());
            return 0;
        }
        position = p + 1;
        delivered++;
        handler.onRecord(log, slot + RECORD_HEADER_LENGTH, length, p);
        if (sequenceAfterRead(slot) != p) {
            overwritten(handler, p); // evicted while the handler read it: it is told, and reads no more
        }
        return 1;
    }

    private long sequenceAfterRead(final long slot) {
        // load-load: the record's bytes are read before the sequence (pairs with the writer's store-store)
        VarHandle.loadLoadFence();
        return log.get(ValueLayout.JAVA_LONG, slot + RECORD_SEQUENCE_OFFSET);
    }

    /**
     * The record at the position is gone: the tail is more than a ring ahead, or the slot's sequence changed. Reading
     * resumes at the oldest record held; when the tail is exactly a ring ahead, the writer is overwriting this very
     * record now, so the oldest held is the next one.
     */
    private void lapped(final BroadcastHandler handler) {
        final long tail = (long)LONG.getAcquire(log, (long)TAIL_OFFSET);
        final long ahead = tail - position;
        final long resume;
        if (ahead > capacity) {
            resume = oldestHeld(tail);
        } else if (ahead == capacity) {
            resume = position + 1;
        } else {
            fail(handler, "record at position=" + position + " changed under the reader with tail=" + tail
                + " less than a ring ahead");
            return;
        }
        final long lost = resume - position;
        missed += lost;
        laps++;
        counters.lapped(lost);
        position = resume;
        handler.onLapped(lost, resume);
    }

    private void overwritten(final BroadcastHandler handler, final long p) {
        if ((long)LONG.getAcquire(log, entryOffset + ENTRY_STATE_OFFSET) != attachedWord) {
            evicted(handler);
        } else {
            fail(handler, "record at position=" + p + " was overwritten while this reader held it under BLOCK");
        }
    }

    private boolean join(final BroadcastHandler handler) {
        final long acknowledged = (long)LONG.getAcquire(log, (long)ATTACH_ACK_OFFSET);
        if (acknowledged - attachEpoch < 0 && !writerAbsent()) {
            return false;
        }
        pending = false;
        final long oldest = oldestHeld((long)LONG.getAcquire(log, (long)TAIL_OFFSET));
        if (oldest - position > 0) {
            position = oldest; // written over before the writer counted this reader
            LONG.setRelease(log, entryOffset + ENTRY_POSITION_OFFSET, position);
        }
        reportJoin(handler);
        return true;
    }

    private void reportJoin(final BroadcastHandler handler) {
        joinReported = true;
        handler.onJoined(position);
    }

    private boolean writerAbsent() {
        return watch.absent();
    }

    private void checkWriter(final BroadcastHandler handler) {
        final int found = watch.check();
        if (found == WriterWatch.SHRUNK) {
            isShrunk(handler); // looks again, and fails with both sizes
        } else if (found == WriterWatch.CLOSED) {
            handler.onWriterGone("closed");
        } else if (found == WriterWatch.DIED) {
            handler.onWriterGone("died (its lock was free)");
        }
    }

    /**
     * Whether the file is now shorter than the mapping (someone truncated it): reading the cut part would fault, so
     * the reader fails with both sizes instead. Looked at on the idle path, with the writer's liveness, through the
     * kept descriptor ({@code fstat}, no allocation): the size of the file mapped, even if its name was removed since.
     */
    private boolean isShrunk(final BroadcastHandler handler) {
        final long size = watch.fileSize(); // -1: cannot be told
        if (size < 0 || size >= log.byteSize()) {
            return false;
        }
        fail(handler, "log file " + path + " shrunk to " + size + " bytes while mapped (" + log.byteSize()
            + " bytes): reading on would fault");
        return true;
    }

    private void evicted(final BroadcastHandler handler) {
        final long word = (long)LONG.getAcquire(log, entryOffset + ENTRY_STATE_OFFSET);
        final int reason = log.get(ValueLayout.JAVA_INT, entryOffset + ENTRY_REASON_OFFSET);
        done = true;
        counters.evicted();
        failure = (word >>> 32) == (attachedWord >>> 32) + 1 && reason > 0 && reason < REASONS.length
            ? REASONS[reason] : REASONS[0];
        handler.onEvicted(failure);
    }

    private void fail(final BroadcastHandler handler, final String reason) {
        done = true;
        failure = reason;
        handler.onFailed(reason);
    }

    /** The handler threw: the reader stops, with that as its reason (its position is not published further). */
    void failByHandler(final RuntimeException ex) {
        done = true;
        failure = "handler threw " + ex;
    }

    /**
     * Sleeps on the log's futex word until the writer publishes, or {@code maxWaitNs} passes ({@link #FIRST_SLEEP_NS}
     * at most for the first sleep since a record was read); returns at once if there is something to read. For
     * {@link BroadcastBlockingReader}'s futex waiting. A reader not yet acknowledged by the writer ({@code BLOCK})
     * sleeps too: the writer acknowledges in its next offer, and that offer's record wakes it like any other.
     *
     * @param maxWaitNs the longest sleep
     */
    void sleep(final long maxWaitNs) {
        if (!futexRegistered) {
            futexRegistered = true;
            INT.getAndAdd(log, (long)FUTEX_READERS_OFFSET, 1);
        }
        final int word = (int)INT.getVolatile(log, (long)FUTEX_OFFSET);
        INT.getAndAdd(log, (long)SLEEPERS_OFFSET, 1);
        // a full fence (the set) before the tail is read again: this reader sees the record, or a writer that
        // stores the tail later sees the request; one storing it at this very moment may miss a request that was
        // not set before (it loads the request without a fence), which the short bound of such a sleep covers
        final boolean fresh = (int)INT.getAndSet(log, (long)WAKE_REQUEST_OFFSET, 1) == 0;
        lastSleepBoundNs = fresh || !sleptSinceRecord ? Math.min(maxWaitNs, FIRST_SLEEP_NS) : maxWaitNs;
        sleptSinceRecord = true;
        watch.slept();
        try {
            if ((long)LONG.getAcquire(log, (long)TAIL_OFFSET) == position && !done) {
                ShmFutex.await(futexWord, word, timespec, lastSleepBoundNs);
            }
        } finally {
            INT.getAndAdd(log, (long)SLEEPERS_OFFSET, -1);
        }
    }

    /**
     * Clock readings made for the writer's checks; for tests.
     *
     * @return readings since attaching
     */
    long writerClockReads() {
        return watch.schedule().clockReads();
    }

    /**
     * The bound of the last {@link #sleep}: {@link #FIRST_SLEEP_NS} at most for the first since a record was read
     * and for one whose request was not already set, else the caller's. For tests.
     *
     * @return nanoseconds
     */
    long lastSleepBoundNs() {
        return lastSleepBoundNs;
    }

    /**
     * Sets the shortest time between two checks of the writer while idle; {@link #WRITER_CHECK_INTERVAL_NS} unless a
     * test sets it. For tests.
     *
     * @param intervalNs nanoseconds, 0 for a check at every idle poll
     */
    void writerCheckIntervalNs(final long intervalNs) {
        watch.schedule().intervalNs(intervalNs);
    }

    /**
     * Runs of the idle check's probes so far, attaching's {@link WriterWatch#PRIMES} included. For tests.
     *
     * @return the count
     */
    long writerProbes() {
        return watch.probes();
    }

    /**
     * Checks of the writer made on the idle path so far. For tests.
     *
     * @return the count
     */
    long writerChecks() {
        return watch.schedule().checks();
    }

    /**
     * The position of the next record to read.
     *
     * @return the position of the next record to read
     */
    public long position() {
        return position;
    }

    /**
     * Records delivered.
     *
     * @return records delivered
     */
    public long delivered() {
        return delivered;
    }

    /**
     * Records missed by being lapped ({@code DROP}), exactly.
     *
     * @return records missed by being lapped ({@code DROP}), exactly
     */
    public long missed() {
        return missed;
    }

    /**
     * Times this reader was lapped.
     *
     * @return times this reader was lapped
     */
    public long laps() {
        return laps;
    }

    /**
     * Whether the reader was evicted or failed, and reads no more.
     *
     * @return whether the reader was evicted or failed, and reads no more
     */
    public boolean isDone() {
        return done;
    }

    /**
     * Why the reader is done, or null.
     *
     * @return why the reader is done, or null
     */
    public String failure() {
        return failure;
    }

    /**
     * Whether the log's writer is gone, as far as the last check knows.
     *
     * @return whether the log's writer is gone, as far as the last check knows
     */
    public boolean isWriterGone() {
        return watch.isGone();
    }

    /**
     * This reader's entry in the readers' table.
     *
     * @return this reader's entry in the readers' table
     */
    public int entry() {
        return entry;
    }

    /**
     * The log's policy.
     *
     * @return the log's policy
     */
    public BroadcastPolicy policy() {
        return geometry.policy();
    }

    /**
     * This reader's name.
     *
     * @return this reader's name
     */
    public String name() {
        return name;
    }

    /** Detaches: frees the entry (unless the writer evicted it) and the lock, and unmaps the log. */
    @Override
    public void close() {
        if (!arena.scope().isAlive()) {
            return;
        }
        LONG.compareAndSet(log, entryOffset + ENTRY_STATE_OFFSET, attachedWord,
            (((attachedWord >>> 32) + 1) << 32) | ENTRY_FREE);
        if (futexRegistered) {
            INT.getAndAdd(log, (long)FUTEX_READERS_OFFSET, -1);
        }
        FileLocks.close(lockFd);
        watch.close();
        counters.close();
        arena.close();
    }
}
