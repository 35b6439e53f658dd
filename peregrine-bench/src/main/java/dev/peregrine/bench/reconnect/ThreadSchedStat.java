package dev.peregrine.bench.reconnect;

import java.io.IOException;
import java.io.RandomAccessFile;

/**
 * The calling thread's scheduler figures from Linux's {@code /proc/thread-self/schedstat}: the time it ran on a CPU
 * and the time it waited, runnable, for one (run delay). Opened by the thread it describes, on its first read, and
 * read again from offset 0 each time into a buffer made once: a read allocates nothing. Elsewhere (no such file) every
 * figure is -1.
 */
final class ThreadSchedStat {
    private final byte[] buffer = new byte[128];
    private RandomAccessFile file;
    private boolean missing;
    private long ranNs = -1;
    private long waitedNs = -1;

    /** Reads the figures now; on the thread it describes. */
    void read() {
        ranNs = -1;
        waitedNs = -1;
        if (missing) {
            return;
        }
        try {
            if (file == null) {
                file = new RandomAccessFile("/proc/thread-self/schedstat", "r");
            }
            file.seek(0);
            final int length = file.read(buffer, 0, buffer.length);
            int at = 0;
            long ran = 0;
            for (; at < length && buffer[at] >= '0' && buffer[at] <= '9'; at++) {
                ran = ran * 10 + buffer[at] - '0';
            }
            at++; // the space between the two fields
            long waited = 0;
            final int start = at;
            for (; at < length && buffer[at] >= '0' && buffer[at] <= '9'; at++) {
                waited = waited * 10 + buffer[at] - '0';
            }
            if (at > start) {
                ranNs = ran;
                waitedNs = waited;
            }
        } catch (final IOException | SecurityException ex) {
            missing = true;
        }
    }

    /** Closes the file, if open; a later read opens it again. */
    void close() {
        if (file != null) {
            try {
                file.close();
            } catch (final IOException ex) {
                // nothing to do: it was only read
            }
            file = null;
        }
    }

    /** Nanoseconds on a CPU at the last read, or -1. */
    long ranNs() {
        return ranNs;
    }

    /** Nanoseconds runnable and waiting for a CPU at the last read, or -1. */
    long waitedNs() {
        return waitedNs;
    }
}
