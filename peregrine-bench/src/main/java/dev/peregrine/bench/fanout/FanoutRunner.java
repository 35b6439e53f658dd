package dev.peregrine.bench.fanout;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs one row of {@code bench fanout}: opens the writer in this JVM, starts the readers, each in a JVM of its own,
 * sends {@code warmup + count} messages from this thread and gathers every reader's result.
 *
 * <p>Latency: the writer sends at a fixed rate, each message stamped with its intended send time; a message the
 * writer could not send on time (back-pressured, descheduled) carries its intended time still. Throughput: the writer
 * sends as fast as the slowest reader lets it. Either way every reader checks every sequence.
 */
public final class FanoutRunner {
    /**
     * A paced writer with more than this to wait until a message's send time sleeps ({@code parkNanos}) until this
     * much before it, then yields or spins the rest: a rate whose gaps are longer than this leaves the CPU to the
     * readers instead of yielding through the whole gap (a thread that yields is still running, and on a small
     * machine it takes a core the readers need). Past the kernel's timer slack (50 us), so the send stays on time.
     */
    static final long PARK_AHEAD_NS = 150_000L;
    /** How long the writer may be back-pressured without a break before the row fails. */
    static final long STUCK_NS = 30_000_000_000L;

    /** A scenario of the targets, played on reader 0 half-way through the measured messages. */
    public enum Scenario {
        /** Nothing happens to any reader. */
        NONE,
        /**
         * Reader 0 is stopped with SIGSTOP and continued once the other readers are done (so that its catching up
         * does not take their CPU); its losses are counted.
         */
        STOP_READER,
        /**
         * Reader 0 detaches itself once it has read the half-way sequence and stays idle: {@link #STOP_READER}'s
         * reference, the same readers doing the same until then.
         */
        DETACH_READER,
        /** Reader 0 is killed with SIGKILL; the time to its eviction is measured. */
        KILL_READER
    }

    /**
     * One run.
     *
     * @param transport the transport
     * @param readers reader processes
     * @param size message size
     * @param latency a fixed-rate latency run (else throughput)
     * @param rate messages per second of a latency run
     * @param warmup warm-up messages, not measured
     * @param count measured messages
     * @param scenario what happens to reader 0
     */
    public record Spec(FanoutTransport transport, int readers, int size, boolean latency, long rate, long warmup,
                       long count, Scenario scenario) {
    }

    private FanoutRunner() {
    }

    /**
     * Whether the writer of a latency run gives its core away ({@code Thread.yield()}) while it waits for a message's
     * send time, instead of spinning on it: when the machine has fewer cores than the readers plus two (the writer
     * and the rest of the system), a spinning writer would take a core the readers need.
     *
     * @param readers the run's reader processes
     * @return true to yield between paced sends
     */
    public static boolean yieldsWhilePacing(final int readers) {
        return Runtime.getRuntime().availableProcessors() < readers + 2;
    }

    /**
     * Runs one row; never throws for a failure of the run, which the row carries.
     *
     * @param spec the run
     * @return the row
     */
    public static FanoutResult run(final Spec spec) {
        final Path directory;
        try {
            directory = runDirectory();
        } catch (final IOException ex) {
            return failed(spec, "cannot make the run's directory: " + ex);
        }
        try {
            return runIn(spec, directory);
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return failed(spec, "interrupted");
        } catch (final IOException | RuntimeException ex) {
            return failed(spec, ex.getClass().getSimpleName() + ": " + ex.getMessage());
        } finally {
            delete(directory);
        }
    }

    private static FanoutResult failed(final Spec spec, final String reason) {
        return new FanoutResult(spec.transport().name(), spec.readers(), spec.size(), spec.latency(),
            spec.latency() ? spec.rate() : 0, List.of(), 0, -1, -1, reason, List.of());
    }

    private static FanoutResult runIn(final Spec spec, final Path directory) throws IOException, InterruptedException {
        final long end = spec.warmup() + spec.count();
        final double expectedSeconds = spec.latency() ? (double)end / spec.rate() : end / 1e5;
        final long timeoutMs = (long)(expectedSeconds * 10_000) + 60_000;
        final Scenario scenario = spec.scenario();
        try (FanoutTransport.Writer writer = spec.transport().openWriter(directory, spec.size(), spec.readers());
             FanoutReaders readers = new FanoutReaders()) {
            for (int i = 0; i < spec.readers(); i++) {
                final boolean stopped = i == 0 && scenario == Scenario.STOP_READER;
                final long detachAt = i == 0 && scenario == Scenario.DETACH_READER ? halfway(spec) : -1;
                readers.start(i, FanoutReaders.command(spec.transport(), directory, spec.size(), i, spec.warmup(), end,
                    spec.latency(), stopped, detachAt, timeoutMs), directory);
            }
            readers.awaitReady();
            // the same thread in the stop run and its detached reference: neither costs anything while it waits
            final FanoutScenarioThread played = scenario == Scenario.NONE ? null
                : new FanoutScenarioThread(scenario, readers.children().get(0).process);
            if (played != null) {
                played.start();
            }
            final FanoutSender.Sent sent = FanoutSender.send(writer, spec, end, played);
            if (played != null) {
                played.writerDone();
            }
            return gather(spec, readers, sent, played, timeoutMs);
        }
    }

    /** The sequence at which a scenario plays on reader 0: half-way through the measured messages. */
    static long halfway(final Spec spec) {
        return spec.warmup() + spec.count() / 2;
    }

    private static FanoutResult gather(final Spec spec, final FanoutReaders readers, final FanoutSender.Sent sent,
                                       final FanoutScenarioThread played, final long timeoutMs) throws InterruptedException {
        final List<Histogram> latencies = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        String failure = sent.stuckAt() < 0 ? null : "the writer was back-pressured for " + STUCK_NS / 1_000_000_000L
            + " s at sequence " + sent.stuckAt();
        final double[] readersAllocated = new double[spec.readers()];
        Arrays.fill(readersAllocated, Double.NaN);
        final double[] readersCpu = new double[spec.readers()];
        Arrays.fill(readersCpu, Double.NaN);
        long lastNs = 0;
        // reader 0 last: a stopped one is continued only once the others are done, so that its catching up takes
        // none of their CPU (a detached one is idle by then, as a stopped one is)
        final List<FanoutReaders.Child> order = new ArrayList<>(readers.children());
        if (spec.scenario() != Scenario.NONE && !order.isEmpty()) {
            order.add(order.remove(0));
        }
        for (final FanoutReaders.Child child : order) {
            if (child.index == 0 && played != null) {
                played.othersDone();
                played.join(TimeUnit.SECONDS.toMillis(60));
            }
            if (child.index == 0 && spec.scenario() == Scenario.KILL_READER) {
                continue; // killed: no result
            }
            final FanoutReaderChild.Result result = FanoutReaders.result(child, timeoutMs);
            if (child.index == 0 && spec.scenario() == Scenario.STOP_READER) {
                notes.add(String.format(Locale.ROOT, "reader 0 (stopped with SIGSTOP at sequence %d, continued when the"
                    + " other readers were done): lost %d, received %d%s", halfway(spec), result.lost(),
                    result.received(), result.failure().isEmpty() ? "" : ", " + result.failure()));
                continue; // its latency is not the others'
            }
            if (child.index == 0 && spec.scenario() == Scenario.DETACH_READER) {
                notes.add(String.format(Locale.ROOT, "reader 0 (detached after sequence %d, then idle): received %d%s",
                    halfway(spec), result.received(), result.failure().isEmpty() ? "" : ", " + result.failure()));
                continue; // as the stopped one's, its latency is not the others'
            }
            if (!result.failure().isEmpty()) {
                failure = failure == null ? "reader " + child.index + ": " + result.failure() : failure;
                continue;
            }
            if (result.lost() != 0 || result.measured() != spec.count()) {
                failure = failure == null ? "reader " + child.index + ": measured " + result.measured() + " of "
                    + spec.count() + ", lost " + result.lost() : failure;
            }
            if (result.histogram() != null) {
                latencies.add(result.histogram());
            }
            readersAllocated[child.index] = result.allocatedPerMessage() < 0 ? -1 : result.allocatedPerMessage();
            readersCpu[child.index] = result.cpuShare() < 0 ? -1 : result.cpuShare();
            lastNs = Math.max(lastNs, result.lastNs());
        }
        if (played != null) {
            notes.addAll(played.notes(sent.evictionNs(), sent.messages(), halfway(spec),
                spec.warmup() + spec.count()));
        }
        final double seconds = ((spec.latency() ? sent.endNs() : lastNs) - sent.firstMeasuredNs()) / 1e9;
        final double rate = seconds > 0 && failure == null ? spec.count() / seconds : 0;
        return new FanoutResult(spec.transport().name(), spec.readers(), spec.size(), spec.latency(),
            spec.latency() ? spec.rate() : 0, List.copyOf(latencies), rate, failure, List.copyOf(notes),
            new FanoutResult.Allocation(sent.allocatedPerMessage(), readersAllocated, sent.cpuShare(), readersCpu));
    }

    private static Path runDirectory() throws IOException {
        final Path shm = Path.of("/dev/shm");
        final Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
        return Files.createTempDirectory(base, "peregrine-fanout-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    private static void delete(final Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (final IOException | UncheckedIOException ex) {
            // left behind in a temporary directory: nothing to do
        }
    }
}
