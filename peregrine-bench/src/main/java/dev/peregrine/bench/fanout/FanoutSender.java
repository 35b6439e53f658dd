package dev.peregrine.bench.fanout;

import dev.peregrine.bench.run.ThreadAllocation;
import dev.peregrine.bench.run.ThreadCpu;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * The writer's loop of a {@code bench fanout} run, in a class of its own that holds no String literal: before C2
 * compiles a method, HotSpot resolves every String literal of its class on the thread that asked for the compile.
 * In {@link FanoutRunner} that was some 24 KB inside the writer's measured window (the loop's first OSR compile,
 * traced with JFR); here there is nothing to resolve. A failure is a value ({@link Sent#stuckAt()}), worded by the
 * caller.
 */
final class FanoutSender {
    static {
        preload(Sent.class, FanoutScenarioThread.class);
        ThreadAllocation.currentThread();
        ThreadCpu.currentThreadNs();
    }

    /** How many times the loop takes its readings in the warm-up, the last at its end. */
    static final int MARKS = 16;

    private FanoutSender() {
    }

    /**
     * Loads, when this class is, what the loop names but reaches only at its end ({@link Sent}) or in a scenario
     * ({@link FanoutScenarioThread}), and initialises the meter ({@link ThreadAllocation}: the JDK's thread MXBean,
     * some 250 KB and milliseconds). Else the loop's first compile loaded the two classes inside the writer's measured
     * window (23 KB from the jar, in the first run of a JVM: JFR), and the meter's first read, at the first measured
     * message, delayed it and every paced message after it.
     */
    private static void preload(final Class<?>... classes) {
        // the class literals above resolved the loop's references; nothing more to do with them
    }

    /**
     * The sequences at which the loop takes its readings: {@value #MARKS} of them spread over the warm-up, then the
     * warm-up's end, whose readings are the ones kept, then one it never reaches. A branch taken only at the window's
     * start, or once before it, was compiled by C2 as never taken: the first measured message hit an uncommon trap,
     * and C2 compiled the loop again inside the window, on a machine whose two cores the readers already kept busy.
     * The marks are an array, not a computation, so that no branch of their own is first taken at the window's start.
     *
     * @param warmup the warm-up's length, the first measured sequence
     * @return the marks, ascending, the last {@link Long#MAX_VALUE}
     */
    static long[] marks(final long warmup) {
        final long step = Math.max(1, warmup / MARKS);
        final int before = (int)Math.min(MARKS - 1, Math.max(0, (warmup - 1) / step));
        final long[] marks = new long[before + 2];
        for (int i = 0; i < before; i++) {
            marks[i] = (i + 1) * step;
        }
        marks[before] = warmup;
        marks[before + 1] = Long.MAX_VALUE;
        return marks;
    }

    /**
     * What the writer did.
     *
     * @param messages messages sent
     * @param firstMeasuredNs when the first measured message was sent
     * @param endNs when the last was
     * @param allocatedPerMessage bytes the writer's thread allocated per measured message, or -1
     * @param evictionNs when the writer first saw an eviction, or 0
     * @param stuckAt the sequence at which the writer was back-pressured past {@link FanoutRunner#STUCK_NS}, or -1
     * @param cpuShare the share of a core the writer's thread used from its first measured send to its last, or -1
     */
    record Sent(long messages, long firstMeasuredNs, long endNs, double allocatedPerMessage, long evictionNs,
                long stuckAt, double cpuShare) {
    }

    /**
     * Sends {@code end} messages, paced in a latency run, measuring the writer's thread from the first measured one.
     *
     * @param writer the writer
     * @param spec the run
     * @param end one past the last sequence
     * @param played the scenario's thread, or null
     * @return what it did
     */
    static Sent send(final FanoutTransport.Writer writer, final FanoutRunner.Spec spec, final long end,
                     final FanoutScenarioThread played) {
        final MemorySegment buffer = writer.buffer();
        final int size = spec.size();
        final long warmup = spec.warmup();
        // -1 without a scenario: a branch the loop never takes, where `sequence == halfway && played != null` took
        // its first half for the first time in the measured window (an uncommon trap, then C2 compiling the loop again)
        final long halfway = played != null ? FanoutRunner.halfway(spec) : -1;
        final double periodNs = spec.latency() ? 1e9 / spec.rate() : 0;
        final boolean yieldWhilePacing = spec.latency() && FanoutRunner.yieldsWhilePacing(spec.readers());
        final long startNs = System.nanoTime() + 1_000_000L;
        final long evictionsBefore = writer.evictions();
        long allocatedAtFirst = -1;
        long cpuAtFirstNs = -1;
        final long[] marks = marks(warmup);
        int mark = 0;
        long firstMeasuredNs = 0;
        long evictionNs = 0;
        long stuckAt = -1;
        long sequence = 0;
        sending:
        for (; sequence < end; sequence++) {
            final long intendedNs = spec.latency() ? startNs + (long)(sequence * periodNs) : 0;
            if (spec.latency()) {
                long aheadNs;
                while ((aheadNs = intendedNs - System.nanoTime()) > 0) {
                    if (aheadNs > FanoutRunner.PARK_AHEAD_NS) {
                        LockSupport.parkNanos(aheadNs - FanoutRunner.PARK_AHEAD_NS);
                    } else if (yieldWhilePacing) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
            if (sequence == marks[mark]) {
                // taken MARKS times in the warm-up, each reading replacing the one before, the last at its end: the
                // JIT keeps the branch and the readings in the compiled loop (see marks)
                mark++;
                cpuAtFirstNs = ThreadCpu.currentThreadNs(); // before the meter: nothing it might do is in its window
                allocatedAtFirst = ThreadAllocation.currentThread();
                firstMeasuredNs = System.nanoTime();
            }
            if (sequence == halfway && played != null) {
                played.halfway();
            }
            FanoutMessage.write(buffer, sequence, intendedNs);
            int attempts = 0;
            long blockedSinceNs = 0;
            while (!writer.offer(size)) {
                if (++attempts < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                    if ((attempts & 1023) == 0) {
                        final long nowNs = System.nanoTime();
                        if (blockedSinceNs == 0) {
                            blockedSinceNs = nowNs;
                        } else if (nowNs - blockedSinceNs > FanoutRunner.STUCK_NS) {
                            stuckAt = sequence;
                            break sending;
                        }
                    }
                }
            }
            if (evictionNs == 0 && writer.evictions() != evictionsBefore) {
                evictionNs = System.nanoTime();
            }
        }
        final long endNs = System.nanoTime();
        final long allocated = ThreadAllocation.currentThread();
        final long cpuAtEndNs = ThreadCpu.currentThreadNs();
        final long measured = sequence - warmup;
        return new Sent(sequence, firstMeasuredNs, endNs, allocatedAtFirst < 0 || allocated < 0 || measured <= 0 ? -1
            : (double)(allocated - allocatedAtFirst) / measured, evictionNs, stuckAt,
            measured <= 0 ? -1 : ThreadCpu.share(cpuAtFirstNs, cpuAtEndNs, endNs - firstMeasuredNs));
    }
}
