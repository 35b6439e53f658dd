package dev.peregrine.bench.reconnect;

import dev.peregrine.reactor.Pollable;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * {@code bench reconnect --replay-clients N --diagnose}: where the server's publish-to-write time goes, split by the
 * server reactor's duty cycle. Zero garbage on the reactor thread: every array is made up front.
 *
 * <p>Each duty cycle is cut by stamps of pollables placed around the server's:
 * <pre>
 *  cycle start | select (cycle-start flush, reads, OP_WRITE writes, timers) | server's replay pass |
 *  publisher (the batch of publishes) | end-of-cycle flush (live client first) | end marker
 * </pre>
 * A cycle that published or wrote a measured message gets a record: its phases, the messages it published (the
 * batch), the writes and bytes of the other sockets in each phase, the live socket's bytes left after the flush,
 * and the thread's scheduler figures ({@link ThreadSchedStat}) when the publisher began and at the live write. Each
 * measured message (an entry of the {@link PublishToWriteRecorder}) keeps its publish and write records, its stamp
 * and its latency; {@link #report} names what holds those at or over the p99.
 *
 * <p>Not thread-safe: the server reactor's thread (and {@link #report} after the run).
 */
final class ReplayDiagnosis {
    private static final int SELECT = 0;
    private static final int REPLAY = 1;
    private static final int PUBLISH = 2;
    private static final int FLUSH = 3;
    private static final int SLOTS = 1 << 14;

    private final PublishToWriteRecorder recorder;
    private final LongSupplier livePending;
    private ThreadSchedStat sched; // opened on the reactor thread at the stream's start
    private long cycle;
    private int phase;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private long startNs;
    private long startCpu;
    private long selectEndCpu;
    private long replayEndCpu;
    private long publishEndCpu;
    private long selectEndNs;
    private long replayEndNs;
    private long publishEndNs;
    private long previousEndNs;
    private long liveWriteNs;
    private int batch;
    private final int[] phaseWrites = new int[4];
    private final long[] phaseBytes = new long[4];
    private int record = -1;
    private final long[] lastBytes = new long[SLOTS];

    // records: cycles that published or wrote a measured message
    private final long[] recCycle;
    private final long[] recStart;
    private final int[] recGap;
    private final int[] recSelectCpu;
    private final int[] recReplayCpu;
    private final int[] recPublishCpu;
    private final int[] recFlushCpu;
    private final long[] recCpuAtPublish;
    private final long[] recCpuAtWrite;
    private final int[] recSelect;
    private final int[] recReplay;
    private final int[] recPublish;
    private final int[] recFlush;
    private final int[] recLiveWrite;
    private final int[] recBatch;
    private final int[] recSelectWrites;
    private final long[] recSelectBytes;
    private final int[] recOtherWrites;
    private final long[] recOtherBytes;
    private final int[] recPendingAfter;
    private final long[] recDelayAtPublish;
    private final long[] recSlicesAtPublish;
    private final long[] recDelayAtWrite;
    private final long[] recSlicesAtWrite;
    private int records;
    private long recordsDropped;

    // entries: measured messages, in the recorder's order
    private final long[] entStamp;
    private final long[] entLatency;
    private final int[] entPublish;
    private final int[] entWrite;
    private long entriesTraced;
    private long entriesWritten;

    // the run's edges
    private long delayAtStart;
    private long delayAtEnd;
    private long cpuAtStart;
    private long cpuAtEnd;
    private long slicesAtStart;
    private long slicesAtEnd;
    private long involuntaryAtStart = -1;
    private long involuntaryAtEnd = -1;
    private boolean started;

    final Pollable atCycleStart = this::cycleStart;
    final Pollable afterSelect = this::selectEnds;
    final Pollable atCycleEnd = this::cycleEnd;

    /**
     * @param recorder the run's recorder, whose entries are traced
     * @param live live messages in the run
     * @param livePending the live connection's bytes waiting in its outbound buffer (read at each cycle's end)
     */
    ReplayDiagnosis(final PublishToWriteRecorder recorder, final long live, final LongSupplier livePending) {
        this.recorder = recorder;
        this.livePending = livePending;
        final int entries = (int)Math.min(live + 16, 1 << 24);
        final int recs = (int)Math.min(2 * live + 16, 1 << 22);
        entStamp = new long[entries];
        entLatency = new long[entries];
        entPublish = new int[entries];
        entWrite = new int[entries];
        recorder.trace(entLatency);
        recCycle = new long[recs];
        recStart = new long[recs];
        recGap = new int[recs];
        recSelectCpu = new int[recs];
        recReplayCpu = new int[recs];
        recPublishCpu = new int[recs];
        recFlushCpu = new int[recs];
        recCpuAtPublish = new long[recs];
        recCpuAtWrite = new long[recs];
        recSelect = new int[recs];
        recReplay = new int[recs];
        recPublish = new int[recs];
        recFlush = new int[recs];
        recLiveWrite = new int[recs];
        recBatch = new int[recs];
        recSelectWrites = new int[recs];
        recSelectBytes = new long[recs];
        recOtherWrites = new int[recs];
        recOtherBytes = new long[recs];
        recPendingAfter = new int[recs];
        recDelayAtPublish = new long[recs];
        recSlicesAtPublish = new long[recs];
        recDelayAtWrite = new long[recs];
        recSlicesAtWrite = new long[recs];
        Arrays.fill(entPublish, -1);
        Arrays.fill(entWrite, -1);
    }

    private int cycleStart(final long nowNs) {
        cycle++;
        phase = SELECT;
        startNs = System.nanoTime();
        startCpu = THREADS.getCurrentThreadCpuTime();
        record = -1;
        batch = 0;
        liveWriteNs = 0;
        Arrays.fill(phaseWrites, 0);
        Arrays.fill(phaseBytes, 0);
        return 0;
    }

    private int selectEnds(final long nowNs) {
        selectEndNs = System.nanoTime();
        selectEndCpu = THREADS.getCurrentThreadCpuTime();
        phase = REPLAY;
        return 0;
    }

    /** The stream starts (on the reactor thread): the scheduler file is opened and the run's edge read. */
    void streamStarts() {
        if (started) {
            return;
        }
        started = true;
        sched = new ThreadSchedStat();
        sched.read();
        delayAtStart = sched.runDelayNs();
        cpuAtStart = sched.cpuNs();
        slicesAtStart = sched.slices();
        involuntaryAtStart = ThreadSchedStat.involuntarySwitches();
    }

    /** The stream is over (on the reactor thread). */
    void streamEnds() {
        if (sched == null) {
            return;
        }
        sched.read();
        delayAtEnd = sched.runDelayNs();
        cpuAtEnd = sched.cpuNs();
        slicesAtEnd = sched.slices();
        involuntaryAtEnd = ThreadSchedStat.involuntarySwitches();
        sched.close();
    }

    /** The publisher begins its pass; {@code willPublish} if it has messages due. */
    void publisherBegins(final boolean willPublish) {
        replayEndNs = System.nanoTime();
        replayEndCpu = THREADS.getCurrentThreadCpuTime();
        phase = PUBLISH;
        if (willPublish && ensureRecord() >= 0) {
            recCpuAtPublish[record] = replayEndCpu;
        }
        if (willPublish && record >= 0 && sched != null) {
            sched.read();
            recDelayAtPublish[record] = sched.runDelayNs();
            recSlicesAtPublish[record] = sched.slices();
        }
    }

    /** A message was published; {@code entryBefore} is the recorder's entry count before it. */
    void published(final long entryBefore, final long stampNs) {
        batch++;
        if (recorder.measured() > entryBefore && entryBefore < entStamp.length) {
            entStamp[(int)entryBefore] = stampNs;
            entPublish[(int)entryBefore] = ensureRecord();
            entriesTraced = entryBefore + 1;
        }
    }

    void publisherEnds() {
        publishEndNs = System.nanoTime();
        publishEndCpu = THREADS.getCurrentThreadCpuTime();
        phase = FLUSH;
    }

    /** A write to any socket of the server, as the write listener sees it (after the recorder for the live one). */
    void onWrite(final long channelId, final long bytesWritten, final boolean live) {
        final int slot = (int)channelId & (SLOTS - 1);
        final long bytes = bytesWritten - lastBytes[slot];
        lastBytes[slot] = bytesWritten;
        if (!live) {
            phaseWrites[phase]++;
            phaseBytes[phase] += bytes;
            return;
        }
        entriesWritten();
    }

    /** Entries the recorder matched since the last call were written in this cycle. */
    void entriesWritten() {
        final long head = recorder.recorded();
        if (head <= entriesWritten) {
            return;
        }
        final int r = ensureRecord();
        if (liveWriteNs == 0 && r >= 0) {
            liveWriteNs = System.nanoTime();
            recCpuAtWrite[r] = THREADS.getCurrentThreadCpuTime();
            if (sched != null) {
                sched.read();
                recDelayAtWrite[r] = sched.runDelayNs();
                recSlicesAtWrite[r] = sched.slices();
            }
        }
        for (long e = entriesWritten; e < head && e < entWrite.length; e++) {
            entWrite[(int)e] = r;
        }
        entriesWritten = head;
    }

    private int cycleEnd(final long nowNs) {
        final long end = System.nanoTime();
        final int r = record;
        if (r >= 0) {
            recSelectCpu[r] = clamp(selectEndCpu - startCpu);
            recReplayCpu[r] = clamp(replayEndCpu - selectEndCpu);
            recPublishCpu[r] = clamp(publishEndCpu - replayEndCpu);
            recFlushCpu[r] = clamp(THREADS.getCurrentThreadCpuTime() - publishEndCpu);
            recPendingAfter[r] = (int)Math.min(Integer.MAX_VALUE, Math.max(0, livePending.getAsLong()));
            recGap[r] = previousEndNs == 0 ? 0 : clamp(startNs - previousEndNs);
            recSelect[r] = clamp(selectEndNs - startNs);
            recReplay[r] = clamp(replayEndNs - selectEndNs);
            recPublish[r] = clamp(publishEndNs - replayEndNs);
            recFlush[r] = clamp(end - publishEndNs);
            recLiveWrite[r] = liveWriteNs == 0 ? -1 : clamp(liveWriteNs - startNs);
            recBatch[r] = batch;
            recSelectWrites[r] = phaseWrites[SELECT];
            recSelectBytes[r] = phaseBytes[SELECT];
            recOtherWrites[r] = phaseWrites[REPLAY] + phaseWrites[PUBLISH] + phaseWrites[FLUSH];
            recOtherBytes[r] = phaseBytes[REPLAY] + phaseBytes[PUBLISH] + phaseBytes[FLUSH];
        }
        previousEndNs = end;
        return 0;
    }

    private int ensureRecord() {
        if (record < 0) {
            if (records == recCycle.length) {
                recordsDropped++;
                return -1;
            }
            record = records++;
            recCycle[record] = cycle;
            recStart[record] = startNs;
        }
        return record;
    }

    private static int clamp(final long ns) {
        return (int)Math.max(0, Math.min(Integer.MAX_VALUE, ns));
    }

    /**
     * Prints the split (after the run, off the reactor thread; allocates).
     *
     * @param what the run's name in each line
     * @param windowEntries the measured messages the figure is taken over, the first ones in publish order (those of the
     *     replay window, {@link PublishToWriteRecorder#histogram()}); those after it are left out
     * @param out where the lines go
     */
    void report(final String what, final long windowEntries, final PrintStream out) {
        final int n = (int)Math.min(Math.min(entriesWritten, entriesTraced), windowEntries);
        if (n == 0) {
            out.println("  diagnose " + what + ": no measured message");
            return;
        }
        final long[] sorted = Arrays.copyOf(entLatency, n);
        Arrays.sort(sorted);
        final long p99 = CutHops.at(sorted, 99);
        int tail = 0;
        int sameCycle = 0;
        int laterCycle = 0;
        long mostCyclesLater = 0;
        int laterWithPending = 0;
        int byDelay = 0;
        int byBatch = 0;
        int byFlush = 0;
        int byLater = 0;
        int byOurCycle = 0;
        final long[] batchWait = new long[n];
        final long[] flushWait = new long[n];
        final long[] delay = new long[n];
        final long[] slices = new long[n];
        final long[] cpu = new long[n];
        final long[] window = new long[n];
        final int[] batchLength = new int[n];
        final boolean[] tailRecord = new boolean[records];
        // where in the stream they are: a JIT still warming up makes the first batches cost 1-50 us a message
        // (PublishBatchCost), so a cold start falls behind into capped batches that hold the p99
        final int[] tenths = new int[10];
        for (int e = 0; e < n; e++) {
            if (entLatency[e] < p99 || entPublish[e] < 0 || entWrite[e] < 0) {
                continue;
            }
            final int p = entPublish[e];
            final int w = entWrite[e];
            tailRecord[p] = true;
            tailRecord[w] = true;
            tenths[(int)((long)e * 10 / n)]++;
            final long writeNs = entStamp[e] + entLatency[e];
            final long pubEnd = recStart[p] + recSelect[p] + recReplay[p] + recPublish[p];
            batchWait[tail] = Math.max(0, Math.min(writeNs, pubEnd) - entStamp[e]);
            flushWait[tail] = Math.max(0, writeNs - Math.max(pubEnd, entStamp[e]));
            delay[tail] = recDelayAtWrite[w] - recDelayAtPublish[p];
            slices[tail] = recSlicesAtWrite[w] - recSlicesAtPublish[p];
            cpu[tail] = recCpuAtWrite[w] - recCpuAtPublish[p];
            window[tail] = recStart[w] + recLiveWrite[w] - (recStart[p] + recSelect[p] + recReplay[p]);
            batchLength[tail] = recBatch[p];
            final long latency = entLatency[e];
            if (recCycle[w] == recCycle[p]) {
                sameCycle++;
            } else {
                laterCycle++;
                mostCyclesLater = Math.max(mostCyclesLater, recCycle[w] - recCycle[p]);
                if (recPendingAfter[p] > 0) {
                    laterWithPending++;
                }
            }
            if (delay[tail] * 2 >= latency) {
                byDelay++;
            } else if (recCycle[w] != recCycle[p]) {
                byLater++;
            } else if (batchWait[tail] * 2 >= latency) {
                byBatch++;
            } else if (flushWait[tail] * 2 >= latency) {
                byFlush++;
            } else {
                byOurCycle++;
            }
            tail++;
        }
        out.println(String.format(Locale.ROOT, "  diagnose %s: %d measured messages traced, p99 %.1f us; %d at or over"
                + " it: %d written in the cycle they were published in, %d in a later cycle (at most %d cycles later;"
                + " %d of those with live bytes left for OP_WRITE after the publish cycle's flush)", what, n,
            p99 / 1e3, tail, sameCycle, laterCycle, mostCyclesLater, laterWithPending));
        out.println(String.format(Locale.ROOT, "  diagnose %s: what holds them (half or more of each one's time): run"
                + " delay (runnable, waiting for a core) %d; written in a later cycle %d; waiting for the rest of its"
                + " publisher batch %d; the flush before its write %d; none of those alone %d", what, byDelay, byLater,
            byBatch, byFlush, byOurCycle));
        out.println(String.format(Locale.ROOT, "  diagnose %s: over p99, from the publisher's start to the live"
                + " write, median / p99 / max: wall %s = on a CPU %s + run delay %s (+ the rest)", what, us(window, tail),
            us(cpu, tail), us(delay, tail)));
        out.println(String.format(Locale.ROOT, "  diagnose %s: over p99, median / max: waiting for the rest of the batch"
                + " %s; flush up to its write %s; run delay from the publisher's start to the live write %s; times"
                + " scheduled in meanwhile %s; batch length %s", what, us(batchWait, tail), us(flushWait, tail),
            us(delay, tail), plain(slices, tail), plainInts(batchLength, tail)));
        out.println(String.format(Locale.ROOT, "  diagnose %s: over p99, by tenth of the stream (first to last): %s",
            what, Arrays.toString(tenths)));
        phases(what + ", cycles holding the p99 messages", tailRecord, true, out);
        phases(what + ", every recorded cycle", tailRecord, false, out);
        if (sched != null && sched.available()) {
            out.println(String.format(Locale.ROOT, "  diagnose %s: server reactor thread over the stream: on a CPU"
                    + " %.1f ms, run delay %.1f ms, scheduled in %d times, involuntary context switches %d",
                what, (cpuAtEnd - cpuAtStart) / 1e6, (delayAtEnd - delayAtStart) / 1e6, slicesAtEnd - slicesAtStart,
                involuntaryAtEnd < 0 || involuntaryAtStart < 0 ? -1 : involuntaryAtEnd - involuntaryAtStart));
        }
        if (recordsDropped > 0) {
            out.println("  diagnose " + what + ": cycle records full, " + recordsDropped + " cycles not recorded");
        }
    }

    private void phases(final String what, final boolean[] tailRecord, final boolean tailOnly, final PrintStream out) {
        int count = 0;
        final long[][] columns = new long[15][records];
        for (int r = 0; r < records; r++) {
            if (tailOnly && !tailRecord[r]) {
                continue;
            }
            columns[0][count] = recGap[r];
            columns[1][count] = recSelect[r];
            columns[2][count] = recReplay[r];
            columns[3][count] = recPublish[r];
            columns[4][count] = recFlush[r];
            columns[5][count] = recBatch[r];
            columns[6][count] = recSelectWrites[r];
            columns[7][count] = recSelectBytes[r];
            columns[8][count] = recOtherWrites[r];
            columns[9][count] = recSelectCpu[r];
            columns[10][count] = recReplayCpu[r];
            columns[11][count] = recPublishCpu[r];
            columns[12][count] = recFlushCpu[r];
            columns[13][count] = recBatch[r] == 0 ? 0 : recPublishCpu[r] / recBatch[r];
            columns[14][count] = recSelectCpu[r] + recReplayCpu[r] + recPublishCpu[r] + recFlushCpu[r];
            count++;
        }
        out.println(String.format(Locale.ROOT, "  diagnose %s (%d), median / p99 / max: gap before %s; select %s;"
                + " replay pass %s; publisher %s; flush %s; batch %s; other sockets' writes in select %s (%s B);"
                + " other sockets' writes after select %s", what, count, us(columns[0], count), us(columns[1], count),
            us(columns[2], count), us(columns[3], count), us(columns[4], count), plain(columns[5], count),
            plain(columns[6], count), plain(columns[7], count), plain(columns[8], count)));
        out.println(String.format(Locale.ROOT, "  diagnose %s, on a CPU, median / p99 / max: select %s; replay pass %s;"
                + " publisher %s (per message %s); flush %s; whole cycle %s", what, us(columns[9], count),
            us(columns[10], count), us(columns[11], count), us(columns[13], count), us(columns[12], count),
            us(columns[14], count)));
    }

    private static String us(final long[] values, final int n) {
        final long[] s = Arrays.copyOf(values, n);
        Arrays.sort(s);
        return n == 0 ? "-" : String.format(Locale.ROOT, "%.1f / %.1f / %.1f us", s[n / 2] / 1e3,
            CutHops.at(s, 99) / 1e3, s[n - 1] / 1e3);
    }

    private static String plain(final long[] values, final int n) {
        final long[] s = Arrays.copyOf(values, n);
        Arrays.sort(s);
        return n == 0 ? "-" : s[n / 2] + " / " + CutHops.at(s, 99) + " / " + s[n - 1];
    }

    private static String plainInts(final int[] values, final int n) {
        final long[] s = new long[n];
        for (int i = 0; i < n; i++) {
            s[i] = values[i];
        }
        return plain(s, n);
    }
}
