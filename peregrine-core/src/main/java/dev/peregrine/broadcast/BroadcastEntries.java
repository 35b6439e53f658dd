package dev.peregrine.broadcast;

import dev.peregrine.internal.FileLocks;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_ATTACHED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_CLAIMED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_EVICTED;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_FREE;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_NAME_LENGTH_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_NAME_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.ENTRY_STATE_OFFSET;
import static dev.peregrine.broadcast.BroadcastDescriptor.LONG;

/** An attaching reader's work on the readers' table: its name checked, an entry claimed with its lock. */
final class BroadcastEntries {
    private static final int LOCK_ATTEMPTS = 1_000;

    private BroadcastEntries() {
    }

    /** Refuses a name a live reader of the log holds (its entry attached, its lock held). */
    static void checkNameFree(final MemorySegment log, final BroadcastDescriptor.Geometry geometry, final Path path,
        final String name, final byte[] nameBytes) {
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
    static long[] claim(final MemorySegment log, final BroadcastDescriptor.Geometry geometry, final Path path) {
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
}
