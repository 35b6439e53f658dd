package dev.peregrine.cli;

import dev.peregrine.bench.reconnect.ReconnectResult;
import dev.peregrine.bench.reconnect.ReconnectRunner;
import dev.peregrine.bench.reconnect.RestartRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code bench reconnect}: a paced SoupBinTCP stream whose connection is cut again and again; every message must
 * arrive exactly once, in order. See {@code docs/soup-bench.md}.
 */
@Command(name = "reconnect", mixinStandardHelpOptions = true,
    description = {"A SoupBinTCP stream from a Peregrine server to a Peregrine client in this JVM (two reactor"
        + " threads), paced at --rate for --count messages, the connection cut by an abort every --cut-every ms,"
        + " alternately by the server and by the client. Reports messages lost and repeated (exit 1 unless both are 0),"
        + " the number of cuts, and the time from each cut to the first message after it (the client's first retry is"
        + " immediate). --restart instead runs the server in a child JVM on a file-backed store, kills it with -9 every"
        + " --restart-every seconds and restarts it on its store."})
public final class ReconnectCommand implements Callable<Integer>, Validated {
    @Spec
    CommandSpec spec;

    @Range(min = 1)
    @Option(names = "--count", defaultValue = "10000000", paramLabel = "N",
        description = "Messages in the stream (default: ${DEFAULT-VALUE}).")
    long count;

    @Range(min = 1, max = Range.PER_NANOSECOND)
    @Option(names = "--rate", defaultValue = "1000000", paramLabel = "R",
        description = "Messages per second (default: ${DEFAULT-VALUE}).")
    long rate;

    @Range(min = 1, max = 3_600_000)
    @Option(names = "--cut-every", defaultValue = "10", paramLabel = "MS",
        description = "Milliseconds between two cuts (default: ${DEFAULT-VALUE}).")
    long cutEveryMs;

    @Option(names = "--busy-spin", negatable = true, defaultValue = "false",
        description = "Both reactors spin when idle (default: back off, parking up to 100 us).")
    boolean busySpin;

    @Option(names = "--restart", defaultValue = "false",
        description = "Run the server in a child JVM on a file-backed store and kill it with -9 instead of cutting.")
    boolean restart;

    @Range(min = 0.01, max = Range.DAY)
    @Option(names = "--restart-every", defaultValue = "1", paramLabel = "S",
        description = "With --restart: seconds of running between two kills (default: ${DEFAULT-VALUE}).")
    double restartEverySeconds;

    @Range(min = 0, max = 10_000, note = "0 for none")
    @Option(names = "--replay-clients", defaultValue = "0", paramLabel = "N",
        description = "Instead of cuts (smoke only): N clients replay --replay-messages from the store while a live"
            + " stream of --count messages runs at --rate; the server's publish-to-write and a caught-up client's"
            + " publish-to-deliver latency with and without them (default: ${DEFAULT-VALUE}: no replay run).")
    int replayClients;

    @Range(min = 1, max = 100_000_000)
    @Option(names = "--replay-messages", defaultValue = "1000000", paramLabel = "M",
        description = "With --replay-clients: messages in the store before the live stream (default: ${DEFAULT-VALUE}).")
    int replayMessages;

    @Range(min = 0, max = 1 << 30, note = "0 for the system's")
    @Option(names = "--client-receive-buffer", defaultValue = "0", paramLabel = "BYTES",
        description = "The client socket's receive buffer (SO_RCVBUF): a server's reset reaches the client after what"
            + " this buffer holds (default: ${DEFAULT-VALUE}, the system's, autotuned).")
    int clientReceiveBuffer;

    @Range(min = 0, max = 100_000, note = "0 for none")
    @Option(names = "--warmup-cuts", defaultValue = "600", paramLabel = "N",
        description = "Before the measured stream, two separate warm-up streams in this JVM, one after the other, of"
            + " about N cuts each (same rate and interval, their own stores and connections), so that the resume's code,"
            + " and a stream's start and end, are compiled; not counted in any figure (default: ${DEFAULT-VALUE}; 0 for"
            + " none). Not with --restart or --replay-clients.")
    int warmupCuts;

    @Range(min = 0, max = 3_600_000, note = "0 for none")
    @Option(names = "--settle", defaultValue = "0", paramLabel = "MS",
        description = "Each cut waits at least MS after the client resumed from the previous one, on top of its fixed"
            + " time (default: ${DEFAULT-VALUE}: cuts at their fixed times, back to back after a slow resume).")
    long settleMs;

    @MayRepeat // both reactors on one CPU is a setting too
    @Option(names = "--cpu", paramLabel = "CPU", split = ",",
        description = "CLIENT[,SERVER]: pin the client's (and the server's) reactor thread to these CPUs, the warm-up"
            + " streams' too (default: not pinned). Not with --restart or --replay-clients.")
    List<Integer> cpu = new ArrayList<>();

    @Option(names = "--cut-log", converter = Converters.WritableFile.class, paramLabel = "FILE",
        description = "Diagnostic: write every measured cut as a CSV line to FILE (side, time, the client's lag, each"
            + " hop, each reactor's cycles and longest cycle while resuming).")
    java.nio.file.Path cutLog;

    @Range(min = 0, note = "0 for none")
    @Option(names = "--test-skip", hidden = true, defaultValue = "0", paramLabel = "N",
        description = "Test hook: the client drops message N, as a broken client would.")
    long skip;

    @Option(names = "--diagnose", hidden = true, defaultValue = "false",
        description = "With --replay-clients: split the server's duty cycles and say what holds the p99 (slower).")
    boolean diagnose;

    @Override
    public void validate() {
        if (cpu.isEmpty()) {
            return;
        }
        CommonOptions.checkCpus(spec.commandLine(), cpu, "SERVER");
        if (restart || replayClients > 0) {
            throw Cli.invalid(spec.commandLine(), "--cpu", "pins the two reactor threads of the cut run; not with "
                + (restart ? "--restart" : "--replay-clients"));
        }
    }

    private int clientCpu() {
        return cpu.isEmpty() ? -1 : cpu.get(0);
    }

    private int serverCpu() {
        return cpu.size() < 2 ? -1 : cpu.get(1);
    }

    @Override
    public Integer call() throws InterruptedException, java.io.IOException {
        final PrintStream out = System.out;
        if (replayClients > 0) {
            out.println(String.format(Locale.ROOT, "bench reconnect --replay-clients %d: %d clients replay %d messages"
                + " while %d live messages are published at %d msg/s; server and clients on two reactor threads of this"
                + " JVM; first without replaying clients, then with them", replayClients, replayClients, replayMessages,
                count, rate));
            return dev.peregrine.bench.reconnect.ReplayRunner.run(replayClients, replayMessages, rate, count, out,
                diagnose) ? 0 : 1;
        }
        if (restart) {
            out.println(String.format(Locale.ROOT, "bench reconnect --restart: %d messages of 16 bytes at %d msg/s; the"
                + " server in a child JVM on a file-backed store, killed with -9 every %s s of running and restarted on"
                + " its store; the client in this JVM on a reactor thread%s", count, rate, restartEverySeconds,
                busySpin ? ", busy-spinning" : ""));
            final java.nio.file.Path folder = java.nio.file.Files.createTempDirectory("peregrine-reconnect");
            try {
                final ReconnectResult result = RestartRunner.run(new ReconnectRunner.Spec(count, rate,
                    (long)(restartEverySeconds * 1e9), busySpin, skip, clientReceiveBuffer),
                    folder.resolve("reconnect.store"), out);
                result.lines().forEach(out::println);
                return result.ok() ? 0 : 1;
            } finally {
                java.nio.file.Files.deleteIfExists(folder.resolve("reconnect.store"));
                java.nio.file.Files.deleteIfExists(folder);
            }
        }
        final ReconnectRunner.Spec spec = new ReconnectRunner.Spec(count, rate, cutEveryMs * 1_000_000L, busySpin, skip,
            clientReceiveBuffer, settleMs * 1_000_000L, clientCpu(), serverCpu());
        out.println(String.format(Locale.ROOT, "bench reconnect: %d messages of 16 bytes at %d msg/s, a cut every %d ms"
            + " (abort, alternately server side and client side); server and client in this JVM on two reactor"
            + " threads%s%s%s%s; %s", count, rate, cutEveryMs, pinning(), busySpin ? ", busy-spinning" : "",
            clientReceiveBuffer == 0 ? "" : ", client SO_RCVBUF " + clientReceiveBuffer + " bytes",
            settleMs == 0 ? "" : ", each cut at least " + settleMs + " ms after the client's previous resume",
            warmupCuts == 0 ? "no warm-up" : "first a warm-up of " + ReconnectRunner.WARM_UP_STREAMS + " separate streams"
                + " one after the other, each of about " + warmupCuts + " cuts and " + ReconnectRunner.warmUpCount(spec,
                warmupCuts) + " messages, in this JVM, not counted in any figure"));
        if (warmupCuts > 0) {
            out.flush();
            final java.util.List<ReconnectResult> warm = ReconnectRunner.warmUp(spec, warmupCuts);
            for (int stream = 0; stream < warm.size(); stream++) {
                final ReconnectResult one = warm.get(stream);
                out.println(String.format(Locale.ROOT, "warm-up stream %d of %d (not counted): cuts=%d delivered=%d of %d"
                    + " lost=%d repeated=%d%s", stream + 1, warm.size(), one.cuts(), one.delivered(), one.count(),
                    one.lost(), one.repeated(), one.failure() == null ? ""
                        : "; it did not finish (" + one.failure() + "), the run goes on"));
            }
        }
        final ReconnectResult result = ReconnectRunner.run(spec, out, cutLog);
        result.lines().forEach(out::println);
        return result.ok() ? 0 : 1;
    }

    private String pinning() {
        if (cpu.isEmpty()) {
            return "";
        }
        return " (the client's pinned to CPU " + clientCpu() + (serverCpu() < 0 ? "" : ", the server's to CPU "
            + serverCpu()) + ")";
    }
}
