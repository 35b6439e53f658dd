package dev.peregrine.bench.reconnect;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Per cut, when each hop of the resume happened, in arrays made before the run and indexed by the cut's number (from
 * 0): nothing is allocated while the stream runs. The hops, in order: the cut, the client notices the loss
 * ({@code onConnectionLost}), the connect starts ({@code onConnecting}), the TCP connection is up
 * ({@code onConnected}), Login Accepted, the first message after it. Also, per cut, the client's lag when it was
 * made: messages published and not yet delivered.
 *
 * <p>The cut's column and the lag are written by the side that made the cut, the others by the client's thread;
 * each cell has one writer, and everything is read after both threads ended (the runner's close on each thread
 * orders it). Cuts past the arrays' length are not stamped (the headline histogram still counts them).
 */
final class CutHops {
    static final int CUT = 0;
    static final int NOTICED = 1;
    static final int CONNECTING = 2;
    static final int CONNECTED = 3;
    static final int ACCEPTED = 4;
    static final int FIRST = 5;
    static final int HOPS = 6;
    private static final String[] INTERVALS = {"cut -> loss noticed", "noticed -> connect started",
        "connect started -> connected", "connected -> login accepted", "login accepted -> first message"};

    private final long[][] stamps;
    private final long[] lagMessages;
    private final int[] side;
    private final long rate;

    /**
     * @param capacity cuts that can be stamped
     * @param rate the stream's messages per second, to give the lag in microseconds
     */
    CutHops(final int capacity, final long rate) {
        this.stamps = new long[HOPS][capacity];
        this.lagMessages = new long[capacity];
        this.side = new int[capacity];
        this.rate = rate;
        Arrays.fill(lagMessages, -1);
    }

    /** Enough cells for a run of {@code spec}: one per interval of its paced time, and a margin. */
    static CutHops forSpec(final ReconnectRunner.Spec spec) {
        final double seconds = (double)spec.count() / spec.rate();
        final long cuts = (long)(seconds * 1e9 / spec.cutEveryNs()) + 64;
        return new CutHops((int)Math.min(cuts, 1 << 20), spec.rate());
    }

    /** The cutter, as it cuts: cut {@code index} made by {@code who} at {@code nowNs} with the client this far behind. */
    void cut(final long index, final int who, final long nowNs, final long lag) {
        if (index >= 0 && index < side.length) {
            stamps[CUT][(int)index] = nowNs;
            side[(int)index] = who;
            lagMessages[(int)index] = lag;
        }
    }

    /** The client: {@code hop} of cut {@code index} happened at {@code nowNs}, if not stamped already. */
    void stamp(final long index, final int hop, final long nowNs) {
        if (index >= 0 && index < side.length && stamps[hop][(int)index] == 0) {
            stamps[hop][(int)index] = nowNs;
        }
    }

    /** The report, a few lines a side; after the run. */
    List<String> lines(final long cutsMade) {
        final int n = (int)Math.min(cutsMade, side.length);
        final List<String> lines = new ArrayList<>();
        lines.add("  hops per cut, p50 / p99 / max in us (each from the hop before; the clocks are each thread's"
            + " System.nanoTime, the cut's the cutter's cycle clock):");
        for (int who = CutSchedule.SERVER; who <= CutSchedule.CLIENT; who++) {
            final int[] complete = complete(n, who);
            if (complete.length == 0) {
                continue;
            }
            final String by = who == CutSchedule.SERVER ? "server" : "client";
            for (int hop = 0; hop + 1 < HOPS; hop++) {
                final long[] values = new long[complete.length];
                for (int i = 0; i < complete.length; i++) {
                    values[i] = stamps[hop + 1][complete[i]] - stamps[hop][complete[i]];
                }
                lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) %-32s %s", by, complete.length,
                    INTERVALS[hop], summary(values)));
            }
            if (lagMessages[complete[0]] >= 0) {
                lines.add(lagLine(by, complete));
            }
            lines.add(slowestLine(by, complete));
        }
        lines.add(decilesLine(n));
        return lines;
    }

    /** The client's lag at the cut, in messages and in the time it takes to publish them. */
    private String lagLine(final String by, final int[] cuts) {
        final long[] lag = new long[cuts.length];
        for (int i = 0; i < cuts.length; i++) {
            lag[i] = lagMessages[cuts[i]];
        }
        Arrays.sort(lag);
        return String.format(Locale.ROOT, "    by the %s: client's lag at the cut (published - delivered) p50 %d msgs"
            + " (%.1f us) p99 %d msgs (%.1f us) max %d msgs (%.1f us)", by, at(lag, 50), micros(at(lag, 50)),
            at(lag, 99), micros(at(lag, 99)), lag[lag.length - 1], micros(lag[lag.length - 1]));
    }

    /**
     * Where the slowest resumes lost their time: for the cuts at or above the side's p99 of cut to first message,
     * the mean of each hop, and their lag; it says whether the p99 lives in one hop (the notice, for a client that
     * lagged) or is spread.
     */
    private String slowestLine(final String by, final int[] cuts) {
        final long[] total = new long[cuts.length];
        for (int i = 0; i < cuts.length; i++) {
            total[i] = stamps[FIRST][cuts[i]] - stamps[CUT][cuts[i]];
        }
        final long[] sorted = total.clone();
        Arrays.sort(sorted);
        final long p99 = at(sorted, 99);
        final long[] sum = new long[HOPS];
        long lag = 0;
        int slow = 0;
        for (int i = 0; i < cuts.length; i++) {
            if (total[i] >= p99) {
                slow++;
                lag += lagMessages[cuts[i]];
                for (int hop = 0; hop + 1 < HOPS; hop++) {
                    sum[hop] += stamps[hop + 1][cuts[i]] - stamps[hop][cuts[i]];
                }
            }
        }
        final StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
            "    by the %s: the %d cuts at or over its p99 (%.1f us), mean per hop in us:", by, slow, p99 / 1e3));
        for (int hop = 0; hop + 1 < HOPS; hop++) {
            line.append(String.format(Locale.ROOT, " %.1f", sum[hop] / 1e3 / slow));
        }
        if (lagMessages[cuts[0]] >= 0) {
            line.append(String.format(Locale.ROOT, "; mean lag at the cut %d msgs (%.1f us)", lag / slow,
                micros(lag / slow)));
        }
        return line.toString();
    }

    /** Cut to first message by tenths of the run, in cut order: cold code shows as a slow first tenth. */
    private String decilesLine(final int n) {
        final StringBuilder line = new StringBuilder("  cut to first message by tenth of the run (cut order), p50/p99 us:");
        for (int part = 0; part < 10; part++) {
            final int start = (int)((long)part * n / 10);
            final int end = (int)((long)(part + 1) * n / 10);
            final long[] values = new long[end - start];
            int count = 0;
            for (int i = start; i < end; i++) {
                if (stamps[FIRST][i] != 0 && stamps[CUT][i] != 0) {
                    values[count++] = stamps[FIRST][i] - stamps[CUT][i];
                }
            }
            if (count == 0) {
                continue;
            }
            final long[] measured = Arrays.copyOf(values, count);
            Arrays.sort(measured);
            line.append(String.format(Locale.ROOT, " %.0f/%.0f", at(measured, 50) / 1e3, at(measured, 99) / 1e3));
        }
        return line.toString();
    }

    /** The cuts of {@code who} with every hop stamped, in cut order. */
    private int[] complete(final int n, final int who) {
        final int[] cuts = new int[n];
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (side[i] == who && stamps[CUT][i] != 0 && allStamped(i)) {
                cuts[count++] = i;
            }
        }
        return Arrays.copyOf(cuts, count);
    }

    private boolean allStamped(final int index) {
        for (int hop = 0; hop < HOPS; hop++) {
            if (stamps[hop][index] == 0) {
                return false;
            }
        }
        return true;
    }

    private double micros(final long messages) {
        return messages * 1e6 / rate;
    }

    private static String summary(final long[] values) {
        Arrays.sort(values);
        return String.format(Locale.ROOT, "%9.1f %9.1f %9.1f", at(values, 50) / 1e3, at(values, 99) / 1e3,
            values[values.length - 1] / 1e3);
    }

    /** The nearest-rank percentile of sorted values. */
    static long at(final long[] sorted, final int percentile) {
        final int rank = (int)Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
