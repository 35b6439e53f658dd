package dev.peregrine.cli;

import dev.peregrine.bench.handoff.HandoffResult;
import dev.peregrine.bench.handoff.HandoffRunner;
import dev.peregrine.bench.handoff.HandoffTable;
import dev.peregrine.bench.handoff.Handoffs;
import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.HandoffMessage;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code bench handoff}: one thread to another through Peregrine's rings and the peers' queues, in this JVM; see
 * {@code docs/handoff.md}.
 */
@Command(name = "handoff", mixinStandardHelpOptions = true,
    description = {"Thread to thread in this JVM: Peregrine's WorkerRing (peregrine-spsc) and ReactorCommandRing"
        + " (peregrine-mpsc) against the LMAX Disruptor, Agrona's rings, JCTools' MpscArrayQueue and"
        + " ArrayBlockingQueue. Per size: one-way latency at --rate (one producer, one message per hand-over,"
        + " from the intended send time, both threads spinning), throughput with one producer (batched as each API"
        + " batches) and, for the many-producer queues, with two producers (every thread yields when idle). Every"
        + " sequence is checked; bytes allocated per message on the producer and consumer threads are shown."})
public final class HandoffCommand implements Callable<Integer> {
    /** An implementation's name, checked against the known ones. */
    static final class ImplementationName implements ITypeConverter<String> {
        ImplementationName() {
        }

        @Override
        public String convert(final String value) {
            final String name = value.trim();
            final List<String> known = Handoffs.names();
            if (known.contains(name)) {
                return name;
            }
            final String closest = Cli.closest(name, known);
            throw new TypeConversionException("'" + value + "' is not a hand-off implementation"
                + (closest == null ? "" : "; did you mean " + closest + "?") + "; known: " + String.join(", ", known));
        }
    }

    @Spec
    CommandSpec spec;

    @Range(min = HandoffMessage.MIN_SIZE, max = HandoffMessage.MAX_SIZE,
        note = "a message carries its 8-byte sequence and 8-byte send time")
    @Option(names = "--size", split = ",", defaultValue = "32,256", description = "Message sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Range(min = 1, max = Range.PER_NANOSECOND)
    @Option(names = "--rate", defaultValue = "1000000", paramLabel = "R",
        description = "Messages per second of the latency runs (default: ${DEFAULT-VALUE}).")
    long rate;

    @Range(min = 0.001, max = Range.DAY)
    @Option(names = "--seconds", defaultValue = "2", description = "Measured seconds per run (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Range(max = Range.DAY)
    @Option(names = "--warmup-seconds", defaultValue = "1",
        description = "Warm-up seconds before each measured window (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Range(min = 1, max = 1000)
    @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
        description = "Run every implementation N times, alternately; the table shows medians (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--impl", split = ",", converter = ImplementationName.class, paramLabel = "NAME[,NAME...]",
        description = "Implementations to measure (default: all: peregrine-spsc, peregrine-mpsc, disruptor,"
            + " agrona-spsc, agrona-mpsc, jctools-mpsc, abq).")
    List<String> implementations;

    @Override
    public Integer call() {
        final List<HandoffImplementation> chosen = implementations == null || implementations.isEmpty()
            ? Handoffs.all() : implementations.stream().map(Handoffs::byName).toList();
        final Integer relaunched = Relaunch.ifNeeded(spec,
            chosen.stream().flatMap(i -> i.jvmArguments().stream()).toList(),
            chosen.stream().filter(i -> !i.jvmArguments().isEmpty()).map(HandoffImplementation::name).toList());
        if (relaunched != null) {
            return relaunched;
        }
        final PrintStream out = System.out;
        final List<HandoffResult> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            if (rounds > 1) {
                out.println("round " + round + " of " + rounds);
            }
            for (final int size : sizes) {
                for (final HandoffImplementation implementation : chosen) {
                    results.add(report(out, HandoffRunner.latency(implementation, size, rate, warmupSeconds, seconds)));
                }
                for (final HandoffImplementation implementation : chosen) {
                    results.add(report(out, HandoffRunner.throughput(implementation, size, 1, warmupSeconds, seconds)));
                }
                for (final HandoffImplementation implementation : chosen) {
                    if (implementation.manyProducers()) {
                        results.add(report(out,
                            HandoffRunner.throughput(implementation, size, 2, warmupSeconds, seconds)));
                    }
                }
            }
        }
        out.println();
        out.print(HandoffTable.of(results, rate, rounds).toText());
        return results.stream().anyMatch(HandoffResult::failed) ? 1 : 0;
    }

    private static HandoffResult report(final PrintStream out, final HandoffResult result) {
        out.println(String.format(Locale.ROOT, "  %s %s size=%d: %s", result.mode(), result.implementation(),
            result.size(), result.failed() ? "FAILED: " + result.failure()
                : String.format(Locale.ROOT, "%.0f msg/s%s", result.messagesPerSecond(), result.isLatency()
                    ? String.format(Locale.ROOT, ", p50 %.2f us", result.latency().getValueAtPercentile(50) / 1000.0)
                    : "")));
        out.flush();
        return result;
    }
}
