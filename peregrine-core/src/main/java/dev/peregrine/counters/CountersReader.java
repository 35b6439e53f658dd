package dev.peregrine.counters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads the counters of a process from its file, mapped read-only; the process is not disturbed.
 *
 * <p>Each value is read between two reads of its slot's state word ({@link CountersDescriptor}); a counter
 * freed or reallocated during the read is skipped, so a value is never shown under another counter's label.
 * Not thread-safe: one reading thread.
 */
public final class CountersReader implements AutoCloseable {
    private static final int READ_ATTEMPTS = 3;

    /** Receives one counter of a {@link #forEach} walk. */
    @FunctionalInterface
    public interface CounterConsumer {
        /**
         * One counter.
         *
         * @param id its id (slot)
         * @param typeId what it counts, one of {@link CounterTypes}
         * @param label which instance
         * @param value its value
         */
        void accept(int id, int typeId, String label, long value);
    }

    private final Arena arena;
    private final FileChannel channel; // kept open: its size is the mapped file's, even once a new file took the name
    private final MemorySegment segment;
    private final int slots;
    private final Path file;
    // the header is written once, before the magic is released: taken once here, so that asking for the owner
    // never touches a mapping that may have shrunk since (a fault, not an exception)
    private final long pid;
    private final long processStartMillis;
    private final String processName;

    private CountersReader(final Path file, final Arena arena, final FileChannel channel, final MemorySegment segment) {
        this.file = file;
        this.arena = arena;
        this.channel = channel;
        this.segment = segment;
        try {
            this.slots = CountersDescriptor.checkHeader(segment);
            this.pid = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, CountersDescriptor.PID_OFFSET);
            this.processStartMillis = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, CountersDescriptor.PROCESS_START_OFFSET);
            this.processName = readProcessName(segment);
        } catch (final InternalError ex) { // a fault on the mapping: the file shrank since it was mapped
            throw new IllegalStateException("counters file " + file + " shrank while its header was read: it is not read",
                ex);
        }
    }

    private static String readProcessName(final MemorySegment segment) {
        final int length = segment.get(ValueLayout.JAVA_INT_UNALIGNED, CountersDescriptor.NAME_LENGTH_OFFSET);
        if (length < 0 || length > CountersDescriptor.MAX_NAME_LENGTH) {
            return "";
        }
        final byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, CountersDescriptor.NAME_OFFSET, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Maps a counters file read-only.
     *
     * @param file the file
     * @return the reader; close it to unmap
     * @throws UncheckedIOException if the file cannot be mapped
     * @throws IllegalStateException if it is not a regular file, or not a counters file of this version
     */
    public static CountersReader open(final Path file) {
        // a FIFO under a counters file's name would keep open() waiting for a writer, forever (Java cannot open
        // with O_NONBLOCK); a directory or a device is no counters file either
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new IllegalStateException("counters file " + file + " is not a regular file: it is not read");
        }
        final Arena arena = Arena.ofShared();
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ);
            final MemorySegment segment = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            return new CountersReader(file, arena, channel, segment);
        } catch (final IOException ex) {
            release(arena, channel);
            throw new UncheckedIOException("cannot map counters file " + file + ": " + ex.getMessage(), ex);
        } catch (final RuntimeException ex) {
            release(arena, channel);
            throw ex;
        }
    }

    private static void release(final Arena arena, final FileChannel channel) {
        arena.close();
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // already failing: the first failure is the one reported
            }
        }
    }

    /**
     * Reads the counters of a manager of this process (tests, and the in-memory counters).
     *
     * @param manager the manager
     * @return a reader of its memory; closing it does nothing
     */
    public static CountersReader of(final CountersManager manager) {
        return new CountersReader(manager.file(), null, null, manager.segment());
    }

    /**
     * Calls the consumer for each live counter, in id order.
     *
     * @param consumer receives each counter
     * @return how many counters it received
     * @throws IllegalStateException if the file shrank under this reader (another process truncated it): reading
     *     the part that is gone would fault
     */
    public int forEach(final CounterConsumer consumer) {
        checkNotShrunk();
        try {
            return readEach(consumer);
        } catch (final InternalError ex) { // a fault on the mapping: the file shrank after the check above
            throw shrunk(-1, ex);
        }
    }

    private void checkNotShrunk() {
        if (channel == null) {
            return;
        }
        final long size;
        try {
            size = channel.size();
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot read the size of counters file " + file + ": " + ex.getMessage(), ex);
        }
        if (size < segment.byteSize()) {
            throw shrunk(size, null);
        }
    }

    private IllegalStateException shrunk(final long size, final Throwable cause) {
        return new IllegalStateException("counters file " + file + " shrank under its reader" + (size >= 0 ? " to " + size
            + " bytes" : "") + " (" + segment.byteSize() + " mapped): it is not read", cause);
    }

    private int readEach(final CounterConsumer consumer) {
        int count = 0;
        for (int slot = 0; slot < slots; slot++) {
            final long metadata = CountersDescriptor.metadataOffset(slot);
            for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
                final long before = wordAcquire(metadata);
                if (CountersDescriptor.state(before) != CountersDescriptor.ALLOCATED) {
                    break;
                }
                final int typeId = segment.get(ValueLayout.JAVA_INT, metadata + CountersDescriptor.TYPE_ID_OFFSET);
                final int length = segment.get(ValueLayout.JAVA_INT, metadata + CountersDescriptor.LABEL_LENGTH_OFFSET);
                if (length < 0 || length > CountersDescriptor.MAX_LABEL_LENGTH) {
                    continue; // torn by a reallocation: the word check below would fail too
                }
                final byte[] bytes = new byte[length];
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, metadata + CountersDescriptor.LABEL_OFFSET, bytes, 0, length);
                // acquire: the second read of the word below cannot move before this read of the value
                final long value = (long)CountersDescriptor.LONG.getAcquire(segment, CountersDescriptor.valueOffset(slots, slot));
                // load-load: the plain reads of the type and label above may not drift past the word's second read
                // (an acquire load orders what follows it, not what precedes it); a no-op on x86
                VarHandle.acquireFence();
                if (wordAcquire(metadata) == before) {
                    consumer.accept(slot, typeId, new String(bytes, StandardCharsets.UTF_8), value);
                    count++;
                    break;
                }
            }
        }
        return count;
    }

    private long wordAcquire(final long metadata) {
        // pairs with the allocator's and the freer's release of the state word
        return (long)CountersDescriptor.LONG.getAcquire(segment, metadata + CountersDescriptor.STATE_WORD_OFFSET);
    }

    /**
     * The owner's process id.
     *
     * @return the pid
     */
    public long pid() {
        return pid;
    }

    /**
     * The owner's start time, epoch milliseconds (0 if the owner could not tell).
     *
     * @return the time
     */
    public long processStartMillis() {
        return processStartMillis;
    }

    /**
     * The owner's name: its main class and arguments.
     *
     * @return the name
     */
    public String processName() {
        return processName;
    }

    /**
     * How many counters the file holds.
     *
     * @return the slot count
     */
    public int slots() {
        return slots;
    }

    /**
     * The file read, or null for a manager's memory.
     *
     * @return the file
     */
    public Path file() {
        return file;
    }

    /**
     * Whether the owner still runs: it holds the file's lock ({@link CountersDirectory}). For a manager's memory, or
     * where {@code flock} cannot be called, whether the pid and start time of the header run in this pid namespace.
     *
     * @return true if it runs
     */
    public boolean isOwnerAlive() {
        return file == null ? CountersDirectory.isAlive(pid, processStartMillis)
            : CountersDirectory.isOwnerAlive(file, pid, processStartMillis);
    }

    /** Unmaps the file. */
    @Override
    public void close() {
        if (arena != null) {
            release(arena, channel);
        }
    }
}
