package dev.peregrine.counters;

import dev.peregrine.internal.FileLocks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/**
 * Allocates and frees the counters of one process in a memory-mapped file ({@link CountersDescriptor}) that
 * other processes read with a {@link CountersReader}, or in plain memory when counters are disabled.
 *
 * <p>Allocation and freeing may come from any thread (they are rare and take this object's lock); each
 * {@link Counter} is then written by its owner only, without a lock. A freed slot is reused only after the
 * reuse delay, so that a reader that read the label just before the free cannot pair it with a later
 * counter's value (the slot's generation, checked by the reader, catches a reader slower than that).
 *
 * <p>The process-wide instance ({@link #acquireShared()}) is what reactors use: created on first use in the
 * {@linkplain CountersDirectory#defaultDirectory() default directory} (or where the system property
 * {@value #DIRECTORY_PROPERTY} says; {@code -D}{@value #ENABLED_PROPERTY}{@code =off} keeps counters in
 * memory only), named by the process id, its start time and a random part, and removed when its last user
 * releases it or the JVM exits. A directory that {@link CountersDirectory#refusal refuses} (not this user's, not
 * mode 0700, a symbolic link) is not used: one line on standard error says why, and the counters stay in memory.
 *
 * <p>A file is made under a temporary name, locked ({@code flock(2)}, exclusive) and renamed into place, so that no
 * clean-up sees it unlocked; the lock is held until the manager removes the file, and only the manager that made
 * a file removes it, checked by inode. Where {@code flock} cannot be called (not Linux, or no native access) the
 * file is made the same way without the lock, and liveness falls back to the pid and start time in its header.
 */
public final class CountersManager implements AutoCloseable {
    /** System property: the directory of the process-wide counters file. */
    public static final String DIRECTORY_PROPERTY = "peregrine.counters.dir";
    /** System property: {@code off} keeps the process-wide counters in memory, with no file. */
    public static final String ENABLED_PROPERTY = "peregrine.counters";
    /** Slots of the process-wide file. */
    public static final int DEFAULT_SLOTS = 2048;
    /** Milliseconds a freed slot waits before it is reused. */
    public static final long DEFAULT_REUSE_DELAY_MS = 1000;
    /** Suffix of a counters file's name: {@code <pid>-<start ms>-<random>.counters}. */
    public static final String FILE_SUFFIX = ".counters";

    private static final Set<Path> REFUSED = new HashSet<>(); // directories already reported: each said once
    private static CountersManager shared;
    private static int sharedUsers;
    private static Thread shutdownHook;

    private final Path file;
    private final MemorySegment segment;
    private final int slots;
    private final long reuseDelayMs;
    private final boolean isShared;
    private final long inode; // of the file this manager made: the only one it removes
    private int lockFd; // holds the file's flock; guarded by the class lock, as making and removing are
    private int highWater;
    /**
     * Slots freed and waiting out the reuse delay, oldest first: the delay is the same for every slot, so the oldest
     * is the first whose delay ends, and a slot is taken from the head or the file grows. It replaced a scan of every
     * slot below the high water on each allocation, which with a second of delay and a connection's six counters cost
     * a reconnecting TCP client 250 us a connect once a thousand freed slots lay below it.
     */
    private final int[] reclaiming;
    private int reclaimingHead;
    private int reclaimingCount;
    private int allocated;
    private boolean closed;

    private CountersManager(final Path file, final MemorySegment segment, final int slots, final long reuseDelayMs,
        final boolean isShared, final int lockFd, final long inode) {
        this.file = file;
        this.segment = segment;
        this.slots = slots;
        this.reclaiming = new int[slots];
        this.reuseDelayMs = reuseDelayMs;
        this.isShared = isShared;
        this.lockFd = lockFd;
        this.inode = inode;
    }

    /**
     * Creates a counters file (mode 0600; an existing file of that name is replaced) and maps it. The file is made
     * under a temporary name, locked and renamed into place ({@link CountersManager}).
     *
     * @param file the file
     * @param slots how many counters it holds
     * @param reuseDelayMs how long a freed slot waits before reuse, at least 0
     * @return the manager; {@link #close()} removes the file
     * @throws UncheckedIOException if the file cannot be made
     */
    public static CountersManager create(final Path file, final int slots, final long reuseDelayMs) {
        synchronized (CountersManager.class) {
            return create(file, slots, reuseDelayMs, false);
        }
    }

    private static CountersManager create(final Path file, final int slots, final long reuseDelayMs,
        final boolean isShared) {
        CountersDescriptor.checkSlots(slots);
        checkDelay(reuseDelayMs);
        IOException failure = null;
        // a clean-up may lock a new temporary file before its maker does (it judges it abandoned): make another
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return createOnce(file, slots, reuseDelayMs, isShared);
            } catch (final IOException ex) {
                failure = ex;
            }
        }
        throw new UncheckedIOException("cannot create counters file " + file + ": " + failure.getMessage(), failure);
    }

    private static CountersManager createOnce(final Path file, final int slots, final long reuseDelayMs,
        final boolean isShared) throws IOException {
        final long length = CountersDescriptor.fileLength(slots);
        final Path temporary = CountersDirectory.temporaryOf(file);
        final int fd = FileLocks.isAvailable() ? FileLocks.createLocked(temporary) : -1;
        try (FileChannel channel = fd >= 0 ? FileChannel.open(temporary, StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS) : createNew(temporary)) {
            // every page written now: a sparse file on a full tmpfs would fail later, with SIGBUS on a store
            final ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
            long at = 0;
            while (at < length) {
                zeros.clear().limit((int)Math.min(zeros.capacity(), length - at));
                at += channel.write(zeros, at);
            }
            // Arena.ofAuto: a counter that outlives its manager still writes to valid memory
            final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, Arena.ofAuto());
            initialise(segment, slots);
            final long inode = FileLocks.inode(temporary);
            // locked before it has the name: no clean-up ever sees it unlocked under a counters file's name
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            return new CountersManager(file, segment, slots, reuseDelayMs, isShared, fd, inode);
        } catch (final IOException | RuntimeException ex) {
            try {
                Files.deleteIfExists(temporary);
            } catch (final IOException ignored) {
                // a clean-up removes it once its lock is free
            }
            FileLocks.close(fd);
            throw ex;
        }
    }

    private static FileChannel createNew(final Path file) throws IOException {
        final Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        try {
            return FileChannel.open(file, options,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (final UnsupportedOperationException ex) {
            return FileChannel.open(file, options); // not a POSIX file system: the folder's protection applies
        }
    }

    /**
     * Creates counters in plain memory, readable by nobody else (counters switched off, and tests).
     *
     * @param slots how many counters it holds
     * @param reuseDelayMs how long a freed slot waits before reuse, at least 0
     * @return the manager
     */
    public static CountersManager inMemory(final int slots, final long reuseDelayMs) {
        CountersDescriptor.checkSlots(slots);
        checkDelay(reuseDelayMs);
        final MemorySegment segment = Arena.ofAuto().allocate(CountersDescriptor.fileLength(slots), 128);
        initialise(segment, slots);
        return new CountersManager(null, segment, slots, reuseDelayMs, false, -1, -1);
    }

    /**
     * Takes a use of the process-wide manager, creating it (and removing dead processes' files from its
     * directory) if this is the first use. Each call must be matched by one {@link #close()} of the returned
     * manager; the last one removes the file. If the file cannot be made, the counters live in memory.
     *
     * @return the process-wide manager
     */
    public static synchronized CountersManager acquireShared() {
        if (shared == null) {
            shared = createShared();
            if (shutdownHook == null && shared.file != null) {
                shutdownHook = new Thread(CountersManager::removeSharedFileAtExit, "peregrine-counters-cleanup");
                Runtime.getRuntime().addShutdownHook(shutdownHook);
            }
        }
        sharedUsers++;
        return shared;
    }

    /** Whether the process-wide manager has users now (tests that set its directory need it unused). */
    static synchronized boolean isSharedInUse() {
        return shared != null;
    }

    private static CountersManager createShared() {
        if ("off".equalsIgnoreCase(System.getProperty(ENABLED_PROPERTY, "on"))) {
            return inMemorySharedFallback();
        }
        final String configured = System.getProperty(DIRECTORY_PROPERTY);
        final Path directory = configured == null || configured.isEmpty()
            ? CountersDirectory.defaultDirectory() : Path.of(configured);
        final String refusal = CountersDirectory.refusal(directory);
        if (refusal != null) {
            if (REFUSED.add(directory)) {
                System.err.println("peregrine: counters directory " + directory + " refused: it " + refusal
                    + "; this process runs without a counters file (./peregrine stat will not list it)");
            }
            return inMemorySharedFallback();
        }
        try {
            CountersDirectory.removeDead(directory);
            return create(CountersDirectory.newFile(directory), DEFAULT_SLOTS, DEFAULT_REUSE_DELAY_MS, true);
        } catch (final UncheckedIOException | IllegalStateException ex) {
            return inMemorySharedFallback(); // a library must not fail to start for want of its statistics
        }
    }

    private static CountersManager inMemorySharedFallback() {
        final MemorySegment segment = Arena.ofAuto().allocate(CountersDescriptor.fileLength(DEFAULT_SLOTS), 128);
        initialise(segment, DEFAULT_SLOTS);
        return new CountersManager(null, segment, DEFAULT_SLOTS, DEFAULT_REUSE_DELAY_MS, true, -1, -1);
    }

    private static synchronized void removeSharedFileAtExit() {
        if (shared != null) {
            shared.removeFile();
        }
    }

    private static void initialise(final MemorySegment segment, final int slots) {
        final ProcessHandle self = ProcessHandle.current();
        CountersDescriptor.initialise(segment, slots, self.pid(), CountersDirectory.startMillis(self),
            System.currentTimeMillis(), System.getProperty("sun.java.command", ""));
    }

    private static void checkDelay(final long reuseDelayMs) {
        if (reuseDelayMs < 0) {
            throw new IllegalArgumentException("reuseDelayMs=" + reuseDelayMs);
        }
    }

    /**
     * Takes a free slot for a new counter, its value zero. When no slot is free (or the manager is closed)
     * the counter is detached: it counts, but no reader sees it.
     *
     * @param typeId what it counts, one of {@link CounterTypes}
     * @param label which instance: transport, channel, remote address; cut to
     *     {@value CountersDescriptor#MAX_LABEL_LENGTH} bytes of UTF-8
     * @return the counter
     */
    public synchronized Counter allocate(final int typeId, final String label) {
        if (label == null) {
            throw new IllegalArgumentException("label=null");
        }
        final int slot = closed ? -1 : findSlot(System.currentTimeMillis());
        if (slot < 0) {
            return new Counter(null, -1, 0, Arena.ofAuto().allocate(CountersDescriptor.VALUE_LENGTH, 128), 0);
        }
        final long metadata = CountersDescriptor.metadataOffset(slot);
        final long word = (long)CountersDescriptor.LONG.getAcquire(segment, metadata + CountersDescriptor.STATE_WORD_OFFSET);
        final int generation = CountersDescriptor.generation(word) + 1;
        final byte[] bytes = CountersDescriptor.truncatedUtf8(label, CountersDescriptor.MAX_LABEL_LENGTH);
        // store-store: the slot's state left ALLOCATED (free's release store) before the new type and label are
        // seen; x86 keeps stores in order anyway, a weaker CPU may not (a reader checks the word around them)
        VarHandle.storeStoreFence();
        segment.set(ValueLayout.JAVA_INT, metadata + CountersDescriptor.TYPE_ID_OFFSET, typeId);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, metadata + CountersDescriptor.LABEL_OFFSET, bytes.length);
        segment.set(ValueLayout.JAVA_INT, metadata + CountersDescriptor.LABEL_LENGTH_OFFSET, bytes.length);
        final long valueOffset = CountersDescriptor.valueOffset(slots, slot);
        CountersDescriptor.LONG.setRelease(segment, valueOffset, 0L);
        // the state last: a reader that sees ALLOCATED with this generation sees the type, label and zero above
        CountersDescriptor.LONG.setRelease(segment, metadata + CountersDescriptor.STATE_WORD_OFFSET,
            CountersDescriptor.word(generation, CountersDescriptor.ALLOCATED));
        allocated++;
        return new Counter(this, slot, generation, segment, valueOffset);
    }

    private int findSlot(final long nowMs) {
        if (reclaimingCount > 0) {
            final int slot = reclaiming[reclaimingHead];
            final long metadata = CountersDescriptor.metadataOffset(slot);
            if (segment.get(ValueLayout.JAVA_LONG, metadata + CountersDescriptor.REUSE_DEADLINE_OFFSET) <= nowMs) {
                reclaimingHead = (reclaimingHead + 1) % slots;
                reclaimingCount--;
                return slot;
            }
        }
        return highWater < slots ? highWater++ : -1;
    }

    synchronized void free(final Counter counter) {
        final int slot = counter.id();
        final long metadata = CountersDescriptor.metadataOffset(slot);
        final long word = (long)CountersDescriptor.LONG.getAcquire(segment, metadata + CountersDescriptor.STATE_WORD_OFFSET);
        if (CountersDescriptor.state(word) != CountersDescriptor.ALLOCATED
            || CountersDescriptor.generation(word) != counter.generation()) {
            return; // not this counter's any more
        }
        segment.set(ValueLayout.JAVA_LONG, metadata + CountersDescriptor.REUSE_DEADLINE_OFFSET,
            System.currentTimeMillis() + reuseDelayMs);
        CountersDescriptor.LONG.setRelease(segment, metadata + CountersDescriptor.STATE_WORD_OFFSET,
            CountersDescriptor.word(counter.generation(), CountersDescriptor.RECLAIMING));
        reclaiming[(reclaimingHead + reclaimingCount) % slots] = slot; // a slot is freed once per allocation
        reclaimingCount++;
        allocated--;
    }

    /**
     * Counters allocated and not freed.
     *
     * @return the count
     */
    public synchronized int allocatedCount() {
        return allocated;
    }

    /**
     * How many counters the file holds.
     *
     * @return the slot count
     */
    public int slots() {
        return slots;
    }

    MemorySegment segment() {
        return segment;
    }

    /**
     * The mapped file, or null if the counters are in memory only.
     *
     * @return the file
     */
    public Path file() {
        return file;
    }

    /**
     * Ends a use: for the process-wide manager, the last use removes the file; any other manager removes its
     * file now. Counters still held go on counting in memory nobody reads; new ones are detached.
     */
    @Override
    public void close() {
        // the class lock guards making the process-wide manager too: a file is removed before another can be made
        synchronized (CountersManager.class) {
            if (isShared) {
                if (shared != this || sharedUsers == 0) {
                    return;
                }
                if (--sharedUsers > 0) {
                    return;
                }
                shared = null;
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            removeFile();
        }
    }

    /** Removes the file this manager made (not another that has its name since), then lets its lock go. */
    private void removeFile() {
        if (file == null || lockFd == Integer.MIN_VALUE) {
            return;
        }
        try {
            if (inode >= 0) {
                CountersDirectory.removeInode(file, inode);
            } else {
                Files.deleteIfExists(file); // a file system without inodes
            }
        } catch (final IOException ex) {
            // left behind: its lock goes below, and the next start, or stat, removes it
        } finally {
            FileLocks.close(lockFd);
            lockFd = Integer.MIN_VALUE;
        }
    }

    @Override
    public String toString() {
        return "CountersManager[file=" + file + ", slots=" + slots + "]";
    }
}
