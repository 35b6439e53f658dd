package dev.peregrine.cli;

import dev.peregrine.bench.handoff.HandoffResult;
import dev.peregrine.bench.handoff.HandoffRunner;
import dev.peregrine.bench.handoff.PeregrineMpscHandoff;
import dev.peregrine.bench.handoff.PeregrineSpscHandoff;
import dev.peregrine.bench.report.LatencyTable;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.transports.SeparatedBench;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffMessage;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Issue 31's yardstick for the separated stack, taken in the run that measured it: a round trip through a
 * separated responder crosses two hand-offs more than a shared one (the event ring to the application thread, the
 * command ring back to the reactor), so its p50 is set against the shared stack's p50 plus one one-way hand-off
 * p50 of each ring, measured right after the ping-pong rows, with the consumer yielding as the separated stack's
 * application thread does.
 */
final class SeparatedBound {
    /** Hand-offs per second of the yardstick runs: the order of a ping-pong's, well under what every ring holds. */
    static final long RATE = 100_000;
    static final int RUNS = 3;
    private static final double WARMUP_SECONDS = 0.5;
    private static final double SECONDS = 1;

    private SeparatedBound() {
    }

    /**
     * Measures the two hand-offs at each size and prints, for each transport with both rows, the separated p50
     * beside the shared p50 plus the two hand-offs.
     *
     * @param out where the lines go
     * @param results the ping-pong runs, every round
     * @param sizes the sizes measured
     */
    static void print(final PrintStream out, final List<RunResult> results, final List<Integer> sizes) {
        out.println("separated stack against shared + one hand-off each way (one-way hand-off p50, consumer yielding,"
            + " " + RATE + " msg/s, median of " + RUNS + " runs, taken now):");
        for (final int size : sizes) {
            final int handoffSize = Math.max(size, HandoffMessage.MIN_SIZE);
            final double events = handoffP50(new PeregrineSpscHandoff(), handoffSize);
            final double commands = handoffP50(new PeregrineMpscHandoff(), handoffSize);
            out.println("  size " + size + ": " + PeregrineSpscHandoff.NAME + " (events) " + LatencyTable.micros(events)
                + " us, " + PeregrineMpscHandoff.NAME + " (commands) " + LatencyTable.micros(commands) + " us");
            for (final String base : SeparatedBench.BASES) {
                for (final String suffix : List.of(SeparatedBench.SUFFIX, SeparatedBench.SLEEP_SUFFIX)) {
                    final double shared = medianP50(results, base, size);
                    final double separated = medianP50(results, base + suffix, size);
                    if (Double.isNaN(shared) || Double.isNaN(separated)) {
                        continue;
                    }
                    out.println("  " + verdict(suffix.equals(SeparatedBench.SUFFIX) ? base : base + suffix, size,
                        shared, separated, events, commands));
                }
            }
        }
    }

    /** One line: the separated p50 against the bound, and whether it is within. */
    static String verdict(final String base, final int size, final double shared, final double separated,
                          final double events, final double commands) {
        final double bound = shared + events + commands;
        return String.format(Locale.ROOT, "%s size %d: separated p50 %s us %s shared %s + %s + %s = %s us (%s)",
            base, size, LatencyTable.micros(separated), separated <= bound ? "<=" : ">", LatencyTable.micros(shared),
            LatencyTable.micros(events), LatencyTable.micros(commands), LatencyTable.micros(bound),
            separated <= bound ? "within" : String.format(Locale.ROOT, "over by %s us",
                LatencyTable.micros(separated - bound)));
    }

    /** The median over the rounds of a transport's p50 at a size, in nanoseconds; NaN without an ok run. */
    static double medianP50(final List<RunResult> results, final String transport, final int size) {
        final List<Long> p50s = new ArrayList<>();
        for (final RunResult result : results) {
            if (result.transport().equals(transport) && result.size() == size
                && result.status() == RunResult.Status.OK && result.hasLatency()) {
                p50s.add(result.rtt().getValueAtPercentile(50));
            }
        }
        return median(p50s.stream().mapToDouble(Long::doubleValue).toArray());
    }

    private static double handoffP50(final HandoffImplementation implementation, final int size) {
        final double[] p50s = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            final HandoffResult result = HandoffRunner.latency(implementation, size, RATE, WARMUP_SECONDS, SECONDS,
                true);
            p50s[i] = result.failed() || result.latency().getTotalCount() == 0 ? Double.NaN
                : result.latency().getValueAtPercentile(50);
        }
        return median(p50s);
    }

    private static double median(final double[] values) {
        final double[] known = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (known.length == 0) {
            return Double.NaN;
        }
        final int middle = known.length / 2;
        return known.length % 2 == 1 ? known[middle] : (known[middle - 1] + known[middle]) / 2;
    }
}
