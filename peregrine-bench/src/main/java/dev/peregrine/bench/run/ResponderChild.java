package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.ThreadAffinity;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The echo side of a benchmark in its own JVM: the main class that {@link ChildResponderSide} starts, with
 * arguments it writes itself (checked by the command that asked for the run, so not again here). Protocol on
 * stdout: {@code READY ...} once every responder accepts, {@code STATS ...} for each {@code STATS} line read
 * from stdin, {@code FAILED reason} if it cannot start, {@code BYE ...} on exit. It exits when its stdin ends or
 * its parent process dies.
 */
@Command(name = "responder", description = "The echo side of a benchmark, in its own JVM (started by 'bench').")
public final class ResponderChild implements Callable<Integer> {
    /**
     * Runs the responders until stdin ends; exit code 0, or 2 if they could not start (after a {@code FAILED}
     * line) or the arguments do not parse.
     *
     * @param args the options {@link ChildResponderSide#command} writes
     */
    public static void main(final String[] args) {
        System.exit(new CommandLine(new ResponderChild()).execute(args));
    }

    @Option(names = "--transport", required = true, description = "Transport name.")
    String transport;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on.")
    String host;

    @Option(names = "--port", required = true, description = "First port; responder i uses ports from port + 8i.")
    int port;

    @Option(names = "--size", required = true, description = "Message size in bytes (bench pingpong's minimum: the"
        + " bench that starts this has checked the size for its scenario).")
    int size;

    @Option(names = "--reply-size", defaultValue = "-1",
        description = "Bytes of each answer, starting with the message's sequence field; -1 to echo each message as"
            + " it came.")
    int replySize;

    @Option(names = "--respond-every", defaultValue = "1", paramLabel = "N",
        description = "Answer only the messages whose number (the sequence's low 32 bits) is a multiple of N; 1 for all.")
    int respondEvery;

    @Option(names = "--dir", required = true, description = "Folder for the transport's files.")
    Path dir;

    @Option(names = "--count", defaultValue = "1",
        description = "How many responders: one serving every client, or one per client (bench load --topology per-client).")
    int count;

    @Option(names = "--cpu", defaultValue = "-1", description = "CPU to pin the responders to, -1 for none.")
    int cpu;

    @Option(names = "--busy-spin", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Whether waiting sides spin.")
    boolean busySpin;

    @Option(names = "--shared", description = "Start the one responder that serves every client (bench load --topology shared).")
    boolean shared;

    @Option(names = "--stream", description = "Be the receiving end of a throughput run instead of an echo responder.")
    boolean stream;

    @Option(names = "--warmup", defaultValue = "0", description = "Stream: warm-up messages (the least, when timed).")
    long warmup;

    @Option(names = "--messages", defaultValue = "0", description = "Stream: measured messages, or 0 for a timed window.")
    long messages;

    @Option(names = "--warmup-seconds", defaultValue = "0", description = "Stream: warm-up seconds of a timed window.")
    double warmupSeconds;

    @Option(names = "--seconds", defaultValue = "0", description = "Stream: measured seconds of a timed window.")
    double seconds;

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(3)));
        if (count < 1) {
            out.println("FAILED count=" + count + " must be at least 1");
            return 2;
        }
        if (cpu >= 0) {
            final String why = ThreadAffinity.pinCurrentThread(cpu); // started threads inherit it
            if (why != null) {
                System.err.println("peregrine responder: not pinned to cpu " + cpu + ": " + why);
            }
        }
        if (stream) {
            try {
                return StreamReceiverChild.run(out, Transports.byName(transport), new BenchConfig(host, port, size, dir,
                    busySpin), warmup, messages, messages > 0 ? ThroughputRunner.Window.COUNTED
                    : new ThroughputRunner.Window(warmupSeconds, seconds));
            } catch (final RuntimeException | LinkageError ex) {
                out.println("FAILED " + Failures.oneLine(ex));
                out.flush();
                return 2;
            }
        }
        final ThreadAllocation.Tracker allocation = new ThreadAllocation.Tracker(
            new HashSet<>(ThreadAllocation.liveThreadIds()));
        final List<Responder> responders = new ArrayList<>();
        try {
            final BenchTransport bench = Transports.byName(transport);
            final List<BenchConfig> configs = RunEnvironment.forResponders(
                new BenchConfig(host, port, size, dir, busySpin, replySize < 0 ? size : replySize, respondEvery), count);
            RunEnvironment.createFolders(configs);
            for (final BenchConfig config : configs) {
                responders.add(shared ? bench.startSharedResponder(config) : bench.startResponder(config));
            }
        } catch (final Exception | LinkageError ex) {
            out.println("FAILED " + Failures.oneLine(ex));
            out.flush();
            closeAll(responders);
            return 2;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeAll(responders), "responder-shutdown"));
        out.println("READY port=" + port + " count=" + count + " pid=" + ProcessHandle.current().pid());
        out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.trim().equals("STATS")) {
                    out.println(stats(responders, allocation).toLine());
                    out.flush();
                }
            }
        } catch (final IOException ex) {
            // the parent is gone: same as the end of stdin
        }
        final ResponderStats last = stats(responders, allocation);
        closeAll(responders);
        out.println("BYE" + last.toLine().substring("STATS".length()));
        out.flush();
        return 0;
    }

    private static ResponderStats stats(final List<Responder> responders, final ThreadAllocation.Tracker allocation) {
        long messages = 0;
        for (final Responder responder : responders) {
            messages += responder.messages();
        }
        return new ResponderStats(messages, allocation.total(), RuntimeCounters.now());
    }

    private static synchronized void closeAll(final List<Responder> responders) {
        for (final Responder responder : responders) {
            try {
                responder.close();
            } catch (final RuntimeException ex) {
                System.err.println("peregrine responder: close failed: " + ex);
            }
        }
        responders.clear();
    }
}
