package dev.peregrine.bench.run;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A progress line on stderr while a run measures, e.g.
 * {@code [tcp size=256] measuring 412000/1000000 (41%)}. The measuring thread only stores a counter
 * ({@link #advance}, no allocation, no I/O); a daemon thread prints it once a second.
 */
public final class Progress implements AutoCloseable {
    private static final long PERIOD_MS = 1000;
    private static final int PERIODS_BETWEEN_LINES = 10;

    private final AtomicLong done = new AtomicLong();
    private final PrintStream err;
    private final Thread printer;
    private volatile String label = "";
    private volatile String phase = "starting";
    private volatile long total;
    private volatile int printedLength;
    private volatile boolean closed;
    private volatile boolean active;
    private final boolean terminal;

    /**
     * Starts printing.
     *
     * @param err where to print, usually {@code System.err}
     * @param quiet whether to print nothing at all
     */
    public Progress(final PrintStream err, final boolean quiet) {
        this.err = err;
        final java.io.Console console = System.console();
        this.terminal = console != null && console.isTerminal();
        this.printer = new Thread(this::print, "bench-progress");
        printer.setDaemon(true);
        if (!quiet) {
            printer.start();
        }
    }

    /**
     * Starts a phase.
     *
     * @param runLabel the run, e.g. {@code tcp size=256}
     * @param phaseName e.g. {@code warm-up} or {@code measuring}
     * @param phaseTotal how many messages the phase has
     */
    public void phase(final String runLabel, final String phaseName, final long phaseTotal) {
        this.label = runLabel;
        this.phase = phaseName;
        this.total = phaseTotal;
        done.set(0);
        active = true;
    }

    /**
     * Records how far the phase is; called by the measuring thread, allocates nothing.
     *
     * @param count messages done in this phase
     */
    public void advance(final long count) {
        done.lazySet(count);
    }

    /**
     * Messages done in the current phase.
     *
     * @return the count
     */
    public long done() {
        return done.get();
    }

    private void print() {
        long periods = 0;
        while (!closed) {
            try {
                Thread.sleep(PERIOD_MS);
            } catch (final InterruptedException ex) {
                return;
            }
            if (closed) {
                return;
            }
            final long count = done.get();
            final long of = total;
            final String line = "[" + label + "] " + phase + (of > 0 ? " " + count + "/" + of + " ("
                + (count * 100 / of) + "%)" : " ...");
            periods++;
            synchronized (err) {
                if (!active) {
                    continue;
                }
                if (terminal) {
                    // one line rewritten in place
                    err.print("\r" + line + " ".repeat(Math.max(0, printedLength - line.length())));
                    printedLength = line.length();
                } else if (periods % PERIODS_BETWEEN_LINES == 0) {
                    err.println(line); // a log file gets a line every ten seconds, not a carriage-return soup
                }
                err.flush();
            }
        }
    }

    /**
     * Ends the current line so that what follows starts on a fresh one.
     */
    public void endLine() {
        synchronized (err) {
            active = false;
            if (printedLength > 0) {
                err.print("\r" + " ".repeat(printedLength) + "\r");
                err.flush();
                printedLength = 0;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        printer.interrupt();
        endLine();
    }
}
