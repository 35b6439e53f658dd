package dev.peregrine.bench.fanout;

import dev.peregrine.bench.run.ThreadAllocation;
import dev.peregrine.bench.run.ThreadCpu;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * One reader of {@code bench fanout}, in a JVM of its own. It attaches, prints {@code READY pid=...}, then reads
 * until it has seen the last sequence, checking that each is the one after the last; it prints one
 * {@link Result} line and exits. With {@code --latency} it records, for every measured message, now minus the
 * intended send time the message carries (the writer's {@code System.nanoTime}, the same clock here: Linux's
 * {@code CLOCK_MONOTONIC}), so a writer that fell behind its schedule shows in the latency (coordinated omission
 * corrected). Its own bytes allocated per measured message are measured on the reading thread.
 *
 * <p>Arguments: {@code --transport=NAME --dir=DIR --size=S --index=I --first=F --end=E [--latency]
 * [--tolerate-loss] [--detach-at=D] --timeout-ms=T}: sequences below {@code F} are warm-up, {@code E - 1} is the
 * last. With {@code --detach-at} the reader detaches once it has read sequence {@code D}, prints its result, and
 * then stays idle (asleep, its reader closed) until it is ended or its timeout passes: the reference run of
 * {@code --stop-reader}, in which the same process is there, doing nothing, as the stopped one is.
 */
public final class FanoutReaderChild {
    /** Latencies above this (an hour) are recorded as this. */
    static final long HIGHEST_NS = 3_600_000_000_000L;

    static {
        // the meter's class initialised here (the JDK's thread MXBean: some 250 KB and milliseconds), not at the first
        // measured message, where it delayed that message and every one queued behind it
        ThreadAllocation.currentThread();
        ThreadCpu.currentThreadNs();
        // loaded here, not where the compiled read loop first exits (an uncommon trap loads it, some 14 KB read from
        // the jar, before the window's last meter reading: 0.1 B/msg in a quiet 100 000 msg/s run, JFR, bcast9)
        Result.class.getName();
    }

    private final FanoutTransport.Reader reader;
    private final Histogram histogram = new Histogram(1, HIGHEST_NS, 3);
    /**
     * Where warm-up latencies go, so that the warm-up runs the measured path: recording only measured messages left
     * HdrHistogram's first C2 compile, and the String literals HotSpot resolves before it (some KB), to the window.
     */
    private final Histogram warmupHistogram = new Histogram(1, HIGHEST_NS, 3);
    private final long first;
    /**
     * The first sequence of the window being measured: the rehearsal's during the warm-up (see {@link #rehearsal}),
     * then {@link #first}.
     */
    private long windowStart;
    /** The rehearsal's last sequence, after which its figures are forgotten; -1 without a rehearsal. */
    private final long rehearsalLast;
    private final long end;
    private final long detachAt;
    private final boolean latency;
    private final FanoutSequences sequences;
    private long received;
    private long measured;
    private long firstNs;
    private long lastNs;
    private long allocatedAtFirst = -1;
    private long cpuAtFirstNs = -1;
    /** Whether the first measured message has arrived. */
    private boolean measuring;
    private boolean detached;
    private String failure;

    private FanoutReaderChild(final FanoutTransport transport, final Path directory, final int size, final int index,
                              final long first, final long end, final long detachAt, final boolean latency,
                              final boolean tolerateLoss) {
        this.first = first;
        final long[] rehearsal = rehearsal(first);
        this.windowStart = rehearsal == null ? first : rehearsal[0];
        this.rehearsalLast = rehearsal == null ? -1 : rehearsal[1];
        this.end = end;
        this.detachAt = detachAt;
        this.latency = latency;
        this.sequences = new FanoutSequences(tolerateLoss);
        this.reader = transport.attach(directory, size, index, latency ? FanoutTransport.LATENCY_POLL_LIMIT
            : FanoutTransport.THROUGHPUT_POLL_LIMIT, this::onMessage);
    }

    private void onMessage(final long sequence, final long sendNs) {
        if (detached) {
            return; // the rest of the poll that brought the last sequence it reads
        }
        final boolean timed = timed(latency, measuring, sequence, windowStart, end, detachAt);
        final long nowNs = timed ? System.nanoTime() : 0;
        if (failure != null || !sequences.accept(sequence)) {
            failure = failure == null ? sequences.failure() : failure;
            return;
        }
        received++;
        if (sequence >= windowStart) {
            if (!measuring) {
                measuring = true;
                cpuAtFirstNs = ThreadCpu.currentThreadNs(); // before the meter: nothing it might do is in its window
                allocatedAtFirst = ThreadAllocation.currentThread();
                firstNs = nowNs;
            }
            measured++;
            if (latency) {
                histogram.recordValue(Math.max(1, Math.min(HIGHEST_NS, nowNs - sendNs)));
            }
        } else if (latency) {
            warmupHistogram.recordValue(Math.max(1, Math.min(HIGHEST_NS, nowNs - sendNs)));
        }
        if (timed) {
            lastNs = nowNs;
        }
        if (sequence == rehearsalLast) {
            forgetRehearsal();
        }
        if (sequence == detachAt) {
            detached = true;
        }
    }

    /**
     * The rehearsal of the measured window inside the warm-up: sequences {@code [first / 2, 3 * first / 4)} go through
     * the very branches the measured ones will (the window's start, its first message's readings), and are then
     * forgotten. Without it those branches were never taken before the first measured message, so the JIT had compiled
     * them out: the first measured message hit an uncommon trap ({@code unstable_if}) and threw the reader's compiled
     * read loop away, in every reader at once, and C2 compiled it again inside the window, 0.2-0.9 s of compiling per
     * reader JVM on a 2-vCPU machine (LogCompilation, docs/broadcast-bcast13.md). Taken once in the warm-up, the trap
     * is recorded, and the loop compiled again keeps the branches.
     *
     * @param first the first measured sequence, the warm-up's length
     * @return the rehearsal's first and last sequence, or null for a warm-up too short to hold one (under 4)
     */
    static long[] rehearsal(final long first) {
        return first < 4 ? null : new long[] {first / 2, first * 3 / 4 - 1};
    }

    private void forgetRehearsal() {
        windowStart = first;
        measuring = false;
        measured = 0;
        histogram.reset();
        cpuAtFirstNs = -1;
        allocatedAtFirst = -1;
        firstNs = 0;
        lastNs = 0;
    }

    /**
     * Whether a message's arrival is timed: every one in a latency run; in a throughput run only those its figure needs,
     * the first measured one and the last (or the one it detaches at). System.nanoTime cost 60-77 ns a call on the
     * 2-vCPU VM of bcast10, about half of a message's time at 7 M msg/s, in every transport's reader alike
     * (docs/broadcast-bcast10.md).
     *
     * @param latency a latency run
     * @param measuring whether the first measured message has arrived
     * @param sequence the message's sequence
     * @param first the first measured sequence
     * @param end one past the last sequence
     * @param detachAt the sequence the reader detaches at, or -1
     * @return whether to read the clock for it
     */
    static boolean timed(final boolean latency, final boolean measuring, final long sequence, final long first,
                         final long end, final long detachAt) {
        return latency || sequence >= end - 1 || sequence == detachAt || !measuring && sequence >= first;
    }

    /**
     * What a reader measured.
     *
     * @param received messages received
     * @param measured messages received at or past the first measured sequence
     * @param lost sequences skipped (with {@code --tolerate-loss} only; else a skip is a failure)
     * @param firstNs when the first measured message arrived
     * @param lastNs when the last message arrived
     * @param allocatedPerMessage bytes the reading thread allocated per measured message, or -1 if unknown
     * @param histogram latencies in ns, or null without {@code --latency}
     * @param failure why the reader failed, or empty
     * @param cpuShare the share of a core the reading thread used from its first measured message to its last, or -1
     */
    public record Result(long received, long measured, long lost, long firstNs, long lastNs, double allocatedPerMessage,
                         Histogram histogram, String failure, double cpuShare) {
        /**
         * The line the child prints; the failure comes last and may hold spaces.
         *
         * @return the line
         */
        public String toLine() {
            String encoded = "-";
            if (histogram != null) {
                final ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
                final int length = histogram.encodeIntoCompressedByteBuffer(buffer);
                encoded = Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
            }
            return String.format(Locale.ROOT, "RESULT received=%d measured=%d lost=%d first_ns=%d last_ns=%d alloc=%s"
                + " cpu=%s histogram=%s failure=%s", received, measured, lost, firstNs, lastNs,
                Double.toString(allocatedPerMessage), Double.toString(cpuShare), encoded, failure);
        }

        /**
         * Parses {@link #toLine()}.
         *
         * @param line the line
         * @return the result
         * @throws IllegalArgumentException if it is not a result line
         */
        public static Result parse(final String line) {
            final int failureAt = line == null ? -1 : line.indexOf(" failure=");
            if (failureAt < 0 || !line.startsWith("RESULT ")) {
                throw new IllegalArgumentException("line=" + line + " is not a RESULT line");
            }
            final Map<String, String> fields = new HashMap<>();
            for (final String field : line.substring("RESULT ".length(), failureAt).trim().split("\\s+")) {
                final int eq = field.indexOf('=');
                if (eq > 0) {
                    fields.put(field.substring(0, eq), field.substring(eq + 1));
                }
            }
            try {
                final String encoded = fields.getOrDefault("histogram", "-");
                final Histogram histogram = encoded.equals("-") ? null : Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 0);
                return new Result(Long.parseLong(fields.get("received")), Long.parseLong(fields.get("measured")),
                    Long.parseLong(fields.get("lost")), Long.parseLong(fields.get("first_ns")),
                    Long.parseLong(fields.get("last_ns")), Double.parseDouble(fields.get("alloc")), histogram,
                    line.substring(failureAt + " failure=".length()), Double.parseDouble(fields.getOrDefault("cpu", "-1")));
            } catch (final RuntimeException | java.util.zip.DataFormatException ex) {
                throw new IllegalArgumentException("line=" + line + " is not a RESULT line: " + ex, ex);
            }
        }
    }

    private Result run(final long timeoutMs) {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long checks = 0;
        while (sequences.expected() < end && failure == null && !detached) {
            reader.read();
            if ((++checks & 1023) == 0 || reader.failure() != null) {
                if (reader.failure() != null) {
                    failure = "reader stopped: " + reader.failure();
                } else if (System.nanoTime() - deadline > 0) {
                    failure = "timed out after " + timeoutMs + " ms at sequence " + sequences.expected() + " of " + end;
                }
            }
        }
        final long allocated = ThreadAllocation.currentThread();
        final long cpuAtEndNs = ThreadCpu.currentThreadNs();
        final double perMessage = allocatedAtFirst < 0 || allocated < 0 || measured == 0 ? -1
            : (double)(allocated - allocatedAtFirst) / measured;
        // the window ends at the last message; the loop's last empty polls after it are a few microseconds
        final double cpuShare = measured == 0 ? -1 : ThreadCpu.share(cpuAtFirstNs, cpuAtEndNs, lastNs - firstNs);
        return new Result(received, measured, sequences.lost(), firstNs, lastNs, perMessage, latency ? histogram : null,
            failure == null ? "" : failure, cpuShare);
    }

    /**
     * Runs one reader.
     *
     * @param args see the class comment
     */
    public static void main(final String[] args) {
        final PrintStream out = System.out;
        final Map<String, String> options = new HashMap<>();
        for (final String arg : args) {
            final int eq = arg.indexOf('=');
            options.put(eq > 0 ? arg.substring(0, eq) : arg, eq > 0 ? arg.substring(eq + 1) : "true");
        }
        final FanoutReaderChild child;
        try {
            child = new FanoutReaderChild(FanoutTransports.byName(options.get("--transport")),
                Path.of(options.get("--dir")), Integer.parseInt(options.get("--size")),
                Integer.parseInt(options.get("--index")), Long.parseLong(options.get("--first")),
                Long.parseLong(options.get("--end")), Long.parseLong(options.getOrDefault("--detach-at", "-1")),
                options.containsKey("--latency"), options.containsKey("--tolerate-loss"));
        } catch (final RuntimeException ex) {
            out.println("FAILED " + oneLine(ex));
            out.flush();
            System.exit(2);
            return;
        }
        out.println("READY pid=" + ProcessHandle.current().pid());
        out.flush();
        final long timeoutMs = Long.parseLong(options.getOrDefault("--timeout-ms", "600000"));
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        final Result result = child.run(timeoutMs);
        child.reader.close();
        out.println(result.toLine());
        out.flush();
        while (child.detached && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(100_000_000L); // idle, as a stopped reader is, until the bench ends this process
        }
        System.exit(0);
    }

    private static String oneLine(final Throwable ex) {
        final String message = String.valueOf(ex.getMessage()).replace('\n', ' ');
        return ex.getClass().getSimpleName() + ": " + message;
    }
}
