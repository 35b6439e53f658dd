package dev.peregrine.cli;

import dev.peregrine.bench.report.JsonResults;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Options every {@code bench} scenario takes.
 */
public final class CommonOptions implements Validated {
    /**
     * Why {@code --size} starts at {@link BenchConfig#MIN_SIZE} in every command but
     * {@code bench pingpong}: said with the accepted range when a smaller size is refused.
     */
    public static final String IN_FLIGHT_SIZE_NOTE = "many messages in flight carry the full 64-bit sequence;"
        + " bench pingpong accepts sizes from " + BenchConfig.MIN_PINGPONG_SIZE;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--in-process", description = "Run the responder on a thread of this JVM instead of a second JVM.")
    boolean inProcess;

    @Option(names = "--json", converter = Converters.WritableFile.class, paramLabel = "FILE", description = "Write the results as JSON (an array when several runs).")
    Path json;

    @Option(names = "--hgrm", converter = Converters.WritableFile.class, paramLabel = "FILE", description = "Write HdrHistogram's percentile distribution"
        + " (microseconds); with several runs FILE-<transport>-<size>[-r<rate>].hgrm each (with --rounds,"
        + " FILE-<transport>-<size>[-r<rate>]-round<K>.hgrm).")
    Path hgrm;

    @MayRepeat
    @Option(names = "--cpu", paramLabel = "CPU", split = ",",
        description = "CLIENT[,RESPONDER]: pin the client thread (and the responder threads) to these CPUs.")
    List<Integer> cpu = new ArrayList<>();

    @Option(names = "--busy-spin", negatable = true, description = "Waiting sides spin (default: yes, except"
        + " in load runs with more threads than cores).")
    Boolean busySpin;

    @Option(names = "--host", defaultValue = "127.0.0.1", converter = Converters.LocalAddress.class, description = "Address to use (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--quiet", description = "No progress line on stderr.")
    boolean quiet;

    @Override
    public void validate() {
        checkCpus(mixee.commandLine(), cpu, "RESPONDER");
    }

    /**
     * Refuses a {@code --cpu} list of more than two CPUs, or naming a CPU this machine does not have (a negative one
     * is refused as out of range when parsed).
     *
     * @param commandLine the command
     * @param cpu the CPUs typed, the client's first
     * @param second what the second CPU pins, for the message (RESPONDER, SERVER)
     */
    static void checkCpus(final CommandLine commandLine, final List<Integer> cpu, final String second) {
        if (cpu.size() > 2) {
            throw Cli.invalid(commandLine, "--cpu", cpu.stream().map(String::valueOf).collect(Collectors.joining(","))
                + " names " + cpu.size() + " CPUs; expected CLIENT or CLIENT," + second);
        }
        final int cpus = Runtime.getRuntime().availableProcessors();
        for (final int c : cpu) {
            if (c >= cpus) {
                throw Cli.invalid(commandLine, "--cpu", c + " is not a CPU of this machine; expected 0 to " + (cpus - 1));
            }
        }
    }

    int clientCpu() {
        return cpu.isEmpty() ? -1 : cpu.get(0);
    }

    int responderCpu() {
        return cpu.size() < 2 ? -1 : cpu.get(1);
    }

    boolean busySpin(final boolean scenarioDefault) {
        return busySpin == null ? scenarioDefault : busySpin;
    }

    /**
     * The transports named, or all of them when {@code names} is empty.
     *
     * @param names the names given
     * @return the transports
     */
    static List<BenchTransport> transports(final List<String> names) {
        if (names == null || names.isEmpty()) {
            return Transports.all();
        }
        final List<BenchTransport> chosen = new ArrayList<>();
        for (final String name : names) {
            chosen.add(Transports.byName(name.trim()));
        }
        return chosen;
    }

    /**
     * The options as shown in the report.
     *
     * @return labelled values
     */
    Map<String, String> describe() {
        final Map<String, String> options = new LinkedHashMap<>();
        options.put("responder", inProcess ? "in-process (threads of the client's JVM)" : "second JVM");
        options.put("cpu pinning", cpu.isEmpty() ? "none" : "client " + clientCpu()
            + (responderCpu() >= 0 ? ", responder " + responderCpu() : ""));
        options.put("busy-spin", busySpin == null ? "scenario default" : busySpin.toString());
        options.put("host", host);
        return options;
    }

    /**
     * Writes {@code --json} and {@code --hgrm} if asked for.
     *
     * @param results the runs
     * @param out where to say what was written
     */
    void writeFiles(final List<RunResult> results, final PrintStream out) {
        writeFiles(results, out, JsonResults.toJson(results));
    }

    /**
     * Writes {@code --json} (with the given text) and {@code --hgrm} if asked for.
     *
     * @param results the runs
     * @param out where to say what was written
     * @param jsonText what {@code --json} gets
     */
    void writeFiles(final List<RunResult> results, final PrintStream out, final String jsonText) {
        writeFiles(results, out, jsonText, null);
    }

    /**
     * Writes {@code --json} (with the given text) and {@code --hgrm} if asked for, each histogram of runs made in
     * rounds in a file of its own: {@code FILE-<transport>-<size>[-r<rate>]-round<K>.hgrm}.
     *
     * @param results the runs
     * @param out where to say what was written
     * @param jsonText what {@code --json} gets
     * @param rounds the round of each run, in the same order, or null for runs not made in rounds
     */
    void writeFiles(final List<RunResult> results, final PrintStream out, final String jsonText, final List<Integer> rounds) {
        if (json != null) {
            write(json, jsonText);
            out.println("json: " + json.toAbsolutePath());
        }
        if (hgrm != null) {
            final long measured = results.stream().filter(RunResult::hasLatency).count();
            for (int i = 0; i < results.size(); i++) {
                final RunResult result = results.get(i);
                if (!result.hasLatency()) {
                    continue;
                }
                final Path file = measured == 1 && rounds == null ? hgrm
                    : sibling(hgrm, result, rounds == null ? "" : "-round" + rounds.get(i));
                try (PrintStream stream = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
                    stream.println("# " + result.scenario() + " " + result.label()
                        + ": round-trip latency in microseconds" + (result.rate() > 0 ? " from intended send time" : ""));
                    result.rtt().outputPercentileDistribution(stream, 1000.0);
                    stream.flush();
                    if (stream.checkError()) { // a PrintStream keeps its write errors to itself (a full disk, /dev/full)
                        throw new IOException("the write failed");
                    }
                } catch (final IOException ex) {
                    throw new UncheckedIOException("cannot write " + file, ex);
                }
                out.println("hgrm: " + file.toAbsolutePath());
            }
        }
    }

    private static Path sibling(final Path file, final RunResult result, final String round) {
        final String name = file.getFileName().toString();
        final int dot = name.lastIndexOf('.');
        final String base = dot > 0 ? name.substring(0, dot) : name;
        final String extension = dot > 0 ? name.substring(dot) : ".hgrm";
        final String suffix = "-" + result.scenario() + "-" + result.transport() + "-" + result.size()
            + (result.rate() > 0 ? "-r" + result.rate() : "") + round;
        return file.resolveSibling(base + suffix.replaceAll("[^A-Za-z0-9_.-]", "_") + extension);
    }

    /**
     * Writes a text file, creating its folder.
     *
     * @param file the file
     * @param text the content
     */
    static void write(final Path file, final String text) {
        try {
            final Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot write " + file, ex);
        }
    }
}
