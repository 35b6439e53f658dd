package dev.peregrine.bench.reconnect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The Linux scheduler's figures for one thread, from {@code /proc/thread-self/schedstat}: ns on a CPU, ns runnable
 * but waiting on a run queue (run delay), and times scheduled in. The file is opened on the first {@link #read()},
 * by the thread it then describes (thread-self resolves at the open), and read again each time with a positioned
 * read into a direct buffer made once, so a read allocates nothing. Where the file is missing (not Linux), or a read
 * fails, the figures are -1. Not thread-safe: the thread that first read it.
 */
final class ThreadSchedStat implements AutoCloseable {
    private static final Path SELF = Path.of("/proc/thread-self/schedstat");
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(128);
    private FileChannel channel;
    private boolean missing;
    private long cpuNs = -1;
    private long runDelayNs = -1;
    private long slices = -1;

    /** Whether the file can be read on the calling thread (opening it there if not yet open). */
    boolean available() {
        return open();
    }

    /**
     * Reads the three figures again.
     *
     * @return true if all three were read; false, with every figure -1, if the file is missing or the read failed
     */
    boolean read() {
        cpuNs = -1;
        runDelayNs = -1;
        slices = -1;
        if (!open()) {
            return false;
        }
        buffer.clear();
        try {
            if (channel.read(buffer, 0) <= 0) {
                return false;
            }
        } catch (final IOException ex) {
            return false;
        }
        final int end = buffer.position();
        long value = 0;
        int field = 0;
        long cpu = -1;
        long delay = -1;
        for (int at = 0; at <= end && field < 3; at++) {
            final int c = at < end ? buffer.get(at) : ' ';
            if (c >= '0' && c <= '9') {
                value = value * 10 + (c - '0');
            } else {
                if (field == 0) {
                    cpu = value;
                } else if (field == 1) {
                    delay = value;
                } else {
                    cpuNs = cpu;
                    runDelayNs = delay;
                    slices = value;
                }
                field++;
                value = 0;
            }
        }
        return field == 3;
    }

    private boolean open() {
        if (channel == null && !missing) {
            try {
                channel = FileChannel.open(SELF, StandardOpenOption.READ);
            } catch (final IOException | UnsupportedOperationException | SecurityException ex) {
                missing = true;
            }
        }
        return channel != null;
    }

    /** Nanoseconds on a CPU at the last read, or -1. */
    long cpuNs() {
        return cpuNs;
    }

    /** Nanoseconds runnable and waiting for a CPU at the last read, or -1. */
    long runDelayNs() {
        return runDelayNs;
    }

    /** Times scheduled in at the last read, or -1. */
    long slices() {
        return slices;
    }

    /** Nanoseconds on a CPU at the last read, or -1 (the name the resume's hops use). */
    long ranNs() {
        return cpuNs;
    }

    /** Nanoseconds runnable and waiting for a CPU at the last read, or -1 (the name the resume's hops use). */
    long waitedNs() {
        return runDelayNs;
    }

    /**
     * The calling thread's {@code nonvoluntary_ctxt_switches} from {@code /proc/thread-self/status}; allocates (read
     * at the edges of a run only).
     *
     * @return the count, or -1 where the file or the line is missing
     */
    static long involuntarySwitches() {
        try {
            final List<String> lines = Files.readAllLines(Path.of("/proc/thread-self/status"));
            for (final String line : lines) {
                if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (final IOException | RuntimeException ex) {
            return -1;
        }
        return -1;
    }

    /** Closes the file, if open; a later read opens it again, on the thread that makes it. */
    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ex) {
                // diagnostics only: it was only read
            }
            channel = null;
        }
    }
}
