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
    /** When the server's handler saw the client logged in again ({@code onLoggedIn}): splits connected -> accepted. */
    private final long[] serverLogin;
    /** By side ({@link CutSchedule#SERVER}, {@link CutSchedule#CLIENT}): duty cycles of that reactor while resuming. */
    private final long[][] cycles;
    /** By side: the longest time between two duty cycles' clocks of that reactor while resuming. */
    private final long[][] longestCycle;
    /** By side: the time that reactor's thread ran on a CPU over the resume (scheduler's figure), -1 if not known. */
    private final long[][] ranNs;
    /** By side: the time that reactor's thread waited, runnable, for a CPU over the resume, -1 if not known. */
    private final long[][] waitedNs;

    /**
     * @param capacity cuts that can be stamped
     * @param rate the stream's messages per second, to give the lag in microseconds
     */
    CutHops(final int capacity, final long rate) {
        this.stamps = new long[HOPS][capacity];
        this.lagMessages = new long[capacity];
        this.side = new int[capacity];
        this.rate = rate;
        this.serverLogin = new long[capacity];
        this.cycles = new long[2][capacity];
        this.longestCycle = new long[2][capacity];
        this.ranNs = new long[2][capacity];
        this.waitedNs = new long[2][capacity];
        for (int who = 0; who < 2; who++) {
            Arrays.fill(ranNs[who], -1);
            Arrays.fill(waitedNs[who], -1);
        }
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

    /** The server's thread: the client logged in again after cut {@code index}, at {@code nowNs}; first only. */
    void serverLogin(final long index, final long nowNs) {
        if (index >= 0 && index < side.length && serverLogin[(int)index] == 0) {
            serverLogin[(int)index] = nowNs;
        }
    }

    /**
     * The thread of {@code reactorSide}: one duty cycle of its reactor while cut {@code index} is being resumed,
     * {@code cycleNs} after the cycle before it (the clock each cycle reads once). A long one is a cycle that did much
     * work, or a thread that did not run: parked by its idle strategy, descheduled, or stopped at a safepoint.
     */
    void cycle(final int reactorSide, final long index, final long cycleNs) {
        if (index >= 0 && index < side.length) {
            cycles[reactorSide][(int)index]++;
            if (cycleNs > longestCycle[reactorSide][(int)index]) {
                longestCycle[reactorSide][(int)index] = cycleNs;
            }
        }
    }

    /** The thread of {@code reactorSide}: over cut {@code index}'s resume it ran {@code ran} ns and waited {@code waited} ns for a CPU. */
    void scheduled(final int reactorSide, final long index, final long ran, final long waited) {
        if (index >= 0 && index < side.length) {
            ranNs[reactorSide][(int)index] = ran;
            waitedNs[reactorSide][(int)index] = waited;
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
            lines.addAll(threadLines(by, complete));
        }
        lines.add(decilesLine(n));
        lines.add(lagDecilesLine(n));
        return lines;
    }

    /**
     * Who held the resume, a line each: connected -> login accepted split at the server's {@code onLoggedIn} (the
     * client's Login Request reaching the server's thread, then the answer reaching the client's); each reactor's
     * longest cycle and its cycles while resuming; the time the client had since the previous resume (cuts are due at
     * fixed times, so after a slow resume the next one comes at once); and the same for the slowest cuts.
     */
    private List<String> threadLines(final String by, final int[] cuts) {
        final List<String> lines = new ArrayList<>();
        final long[] toServer = new long[cuts.length];
        final long[] toClient = new long[cuts.length];
        final long[] serverLongest = new long[cuts.length];
        final long[] clientLongest = new long[cuts.length];
        final long[] serverCycles = new long[cuts.length];
        final long[] clientCycles = new long[cuts.length];
        final long[] sincePrevious = new long[cuts.length];
        int split = 0;
        int previous = 0;
        for (final int cut : cuts) {
            if (serverLogin[cut] != 0) {
                toServer[split] = serverLogin[cut] - stamps[CONNECTED][cut];
                toClient[split++] = stamps[ACCEPTED][cut] - serverLogin[cut];
            }
            if (cut > 0 && stamps[FIRST][cut - 1] != 0) {
                sincePrevious[previous++] = stamps[CUT][cut] - stamps[FIRST][cut - 1];
            }
        }
        for (int i = 0; i < cuts.length; i++) {
            serverLongest[i] = longestCycle[CutSchedule.SERVER][cuts[i]];
            clientLongest[i] = longestCycle[CutSchedule.CLIENT][cuts[i]];
            serverCycles[i] = cycles[CutSchedule.SERVER][cuts[i]] * 1_000; // summary() prints thousandths
            clientCycles[i] = cycles[CutSchedule.CLIENT][cuts[i]] * 1_000;
        }
        if (split > 0) {
            lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) connected -> server logged it in   %s", by, split,
                summary(Arrays.copyOf(toServer, split))));
            lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) server logged in -> accepted     %s", by, split,
                summary(Arrays.copyOf(toClient, split))));
        }
        lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) longest server cycle, resuming   %s", by, cuts.length,
            summary(serverLongest)));
        lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) longest client cycle, resuming   %s", by, cuts.length,
            summary(clientLongest)));
        lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) server cycles while resuming (count) %s", by,
            cuts.length, summary(serverCycles)));
        lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) client cycles while resuming (count) %s", by,
            cuts.length, summary(clientCycles)));
        for (int who = CutSchedule.SERVER; who <= CutSchedule.CLIENT; who++) {
            final long[] ran = new long[cuts.length];
            final long[] waited = new long[cuts.length];
            int known = 0;
            for (final int cut : cuts) {
                if (ranNs[who][cut] >= 0) {
                    ran[known] = ranNs[who][cut];
                    waited[known++] = waitedNs[who][cut];
                }
            }
            if (known > 0) {
                final String thread = who == CutSchedule.SERVER ? "server" : "client";
                lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) %s thread waited for a CPU    %s", by, known,
                    thread, summary(Arrays.copyOf(waited, known))));
                lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) %s thread ran on a CPU        %s", by, known,
                    thread, summary(Arrays.copyOf(ran, known))));
            }
        }
        if (previous > 0) {
            final long[] since = Arrays.copyOf(sincePrevious, previous);
            Arrays.sort(since);
            lines.add(String.format(Locale.ROOT, "    by the %s (n=%d) previous resume -> this cut, p1 %.1f us p50 %.1f us;"
                + " cuts within 100 us of it: %d", by, previous, at(since, 1) / 1e3, at(since, 50) / 1e3,
                Arrays.stream(since).filter(v -> v < 100_000).count()));
        }
        lines.add(slowestThreadsLine(by, cuts));
        return lines;
    }

    /** For the cuts at or over the side's p99: the mean longest cycle of each reactor and time since the previous resume. */
    private String slowestThreadsLine(final String by, final int[] cuts) {
        final long[] total = new long[cuts.length];
        for (int i = 0; i < cuts.length; i++) {
            total[i] = stamps[FIRST][cuts[i]] - stamps[CUT][cuts[i]];
        }
        final long[] sorted = total.clone();
        Arrays.sort(sorted);
        final long p99 = at(sorted, 99);
        long server = 0;
        long client = 0;
        long serverWaited = 0;
        long clientWaited = 0;
        long since = 0;
        int sinceCount = 0;
        int slow = 0;
        for (int i = 0; i < cuts.length; i++) {
            if (total[i] >= p99) {
                slow++;
                server += longestCycle[CutSchedule.SERVER][cuts[i]];
                client += longestCycle[CutSchedule.CLIENT][cuts[i]];
                serverWaited += Math.max(0, waitedNs[CutSchedule.SERVER][cuts[i]]);
                clientWaited += Math.max(0, waitedNs[CutSchedule.CLIENT][cuts[i]]);
                if (cuts[i] > 0 && stamps[FIRST][cuts[i] - 1] != 0) {
                    since += stamps[CUT][cuts[i]] - stamps[FIRST][cuts[i] - 1];
                    sinceCount++;
                }
            }
        }
        return String.format(Locale.ROOT, "    by the %s: the %d cuts at or over its p99, mean longest cycle: server %.1f us,"
            + " client %.1f us; mean wait for a CPU: server %.1f us, client %.1f us; mean previous resume -> cut %s", by,
            slow, server / 1e3 / slow, client / 1e3 / slow, serverWaited / 1e3 / slow, clientWaited / 1e3 / slow,
            sinceCount == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f us", since / 1e3 / sinceCount));
    }

    /** The client's lag at the cut by tenths of the run, in cut order: a lag that grows over the run shows here. */
    private String lagDecilesLine(final int n) {
        final StringBuilder line = new StringBuilder("  client's lag at the cut by tenth of the run (cut order),"
            + " p50/max msgs:");
        for (int part = 0; part < 10; part++) {
            final int start = (int)((long)part * n / 10);
            final int end = (int)((long)(part + 1) * n / 10);
            final long[] values = new long[end - start];
            int count = 0;
            for (int i = start; i < end; i++) {
                if (lagMessages[i] >= 0) {
                    values[count++] = lagMessages[i];
                }
            }
            if (count == 0) {
                continue;
            }
            final long[] measured = Arrays.copyOf(values, count);
            Arrays.sort(measured);
            line.append(String.format(Locale.ROOT, " %d/%d", at(measured, 50), measured[count - 1]));
        }
        return line.toString();
    }

    /**
     * Every cut, a CSV line each (the diagnostic {@code --cut-log}): its number, side, time from the start in us, the
     * lag at the cut, each hop from the one before in us (0 where missing), the server's login from the connect, each
     * reactor's cycles and longest cycle while resuming.
     *
     * @param cutsMade cuts made in the run
     * @param startNs the run's start on the cutters' clock
     * @return the lines, a header first
     */
    List<String> csv(final long cutsMade, final long startNs) {
        final int n = (int)Math.min(cutsMade, side.length);
        final List<String> lines = new ArrayList<>(n + 1);
        lines.add("cut,side,at_us,lag_msgs,notice_us,connect_start_us,connected_us,accepted_us,first_us,total_us,"
            + "server_login_after_connected_us,server_cycles,server_longest_cycle_us,client_cycles,client_longest_cycle_us,"
            + "since_previous_resume_us,server_ran_us,server_waited_us,client_ran_us,client_waited_us");
        for (int i = 0; i < n; i++) {
            final StringBuilder line = new StringBuilder(160);
            line.append(i).append(',').append(side[i] == CutSchedule.SERVER ? "server" : "client").append(',')
                .append(stamps[CUT][i] == 0 ? 0 : (stamps[CUT][i] - startNs) / 1_000).append(',').append(lagMessages[i]);
            for (int hop = 1; hop < HOPS; hop++) {
                line.append(',').append(hopMicros(i, hop - 1, hop));
            }
            line.append(',').append(hopMicros(i, CUT, FIRST));
            line.append(',').append(serverLogin[i] == 0 || stamps[CONNECTED][i] == 0 ? 0
                : (serverLogin[i] - stamps[CONNECTED][i]) / 1_000);
            line.append(',').append(cycles[CutSchedule.SERVER][i]).append(',')
                .append(longestCycle[CutSchedule.SERVER][i] / 1_000).append(',').append(cycles[CutSchedule.CLIENT][i])
                .append(',').append(longestCycle[CutSchedule.CLIENT][i] / 1_000);
            line.append(',').append(i > 0 && stamps[FIRST][i - 1] != 0 && stamps[CUT][i] != 0
                ? (stamps[CUT][i] - stamps[FIRST][i - 1]) / 1_000 : 0);
            for (int who = CutSchedule.SERVER; who <= CutSchedule.CLIENT; who++) {
                line.append(',').append(ranNs[who][i] < 0 ? -1 : ranNs[who][i] / 1_000).append(',')
                    .append(waitedNs[who][i] < 0 ? -1 : waitedNs[who][i] / 1_000);
            }
            lines.add(line.toString());
        }
        return lines;
    }

    private long hopMicros(final int cut, final int from, final int to) {
        return stamps[from][cut] == 0 || stamps[to][cut] == 0 ? 0 : (stamps[to][cut] - stamps[from][cut]) / 1_000;
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
