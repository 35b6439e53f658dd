package dev.peregrine.cli;

import dev.peregrine.counters.CountersDirectory;
import dev.peregrine.counters.CountersReader;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code peregrine stat}: the counters of running Peregrine processes, read from their counters files without
 * disturbing them.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
    description = {"Shows the live counters of Peregrine processes on this host.",
        "Without a pid: lists the running processes (and removes the files of dead ones).",
        "With a pid: shows its counters, refreshed each second with rates per second, until Ctrl-C",
        "or until the process exits; --once prints one reading."},
    footer = {"", "Examples:",
        "  ./peregrine stat                       the running processes",
        "  ./peregrine stat 12345                 live view of process 12345",
        "  ./peregrine stat 12345 --once --json   one reading as JSON",
        "  ./peregrine stat --prometheus          every process, OpenMetrics text format",
        "  ./peregrine stat --serve 9464          the same on http://127.0.0.1:9464/metrics, for Prometheus"})
public final class StatCommand implements Callable<Integer> {
    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<pid>", description = "Process to show.")
    Long pid;

    @Option(names = "--once", description = "Print one reading and exit.")
    boolean once;

    @Option(names = "--json", description = "Print one reading as JSON (implies --once).")
    boolean json;

    @Option(names = "--prometheus", description = "Print one reading in the OpenMetrics text format, of the process"
        + " given or of every running one (implies --once).")
    boolean prometheus;

    @Range(min = 0, max = 65_535, note = "0 for any free port")
    @Option(names = "--serve", paramLabel = "PORT", description = "Serve what --prometheus prints, read anew on"
        + " each scrape, at http://ADDR:PORT/metrics until Ctrl-C.")
    Integer servePort;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "127.0.0.1", converter = Converters.LocalAddress.class,
        description = "The address --serve listens on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
    String bind;

    @Range(min = 100, max = 60_000)
    @Option(names = "--interval", defaultValue = "1000", description = "Milliseconds between refreshes (default: ${DEFAULT-VALUE}).")
    int intervalMs;

    @Range(min = 0)
    @Option(names = "--iterations", defaultValue = "0", description = "Refreshes before exiting, 0 for no limit (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--dir", description = "Folder of the counters files (default: $XDG_RUNTIME_DIR/peregrine, else"
        + " /dev/shm/peregrine-<user>, else <tmp>/peregrine-<user>; -Dperegrine.counters.dir moves it).")
    Path dir;

    /** Creates the command; picocli fills the options. */
    public StatCommand() {
    }

    @Override
    public Integer call() throws InterruptedException {
        if (json && prometheus) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--json': --json and --prometheus"
                + " exclude each other; give one");
        }
        if (dir != null && Files.exists(dir) && !Files.isDirectory(dir)) { // a missing folder: no process has one yet
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--dir': " + dir
                + " is a file, not a folder of counters files");
        }
        final PrintWriter out = spec.commandLine().getOut();
        final Path directory = dir != null ? dir : CountersDirectory.configuredDirectory();
        if (servePort != null) {
            return serve(out, directory);
        }
        if (pid == null) {
            final List<Path> removed = CountersDirectory.removeDead(directory);
            if (prometheus) {
                out.print(StatFormats.openMetrics(readAll(directory)));
            } else if (json) {
                out.println(jsonList(readAll(directory)));
            } else {
                list(out, directory, removed);
            }
            out.flush();
            return 0;
        }
        final Path file = CountersDirectory.fileOf(directory, pid);
        if (file == null || !Files.exists(file)) {
            throw new ParameterException(spec.commandLine(), "no Peregrine process with pid " + pid + " (no file "
                + pid + "-*" + dev.peregrine.counters.CountersManager.FILE_SUFFIX + " in " + directory
                + "); ./peregrine stat lists the running ones");
        }
        try (CountersReader reader = open(file)) {
            if (!reader.isOwnerAlive()) {
                CountersDirectory.removeDead(directory);
                throw new ParameterException(spec.commandLine(), "process " + pid + " is not running; the counters file"
                    + " it left behind was removed");
            }
            if (prometheus) {
                out.print(StatFormats.openMetrics(List.of(CountersSnapshot.read(reader))));
            } else if (json) {
                out.println(StatFormats.json(CountersSnapshot.read(reader)));
            } else if (once) {
                out.print(StatFormats.table(CountersSnapshot.read(reader), null));
            } else {
                live(out, reader);
            }
            out.flush();
        }
        return 0;
    }

    private int serve(final PrintWriter out, final Path directory) {
        if (pid != null || json || once) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--serve': it serves every process"
                + " in the OpenMetrics format; give it without a pid, --json or --once");
        }
        final MetricsServer server;
        try {
            server = MetricsServer.start(new InetSocketAddress(bind, servePort), () -> {
                CountersDirectory.removeDead(directory);
                return StatFormats.openMetrics(readAll(directory));
            });
        } catch (final IOException ex) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--serve': cannot listen on "
                + bind + ":" + servePort + ": " + ex.getMessage());
        }
        try (server) {
            out.println("serving http://" + bind + ":" + server.address().getPort() + MetricsServer.PATH
                + " (counters files in " + directory + "; Ctrl-C to stop)");
            out.flush();
            new CountDownLatch(1).await(); // until Ctrl-C ends the JVM, or a caller interrupts this thread
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private CountersReader open(final Path file) {
        try {
            return CountersReader.open(file);
        } catch (final UncheckedIOException | IllegalStateException ex) {
            throw new ParameterException(spec.commandLine(), "cannot read " + file + ": " + ex.getMessage());
        }
    }

    private void live(final PrintWriter out, final CountersReader reader) throws InterruptedException {
        CountersSnapshot previous = null;
        for (int shown = 0; iterations == 0 || shown < iterations; shown++) {
            if (shown > 0) {
                Thread.sleep(intervalMs);
            }
            if (!reader.isOwnerAlive()) {
                out.println("process " + pid + " exited");
                return;
            }
            final CountersSnapshot now = CountersSnapshot.read(reader);
            out.print(CLEAR_SCREEN);
            out.print(StatFormats.table(now, previous));
            out.println("(every " + intervalMs + " ms; Ctrl-C to stop)");
            out.flush();
            previous = now;
        }
    }

    private static List<CountersSnapshot> readAll(final Path directory) {
        final List<CountersSnapshot> snapshots = new ArrayList<>();
        for (final Path file : CountersDirectory.files(directory)) {
            try (CountersReader reader = CountersReader.open(file)) {
                if (reader.isOwnerAlive()) {
                    snapshots.add(CountersSnapshot.read(reader));
                }
            } catch (final RuntimeException ex) {
                // removed, or being made, while listed: not a process to show now
            }
        }
        return snapshots;
    }

    private static String jsonList(final List<CountersSnapshot> snapshots) {
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < snapshots.size(); i++) {
            out.append(i == 0 ? "" : ",").append(StatFormats.json(snapshots.get(i)));
        }
        return out.append(']').toString();
    }

    private static void list(final PrintWriter out, final Path directory, final List<Path> removed) {
        for (final Path file : removed) {
            out.println("removed " + file + ": its process is no longer running");
        }
        final List<CountersSnapshot> running = readAll(directory);
        if (running.isEmpty()) {
            out.println("no running Peregrine process has counters in " + directory);
            return;
        }
        out.println(String.format(Locale.ROOT, "%8s  %-19s  %8s  %s", "PID", "STARTED", "COUNTERS", "COMMAND"));
        for (final CountersSnapshot snapshot : running) {
            out.println(String.format(Locale.ROOT, "%8d  %-19s  %8d  %s", snapshot.pid(),
                StatFormats.startTime(snapshot.startMillis()), snapshot.counters().size(), snapshot.name()));
        }
        out.println("(counters files in " + directory + "; ./peregrine stat <pid> shows one)");
    }
}
