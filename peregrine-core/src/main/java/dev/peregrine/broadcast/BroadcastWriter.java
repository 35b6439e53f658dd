package dev.peregrine.broadcast;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.internal.FileLocks;
import dev.peregrine.internal.KeptFile;
import dev.peregrine.shm.ShmFutex;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.function.LongSupplier;

import static dev.peregrine.broadcast.BroadcastDescriptor.ATTACH_ACK_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ATTACH_EPOCH_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_ATTACHED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_EVICTED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_POSITION_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_REASON_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_STATE_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.FUTEX_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.INT;
import static dev.peregrine.broadcast.BroadcastDescriptor.LONG;
import static dev.peregrine.broadcast.BroadcastDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.broadcast.BroadcastDescriptor.RECORD_LENGTH_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.RECORD_SEQUENCE_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.REASON_CORRUPT;
import static dev.peregrine.broadcast.BroadcastDescriptor.REASON_DEAD;
import static dev.peregrine.broadcast.BroadcastDescriptor.REASON_IDLE;
import static dev.peregrine.broadcast.BroadcastDescriptor.SLEEPERS_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.TAIL_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.WAKE_REQUEST_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_ACTIVE;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_CLOSED;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_GENERATION_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_PID_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.WRITER_STATE_OFFSET;

/**
 * The one writer of a broadcast log: {@link #offer} copies a record into the ring and publishes it to every reader.
 *
 * <p>Outcomes of {@link #offer}: {@link #OFFERED}, or under {@link BroadcastPolicy#BLOCK} {@link #BACK_PRESSURED}
 * when the slowest live reader is a whole ring behind (try again later; the writer never spins on its own), or
 * {@link #CLOSED}. A record longer than the log's maximum is misuse ({@code IllegalArgumentException}).
 *
 * <p>One writer at a time: opening takes an exclusive {@code flock} on the log's writer lock file, and a second
 * writer is refused while the first lives. A new writer goes on from the tail the last one left.
 *
 * <p>Under {@code BLOCK} the writer evicts a reader that holds it back when that reader's lock is free (its process
 * died, even by {@code kill -9}) or, with an idle timeout set, when its position has not moved for that long; each
 * reader's lock is probed at most every {@link #PROBE_INTERVAL_NS} while it holds the writer back, and only once it
 * has not moved for that long.
 *
 * <p>Not thread-safe: one thread offers. {@link #offer} allocates nothing.
 */
public final class BroadcastWriter implements AutoCloseable {
    /** The record was published. */
    public static final int OFFERED = 1;
    /** Under {@code BLOCK}: the slowest live reader is a whole ring behind; nothing was written. */
    public static final int BACK_PRESSURED = -2;
    /** The writer is closed. */
    public static final int CLOSED = -1;
    /** Shortest time between two probes of one reader's lock while it holds the writer back. */
    public static final long PROBE_INTERVAL_NS = 10_000_000L;

    private final Path path;
    private final Arena arena;
    private final MemorySegment log;
    private final BroadcastDescriptor.Geometry geometry;
    private final boolean block;
    private final long capacity;
    private final long idleTimeoutNs;
    private final int lockFd;
    private final Path[] readerLocks;
    /** Each reader's lock file (BLOCK), kept open from the reader's attach to this writer's close: no probe allocates. */
    private final KeptFile[] keptReaderLocks;
    private final long[] lastSeenPosition;
    private final long[] lastMovedNs;
    private final long[] lastProbeNs;
    private final long[] lastSeenWord;
    private final MemorySegment futexWord;
    private final BroadcastCounters counters;
    private final LongSupplier clock;
    private long tail;
    private long limit;
    private long seenEpoch;
    private long evictions;
    private long wakes;
    private long probes;
    private boolean closed;

    private BroadcastWriter(final Path path, final CountersManager countersManager, final LongSupplier clock) {
        this.path = path;
        this.clock = clock;
        this.arena = Arena.ofShared();
        try {
            final BroadcastFiles.Mapped mapped = BroadcastFiles.map(path, arena);
            this.log = mapped.segment();
            this.geometry = mapped.geometry();
        } catch (final RuntimeException ex) {
            arena.close();
            throw ex;
        }
        final int fd = BroadcastFiles.lock(BroadcastFiles.writerLockPath(path));
        if (fd < 0) {
            arena.close();
            throw new IllegalStateException("broadcast log " + path + " already has a writer (its lock "
                + BroadcastFiles.writerLockPath(path) + " is held)");
        }
        this.lockFd = fd;
        this.block = geometry.policy() == BroadcastPolicy.BLOCK;
        this.capacity = geometry.capacity();
        this.idleTimeoutNs = geometry.idleTimeoutMs() * 1_000_000L;
        this.readerLocks = new Path[geometry.readers()];
        for (int i = 0; i < readerLocks.length; i++) {
            readerLocks[i] = BroadcastFiles.readerLockPath(path, i);
        }
        this.keptReaderLocks = new KeptFile[geometry.readers()];
        this.lastSeenPosition = new long[geometry.readers()];
        this.lastMovedNs = new long[geometry.readers()];
        this.lastProbeNs = new long[geometry.readers()];
        this.lastSeenWord = new long[geometry.readers()];
        this.futexWord = log.asSlice(FUTEX_OFFSET, 4);
        this.tail = (long)LONG.getAcquire(log, (long)TAIL_OFFSET);
        // before the first limit, whose scan may evict a nonsense entry of the table and count it
        this.counters = BroadcastCounters.writer(countersManager, path);
        log.set(ValueLayout.JAVA_INT, WRITER_PID_OFFSET, (int)ProcessHandle.current().pid());
        INT.getAndAdd(log, (long)WRITER_GENERATION_OFFSET, 1);
        INT.setRelease(log, (long)WRITER_STATE_OFFSET, WRITER_ACTIVE);
        // full fence: the state store before the epoch read; an attaching reader adds to the epoch, then reads the
        // state: either it sees ACTIVE and waits for this writer's acknowledgement, or this writer sees its epoch
        VarHandle.fullFence();
        acknowledgeAttaches(clock.getAsLong());
    }

    /**
     * Creates a log and opens its writer.
     *
     * @param directory a directory checked as the counters directory is (made 0700 if missing)
     * @param name the log's name, 1 to 64 of {@code [A-Za-z0-9._-]}
     * @param options the log's parameters
     * @return the writer
     * @throws IllegalStateException if the directory is refused or the log exists, with the reason
     */
    public static BroadcastWriter create(final Path directory, final String name, final BroadcastLogOptions options) {
        return create(directory, name, options, null);
    }

    /**
     * Creates a log and opens its writer, whose counters go to a given manager instead of this process's counters
     * file.
     *
     * @param directory a directory checked as the counters directory is (made 0700 if missing)
     * @param name the log's name, 1 to 64 of {@code [A-Za-z0-9._-]}
     * @param options the log's parameters
     * @param countersManager where the writer's evictions are counted, or null for the process-wide counters file
     *     that {@code ./peregrine stat} reads; a manager given here is not closed by the writer
     * @return the writer
     * @throws IllegalStateException if the directory is refused or the log exists, with the reason
     */
    public static BroadcastWriter create(final Path directory, final String name, final BroadcastLogOptions options,
        final CountersManager countersManager) {
        return create(directory, name, options, countersManager, System::nanoTime);
    }

    /** {@link #create(Path, String, BroadcastLogOptions, CountersManager)} on a clock of the caller's (tests). */
    static BroadcastWriter create(final Path directory, final String name, final BroadcastLogOptions options,
        final CountersManager countersManager, final LongSupplier clock) {
        final Path path = BroadcastFiles.logPath(directory, name);
        BroadcastFiles.create(path, options);
        return new BroadcastWriter(path, countersManager, clock);
    }

    /**
     * Opens the writer of an existing log; it goes on from the tail the last writer left.
     *
     * @param directory the log's directory
     * @param name the log's name
     * @return the writer
     * @throws IllegalStateException if the log is refused (with the reason) or another writer holds it
     */
    public static BroadcastWriter open(final Path directory, final String name) {
        BroadcastFiles.checkDirectory(directory);
        return new BroadcastWriter(BroadcastFiles.logPath(directory, name), null, System::nanoTime);
    }

    /**
     * The log's file.
     *
     * @return the path
     */
    public Path path() {
        return path;
    }

    /**
     * The position the next record will have.
     *
     * @return the tail
     */
    public long position() {
        return tail;
    }

    /**
     * Readers evicted by this writer.
     *
     * @return the count
     */
    public long evictions() {
        return evictions;
    }

    /**
     * Futex wake-ups this writer made after records (each wakes every sleeping reader); for monitors and tests.
     *
     * @return the count
     */
    public long wakes() {
        return wakes;
    }

    /** Probes of readers' locks so far (none allocates); for tests. */
    long probes() {
        return probes;
    }

    /**
     * Readers asleep, or about to be, on the log's futex word, as the file says now; for monitors and tests.
     *
     * @return the count
     */
    public int sleepers() {
        return (int)INT.getVolatile(log, (long)SLEEPERS_OFFSET);
    }

    /**
     * The log's longest record.
     *
     * @return bytes
     */
    public int maxRecordLength() {
        return geometry.maxRecordLength();
    }

    /**
     * Publishes a record copied from a byte array.
     *
     * @param source the bytes
     * @param offset where the record starts
     * @param length its length, at most {@link #maxRecordLength()}
     * @return {@link #OFFERED}, {@link #BACK_PRESSURED} or {@link #CLOSED}
     */
    public int offer(final byte[] source, final int offset, final int length) {
        return offer(MemorySegment.ofArray(source), offset, length);
    }

    /**
     * Publishes a record copied from a segment.
     *
     * @param source the bytes
     * @param offset where the record starts
     * @param length its length, at most {@link #maxRecordLength()}
     * @return {@link #OFFERED}, {@link #BACK_PRESSURED} or {@link #CLOSED}
     */
    public int offer(final MemorySegment source, final long offset, final int length) {
        if (length < 0 || length > geometry.maxRecordLength()) {
            throw new IllegalArgumentException("length=" + length + " must be in [0, " + geometry.maxRecordLength()
                + "]");
        }
        if (closed) {
            return CLOSED;
        }
        final long position = tail;
        if (block) {
            // acquire: a new reader's entry, stored before it added to the epoch, is seen by the limit computed below
            final long epoch = (long)LONG.getAcquire(log, (long)ATTACH_EPOCH_OFFSET);
            if (epoch != seenEpoch || position - limit >= 0) {
                if (!makeRoom(position, epoch)) {
                    return BACK_PRESSURED;
                }
            }
        }
        final long slot = geometry.slotOffset(position);
        log.set(ValueLayout.JAVA_LONG, slot + RECORD_SEQUENCE_OFFSET, position);
        // store-store: the new sequence is visible before any byte of the new payload (a reader's load-load pairs)
        VarHandle.storeStoreFence();
        log.set(ValueLayout.JAVA_INT, slot + RECORD_LENGTH_OFFSET, length);
        MemorySegment.copy(source, offset, log, slot + RECORD_HEADER_LENGTH, length);
        final long next = position + 1;
        tail = next;
        // release: the record happens-before a reader that acquires this tail
        LONG.setRelease(log, (long)TAIL_OFFSET, next);
        // opaque, no fence: a request is a rare write to a line this writer only reads, so a record costs one cached
        // load here, not a full fence that would wait for the tail and slot stores to leave for the readers' caches.
        // A request made at the very moment of this store can be missed (the reader's re-read of the tail and this
        // load may both see the old value); the reader's first sleep is short for that (BroadcastReader#sleep)
        if ((int)INT.getOpaque(log, (long)WAKE_REQUEST_OFFSET) != 0) {
            wakeSleepers();
        }
        return OFFERED;
    }

    /**
     * Wakes the sleeping readers, one of which asked since the last wake-up: one {@code FUTEX_WAKE} per request, not
     * per record, so readers woken but not yet scheduled (still counted as sleepers) cost the writer nothing more.
     */
    private void wakeSleepers() {
        // cleared (a full fence, after the tail store) before the word changes: a reader that asks again after this
        // sees this record when it re-reads the tail, or reads the new word, or waits on the old one and is turned
        // away by the kernel (the word differs) or woken by the wake below
        if ((int)INT.getAndSet(log, (long)WAKE_REQUEST_OFFSET, 0) != 0) {
            INT.getAndAdd(log, (long)FUTEX_OFFSET, 1);
            ShmFutex.wake(futexWord, Integer.MAX_VALUE);
            wakes++;
        }
    }

    /** BLOCK's rare path: takes new readers into account, or finds the ring full and evicts what it may. */
    private boolean makeRoom(final long position, final long epoch) {
        final long nowNs = clock.getAsLong();
        if (epoch != seenEpoch) {
            acknowledgeAttaches(nowNs);
            if (position - limit < 0) {
                return true;
            }
        }
        // one scan: only a reader a whole ring behind may be evicted, and such a reader leaves no room anyway, so a
        // scan without eviction first would find the same limit (a back-pressured writer retries often)
        limit = computeLimit(nowNs, true);
        return position - limit < 0;
    }

    private void acknowledgeAttaches(final long nowNs) {
        final long epoch = (long)LONG.getAcquire(log, (long)ATTACH_EPOCH_OFFSET);
        limit = computeLimit(nowNs, false);
        seenEpoch = epoch;
        // release: the limit above counted every entry stored before the epoch; a reader that acquires the
        // acknowledgement knows that no record at or past its position will be overwritten while it is attached
        LONG.setRelease(log, (long)ATTACH_ACK_OFFSET, epoch);
    }

    /** The first position the writer may not write: the slowest live reader's plus the capacity. */
    private long computeLimit(final long nowNs, final boolean evict) {
        long slowest = tail;
        for (int i = 0; i < readerLocks.length; i++) {
            final long entry = geometry.entryOffset(i);
            final long word = (long)LONG.getAcquire(log, entry + ENTRY_STATE_OFFSET);
            if ((int)word != ENTRY_ATTACHED) {
                continue;
            }
            final long position = (long)LONG.getAcquire(log, entry + ENTRY_POSITION_OFFSET);
            long behind = tail - position;
            if (behind < 0) {
                evict(i, word, REASON_CORRUPT); // no reader is ever ahead of the tail it read
                continue;
            }
            if (word != lastSeenWord[i] || position != lastSeenPosition[i]) {
                if (word != lastSeenWord[i]) {
                    keepReaderLock(i); // a reader counted for the first time: its attach, never the steady state
                }
                lastSeenWord[i] = word;
                lastSeenPosition[i] = position;
                lastMovedNs[i] = nowNs;
                lastProbeNs[i] = 0;
            }
            // a joining reader may name a record overwritten before this writer counted it: it moves up to the
            // oldest record once it sees the acknowledgement, so until then it holds the writer where it is
            behind = Math.min(behind, capacity);
            if (evict && behind == capacity && mayEvict(i, word, nowNs)) {
                continue;
            }
            if (behind > tail - slowest) {
                slowest = tail - behind;
            }
        }
        return slowest + capacity;
    }

    private boolean mayEvict(final int index, final long word, final long nowNs) {
        if (idleTimeoutNs > 0 && nowNs - lastMovedNs[index] >= idleTimeoutNs) {
            return evict(index, word, REASON_IDLE);
        }
        // a reader that moved within the interval is alive: probing it after every move (a reader a ring behind
        // moves once per poll) would cost the writer a system call per move on the back-pressured path
        if (nowNs - lastMovedNs[index] < PROBE_INTERVAL_NS
            || lastProbeNs[index] != 0 && nowNs - lastProbeNs[index] < PROBE_INTERVAL_NS) {
            return false;
        }
        lastProbeNs[index] = nowNs;
        probes++;
        if (!isReaderLockHeld(index)) {
            return evict(index, word, REASON_DEAD);
        }
        return false;
    }

    /**
     * Opens a reader's lock file when the writer first counts the reader (at its attach), and probes it once, so
     * that the first probe of a reader that later holds the writer back allocates nothing: the descriptor, the native
     * buffer and the linking of the probe's downcalls (some 650 KB of method handles, once per JVM) are made here.
     * A probe made at the first stall instead fell inside the steady state. Only {@code BLOCK} probes readers.
     */
    private void keepReaderLock(final int index) {
        if (block && keptReaderLocks[index] == null) {
            keptReaderLocks[index] = KeptFile.open(readerLocks[index], arena);
            keptReaderLocks[index].lockState(); // the answer is not used: the call links the probe's downcalls
        }
    }

    /**
     * Whether a reader holds its lock, probed on a descriptor kept since the writer first counted a reader of the
     * entry ({@link #keepReaderLock}): it allocates nothing. Found free, the lock file may be another than the one kept (a reader made it again): then the
     * one under the name is opened and probed, the only allocation here, before the reader is taken for dead.
     */
    private boolean isReaderLockHeld(final int index) {
        if (keptReaderLocks[index] == null) {
            keptReaderLocks[index] = KeptFile.open(readerLocks[index], arena);
        }
        final KeptFile lock = keptReaderLocks[index];
        if (lock.lockState() == KeptFile.HELD) {
            return true;
        }
        return lock.reopenIfReplaced() && lock.lockState() == KeptFile.HELD;
    }

    private boolean evict(final int index, final long word, final int reason) {
        final long entry = geometry.entryOffset(index);
        log.set(ValueLayout.JAVA_INT, entry + ENTRY_REASON_OFFSET, reason);
        final long evicted = (((word >>> 32) + 1) << 32) | ENTRY_EVICTED;
        // compare-and-set: the reader may have detached meanwhile; the reason is stored before (the set releases it)
        if (LONG.compareAndSet(log, entry + ENTRY_STATE_OFFSET, word, evicted)) {
            evictions++;
            counters.evicted();
            return true;
        }
        return false;
    }

    /** Closes the writer: readers learn it is gone once they have read what it wrote; the file stays. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        INT.setRelease(log, (long)WRITER_STATE_OFFSET, WRITER_CLOSED);
        if (ShmFutex.isAvailable()) {
            INT.getAndAdd(log, (long)FUTEX_OFFSET, 1);
            ShmFutex.wake(futexWord, Integer.MAX_VALUE);
        }
        FileLocks.close(lockFd);
        for (final KeptFile lock : keptReaderLocks) {
            if (lock != null) {
                lock.close();
            }
        }
        counters.close();
        arena.close();
    }
}
