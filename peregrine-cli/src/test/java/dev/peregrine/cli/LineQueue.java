package dev.peregrine.cli;

import java.io.Writer;
import java.util.concurrent.BlockingQueue;

/** A writer that hands each flushed line to a queue, so that a test waits for output as an event. */
final class LineQueue extends Writer {
    private final BlockingQueue<String> lines;
    private final StringBuilder pending = new StringBuilder();

    LineQueue(final BlockingQueue<String> lines) {
        this.lines = lines;
    }

    @Override
    public synchronized void write(final char[] chars, final int offset, final int length) {
        pending.append(chars, offset, length);
    }

    @Override
    public synchronized void flush() {
        int end;
        while ((end = pending.indexOf("\n")) >= 0) {
            lines.add(pending.substring(0, end));
            pending.delete(0, end + 1);
        }
    }

    @Override
    public void close() {
        flush();
    }
}
