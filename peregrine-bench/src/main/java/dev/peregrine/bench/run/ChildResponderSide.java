package dev.peregrine.bench.run;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Responders in a second JVM, started with the same {@code java} and class path as this one, running
 * {@link ResponderChild}. The child prints {@code READY} once it accepts, answers {@code STATS} lines on
 * its stdin with its counters, and exits when its stdin closes (so also when this JVM dies).
 */
public final class ChildResponderSide implements ResponderSide {
    /** How long a child may take to start (a JVM plus, for Aeron, an embedded media driver). */
    public static final long START_TIMEOUT_MS = 60_000;
    private static final long STATS_TIMEOUT_MS = 10_000;
    private static final String EOF = "\u0000EOF";

    private final Process process;
    private final BlockingQueue<String> lines;
    private final OutputStream control;
    private volatile boolean stopSeen;

    @Override
    public long pid() {
        return process.pid();
    }

    private ChildResponderSide(final Process process, final BlockingQueue<String> lines) {
        this.process = process;
        this.lines = lines;
        this.control = process.getOutputStream();
    }

    /**
     * The command that starts a responder JVM.
     *
     * @param transport the transport
     * @param config the first responder's configuration (the others use ports from port + 8i and sub-folders)
     * @param count how many responders
     * @param cpu the CPU to pin the responders to, or -1
     * @return the command line
     */
    public static List<String> command(final BenchTransport transport, final BenchConfig config, final int count,
                                       final int cpu) {
        return command(transport, config, count, cpu, List.of());
    }

    /**
     * The command that starts a responder JVM, with more options for the {@code responder} command.
     *
     * @param transport the transport
     * @param config the first responder's configuration
     * @param count how many responders
     * @param cpu the CPU to pin the responders to, or -1
     * @param options more options, e.g. {@code --stream}
     * @return the command line
     */
    public static List<String> command(final BenchTransport transport, final BenchConfig config, final int count,
                                       final int cpu, final List<String> options) {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("--enable-native-access=ALL-UNNAMED");
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("-Xm") || argument.startsWith("-XX:")) {
                command.add(argument); // the same heap and GC settings as the client
            }
        }
        for (final String property : List.of(CountersManager.ENABLED_PROPERTY, CountersManager.DIRECTORY_PROPERTY)) {
            final String value = System.getProperty(property);
            if (value != null) {
                command.add("-D" + property + "=" + value); // counters off (or moved) for the bench: for its responders too
            }
        }
        command.addAll(transport.jvmArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ResponderChild.class.getName());
        command.add("--transport=" + transport.name());
        command.add("--host=" + config.host());
        command.add("--port=" + config.port());
        command.add("--size=" + config.size());
        if (config.asymmetric()) {
            command.add("--reply-size=" + config.replySize());
        }
        if (config.respondEvery() > 1) {
            command.add("--respond-every=" + config.respondEvery());
        }
        command.add("--dir=" + config.directory());
        command.add("--count=" + count);
        command.add("--cpu=" + cpu);
        command.add(config.busySpin() ? "--busy-spin" : "--no-busy-spin");
        command.addAll(options);
        return command;
    }

    /**
     * Starts the child and waits for its {@code READY} line.
     *
     * @param transport the transport
     * @param config the first responder's configuration
     * @param count how many responders
     * @param cpu the CPU to pin the responders to, or -1
     * @return the started side
     * @throws IOException if the child cannot start or fails before it is ready (with its reason)
     * @throws InterruptedException if interrupted while waiting
     */
    public static ChildResponderSide start(final BenchTransport transport, final BenchConfig config, final int count,
                                           final int cpu) throws IOException, InterruptedException {
        return start(transport, config, count, cpu, List.of());
    }

    /**
     * Starts the child with more options for the {@code responder} command and waits for its {@code READY}.
     *
     * @param transport the transport
     * @param config the first responder's configuration
     * @param count how many responders
     * @param cpu the CPU to pin the responders to, or -1
     * @param options more options, e.g. {@code --stream}
     * @return the started side
     * @throws IOException if the child cannot start or fails before it is ready (with its reason)
     * @throws InterruptedException if interrupted while waiting
     */
    public static ChildResponderSide start(final BenchTransport transport, final BenchConfig config, final int count,
                                           final int cpu, final List<String> options)
        throws IOException, InterruptedException {
        final ProcessBuilder builder = new ProcessBuilder(command(transport, config, count, cpu, options))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
        final Process process = builder.start();
        final ChildResponderSide side = new ChildResponderSide(process, new LinkedBlockingQueue<>());
        final Thread reader = new Thread(side::pump, "responder-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        final String line = side.await("READY", START_TIMEOUT_MS);
        if (line == null) {
            side.close();
            throw new IOException("the responder JVM for transport=" + transport.name() + " did not start within "
                + START_TIMEOUT_MS + " ms");
        }
        if (!line.startsWith("READY")) {
            side.close();
            throw new IOException("the responder JVM for transport=" + transport.name() + " failed: " + line);
        }
        return side;
    }

    private void pump() {
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.equals("STOP")) {
                    stopSeen = true;
                } else if (line.startsWith("READY") || line.startsWith("STATS") || line.startsWith("FAILED")
                    || line.startsWith("BYE") || line.startsWith("RESULT")) {
                    lines.add(line);
                } else {
                    System.err.println("[responder " + process.pid() + "] " + line);
                }
            }
        } catch (final IOException ex) {
            // the child is gone; the EOF marker below tells the waiting side
        }
        lines.add(EOF);
    }

    /**
     * Whether the child printed {@code STOP} (a stream receiver whose window is over); read without blocking.
     *
     * @return true once seen
     */
    boolean stopSeen() {
        return stopSeen;
    }

    /**
     * Writes a line to the child's stdin.
     *
     * @param line the line, without its end
     * @throws UncheckedIOException if the child is gone
     */
    void send(final String line) {
        try {
            control.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            control.flush();
        } catch (final IOException ex) {
            throw new UncheckedIOException("the responder JVM (pid " + process.pid() + ") is gone", ex);
        }
    }

    /** Waits for a line starting with prefix (or FAILED, or the end of the child's output); null on timeout. */
    String await(final String prefix, final long timeoutMs) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            final String line = lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                return null;
            }
            if (line.equals(EOF)) {
                lines.add(EOF); // later waits see it too
                return "FAILED the responder JVM exited" + exitCode();
            }
            if (line.startsWith(prefix) || line.startsWith("FAILED")) {
                return line;
            }
        }
    }

    private String exitCode() {
        try {
            return process.waitFor(2, TimeUnit.SECONDS) ? " with code " + process.exitValue() : "";
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    @Override
    public ResponderStats stats() {
        send("STATS");
        try {
            final String line = await("STATS", STATS_TIMEOUT_MS);
            if (line == null || !line.startsWith("STATS")) {
                throw new IllegalStateException("the responder JVM gave no counters: " + line);
            }
            return ResponderStats.parse(line);
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the responder's counters", ex);
        }
    }

    @Override
    public String where() {
        return "a second JVM (pid " + process.pid() + ")";
    }

    /**
     * The child process.
     *
     * @return the process
     */
    public Process process() {
        return process;
    }

    @Override
    public void close() {
        try {
            control.close(); // the child exits when its stdin ends
        } catch (final IOException ex) {
            // already gone
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        } catch (final InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
