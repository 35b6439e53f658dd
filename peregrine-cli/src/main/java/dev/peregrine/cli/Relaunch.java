package dev.peregrine.cli;

import dev.peregrine.peers.BenchTransport;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Some transports need JVM options in the client's JVM too ({@link BenchTransport#jvmArguments()}, e.g.
 * Aeron's Agrona on JDK 25). When this JVM lacks some, the {@code bench} command runs itself again in a JVM
 * that has them, once, with the same arguments and the same terminal.
 */
public final class Relaunch {
    /** Set in the relaunched JVM so that it never relaunches again. */
    public static final String MARKER = "PEREGRINE_BENCH_RELAUNCHED";

    private Relaunch() {
    }

    /**
     * The options the transports need that this JVM was not started with.
     *
     * @param transports the transports
     * @return the missing options, in order
     */
    public static List<String> missing(final List<BenchTransport> transports) {
        return missingOf(transports.stream().flatMap(t -> t.jvmArguments().stream()).toList());
    }

    /**
     * The options of a list that this JVM was not started with.
     *
     * @param arguments JVM options, as a command line gives them
     * @return the missing options, in order
     */
    private static List<String> missingOf(final List<String> arguments) {
        final Set<String> have = new LinkedHashSet<>(normalize(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        final Set<String> missing = new LinkedHashSet<>();
        for (final String argument : normalize(arguments)) {
            if (!have.contains(argument)) {
                missing.add(argument);
            }
        }
        return new ArrayList<>(missing);
    }

    /**
     * JVM options in one form: {@code --add-exports X} becomes {@code --add-exports=X}, as the JVM itself
     * reports it.
     *
     * @param arguments the options
     * @return the options, each in one element
     */
    public static List<String> normalize(final List<String> arguments) {
        final List<String> normal = new ArrayList<>();
        for (int i = 0; i < arguments.size(); i++) {
            final String argument = arguments.get(i);
            if (argument.startsWith("--") && !argument.contains("=") && i + 1 < arguments.size()
                && !arguments.get(i + 1).startsWith("-")) {
                normal.add(argument + "=" + arguments.get(++i));
            } else {
                normal.add(argument);
            }
        }
        return normal;
    }

    /**
     * Runs the command again in a JVM with the missing options, if any are missing.
     *
     * @param spec the running command (to find the original arguments)
     * @param transports the transports the command may use
     * @return the exit code of the relaunched JVM, or null if this JVM has what is needed (run here)
     */
    public static Integer ifNeeded(final CommandSpec spec, final List<BenchTransport> transports) {
        return ifNeeded(spec, transports.stream().flatMap(t -> t.jvmArguments().stream()).toList(),
            transports.stream().filter(t -> !t.jvmArguments().isEmpty()).map(BenchTransport::name).toList());
    }

    /**
     * Runs the command again in a JVM with the options some parts of it need, if this JVM lacks any.
     *
     * @param spec the running command (to find the original arguments)
     * @param arguments the JVM options needed
     * @param neededBy what needs them, for the line that says so
     * @return the exit code of the relaunched JVM, or null if this JVM has what is needed (run here)
     */
    public static Integer ifNeeded(final CommandSpec spec, final List<String> arguments, final List<String> neededBy) {
        final List<String> missing = missingOf(arguments);
        if (missing.isEmpty() || System.getenv(MARKER) != null) {
            if (!missing.isEmpty()) {
                System.err.println("peregrine: this JVM lacks " + missing + "; some transports may fail");
            }
            return null;
        }
        CommandLine root = spec.commandLine();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(missing);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(root.getParseResult().originalArgs());
        System.err.println("peregrine: running in a JVM with " + String.join(" ", missing)
            + " (needed by " + String.join(", ", neededBy) + ")");
        final ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put(MARKER, "1");
        try {
            final Process process = builder.start();
            // Ctrl-C reaches the child through the terminal's process group; wait for it to print and end
            Runtime.getRuntime().addShutdownHook(new Thread(() -> waitQuietly(process), "bench-relaunch-wait"));
            return process.waitFor();
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot relaunch the JVM: " + command, ex);
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    private static void waitQuietly(final Process process) {
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroy();
            }
        } catch (final InterruptedException ex) {
            process.destroy();
        }
    }
}
