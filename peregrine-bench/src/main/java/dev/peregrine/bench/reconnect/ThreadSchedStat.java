package dev.peregrine.bench.reconnect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The Linux scheduler's figures for the thread that opened it, from {@code /proc/thread-self/schedstat}: ns on a
 * CPU, ns runnable but waiting on a run queue (run delay), and times scheduled in. The file is opened once by the
 * thread it describes (thread-self resolves then) and read again with a positioned read into a direct buffer, so a
 * {@link #read()} allocates nothing. Where the file is missing (not Linux), {@link #available()} is false and the
 * figures stay 0. Not thread-safe: the thread that opened it.
 */
final class ThreadSchedStat implements AutoCloseable {
    private static final Path SELF = Path.of("/proc/thread-self/schedstat");
    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(128);
    private long cpuNs;
    private long runDelayNs;
    private long slices;

    /** Opens the calling thread's file. */
    ThreadSchedStat() {
        FileChannel opened;
        try {
            opened = FileChannel.open(SELF, StandardOpenOption.READ);
        } catch (final IOException | UnsupportedOperationException ex) {
            opened = null;
        }
        channel = opened;
    }

    boolean available() {
        return channel != null;
    }

    /** Reads the three figures again; false (figures unchanged) if the read failed. */
    boolean read() {
        if (channel == null) {
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
        int at = 0;
        long value = 0;
        int field = 0;
        for (; at <= end && field < 3; at++) {
            final int c = at < end ? buffer.get(at) : ' ';
            if (c >= '0' && c <= '9') {
                value = value * 10 + (c - '0');
            } else {
                if (field == 0) {
                    cpuNs = value;
                } else if (field == 1) {
                    runDelayNs = value;
                } else {
                    slices = value;
                }
                field++;
                value = 0;
            }
        }
        return field == 3;
    }

    long cpuNs() {
        return cpuNs;
    }

    long runDelayNs() {
        return runDelayNs;
    }

    long slices() {
        return slices;
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

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ex) {
                // diagnostics only
            }
        }
    }
}
