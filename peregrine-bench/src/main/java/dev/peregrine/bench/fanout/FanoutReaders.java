package dev.peregrine.bench.fanout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The reader processes of one run: each a child JVM running {@link FanoutReaderChild}, started with the same
 * {@code java} and class path as this one, its stdout read line by line on a thread of its own, its stderr kept in
 * a file of the run's directory for the reason of a failure.
 */
final class FanoutReaders implements AutoCloseable {
    /** How long a reader may take to start and attach. */
    static final long START_TIMEOUT_MS = 60_000;
    private static final String EOF = "\u0000EOF";

    /** One reader process. */
    static final class Child {
        final int index;
        final Process process;
        final Path errors;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Child(final int index, final Process process, final Path errors) {
            this.index = index;
            this.process = process;
            this.errors = errors;
            final Thread pump = new Thread(() -> pump(process, lines), "fanout-reader-" + index + "-stdout");
            pump.setDaemon(true);
            pump.start();
        }

        /**
         * The next line of stdout, or null after the timeout or at its end.
         *
         * @param timeoutMs how long to wait
         * @return the line or null
         * @throws InterruptedException if interrupted
         */
        String nextLine(final long timeoutMs) throws InterruptedException {
            final String line = lines.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (line == EOF) {
                lines.add(EOF);
                return null;
            }
            return line;
        }

        /**
         * The last line the reader wrote to stderr, for a failure's reason.
         *
         * @return the line, or empty
         */
        String lastError() {
            try {
                final List<String> all = Files.readAllLines(errors, StandardCharsets.UTF_8);
                for (int i = all.size() - 1; i >= 0; i--) {
                    final String line = all.get(i).strip();
                    if (!line.isEmpty() && !line.startsWith("at ") && !line.startsWith("WARNING")) {
                        return line;
                    }
                }
            } catch (final IOException ex) {
                // no stderr to show
            }
            return "";
        }
    }

    private final List<Child> children = new ArrayList<>();

    private static void pump(final Process process, final BlockingQueue<String> lines) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        } catch (final IOException ex) {
            // the process is gone: its end is the EOF below
        }
        lines.add(EOF);
    }

    /**
     * The command that starts one reader.
     *
     * @param transport the transport
     * @param directory the run's directory
     * @param size the size
     * @param index the reader's index
     * @param first the first measured sequence
     * @param end one past the last sequence
     * @param latency whether to record latency
     * @param tolerateLoss whether a skipped sequence is counted rather than a failure
     * @param detachAt the sequence after which the reader detaches and stays idle, or -1 to read to the end
     * @param timeoutMs the reader's own deadline
     * @return the command line
     */
    static List<String> command(final FanoutTransport transport, final Path directory, final int size, final int index,
                                final long first, final long end, final boolean latency, final boolean tolerateLoss,
                                final long detachAt, final long timeoutMs) {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("--enable-native-access=ALL-UNNAMED");
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("-Xm") || argument.startsWith("-XX:")) {
                command.add(argument); // the same heap and GC settings as the writer's JVM
            }
        }
        command.addAll(transport.jvmArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(FanoutReaderChild.class.getName());
        command.add("--transport=" + transport.name());
        command.add("--dir=" + directory);
        command.add("--size=" + size);
        command.add("--index=" + index);
        command.add("--first=" + first);
        command.add("--end=" + end);
        if (latency) {
            command.add("--latency");
        }
        if (tolerateLoss) {
            command.add("--tolerate-loss");
        }
        if (detachAt >= 0) {
            command.add("--detach-at=" + detachAt);
        }
        command.add("--timeout-ms=" + timeoutMs);
        return command;
    }

    /**
     * Starts a reader; {@link #awaitReady} waits for it.
     *
     * @param index its index
     * @param command its command line
     * @param directory where its stderr goes
     * @throws IOException if it cannot start
     */
    void start(final int index, final List<String> command, final Path directory) throws IOException {
        final Path errors = directory.resolve("reader-" + index + ".err");
        final Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        children.add(new Child(index, process, errors));
    }

    /**
     * Waits for every reader's {@code READY}.
     *
     * @throws IOException if one failed or did not say it in time, with its reason
     * @throws InterruptedException if interrupted
     */
    void awaitReady() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        for (final Child child : children) {
            String line;
            do { // lines before READY that say nothing of the reader (the JVM's own, e.g. a flight recording's start)
                final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                line = child.nextLine(Math.max(1, left));
            } while (line != null && !line.startsWith("READY") && !line.startsWith("FAILED")
                && System.nanoTime() - deadline < 0);
            if (line == null || !line.startsWith("READY")) {
                throw new IOException("reader " + child.index + " did not start: " + (line == null
                    ? "no READY within " + START_TIMEOUT_MS + " ms" : line) + reasonSuffix(child));
            }
        }
    }

    private static String reasonSuffix(final Child child) {
        final String error = child.lastError();
        return error.isEmpty() ? "" : " (stderr: " + error + ")";
    }

    /**
     * The readers, in index order.
     *
     * @return the children
     */
    List<Child> children() {
        return children;
    }

    /**
     * A reader's result line, parsed.
     *
     * @param child the reader
     * @param timeoutMs how long to wait for it
     * @return its result; a reader that ended without one, or failed to start, is a failed result
     * @throws InterruptedException if interrupted
     */
    static FanoutReaderChild.Result result(final Child child, final long timeoutMs) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            final String line = left <= 0 ? null : child.nextLine(left);
            if (line == null) {
                return failed("no result within " + timeoutMs + " ms" + (child.process.isAlive() ? "" : ", exited "
                    + child.process.exitValue()) + reasonSuffix(child));
            }
            if (line.startsWith("RESULT ")) {
                return FanoutReaderChild.Result.parse(line);
            }
            if (line.startsWith("FAILED")) {
                return failed(line);
            }
        }
    }

    private static FanoutReaderChild.Result failed(final String reason) {
        return new FanoutReaderChild.Result(0, 0, 0, 0, 0, -1, null, reason, -1);
    }

    /** Ends every reader still running with SIGKILL, which ends a stopped one too. */
    @Override
    public void close() {
        for (final Child child : children) {
            if (child.process.isAlive()) {
                child.process.destroyForcibly();
            }
        }
        for (final Child child : children) {
            try {
                child.process.waitFor(10, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
