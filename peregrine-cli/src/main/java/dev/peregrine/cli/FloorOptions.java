package dev.peregrine.cli;

import dev.peregrine.bench.run.FloorRunner;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The C ping-pong floor's options, {@code --floor CMD} and {@code --no-floor}, and running it: the command given,
 * or else {@code ../shared/floor/run} next to the repository at every size, or nothing.
 */
public final class FloorOptions implements Validated {
    /** The floor may take this long, per command: on a busy machine its pinned spinning threads crawl. */
    static final long TIMEOUT_S = 90;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--floor", paramLabel = "CMD", description = "Command printing the machine's floor lines, e.g."
        + " '../shared/floor/run 256 200000' (default: ../shared/floor/run next to the repository, if it exists).")
    String command;

    @Option(names = "--no-floor", description = "Do not run the floor.")
    boolean off;

    @Override
    public void validate() {
        Cli.exclusive(mixee, "--floor", "--no-floor");
    }

    /**
     * Runs the floor once.
     *
     * @param out where to say what runs
     * @param sizes the message sizes, for the default script
     * @param messages the round trips each transport makes (warm-up included): the default script makes as many,
     *     from 10 000 to 50 000 per size
     * @return its outcome, or null when it is off or there is none to run
     */
    FloorRunner.Outcome run(final PrintStream out, final List<Integer> sizes, final long messages) {
        if (off) {
            return null;
        }
        if (command != null) {
            out.println("floor: running " + command + " ...");
            return FloorRunner.run(command, TIMEOUT_S);
        }
        final Path script = FloorRunner.findDefault();
        if (script == null) {
            return null;
        }
        final long count = Math.min(50_000, Math.max(10_000, messages));
        final List<String> commands = new ArrayList<>();
        for (final int size : sizes) {
            commands.add("'" + script + "' " + size + " " + count);
        }
        out.println("floor: no --floor given; using " + script + " found next to the repository ...");
        return FloorRunner.runAll(commands, TIMEOUT_S);
    }

    /**
     * What the floor was, in one line for the output.
     *
     * @param outcome what {@link #run} returned
     * @return the line
     */
    String note(final FloorRunner.Outcome outcome) {
        if (off) {
            return "floor: not run (--no-floor).";
        }
        if (outcome == null) {
            return "floor: unknown (no --floor given and no ../shared/floor/run next to the repository).";
        }
        final String lines = outcome.results().size() + " floor line(s) from: " + outcome.command()
            + (command == null ? " (found next to the repository; --floor CMD to choose)" : "");
        return outcome.error() == null ? "floor: " + lines : "floor: " + lines + "; problem: " + outcome.error();
    }

    /**
     * The option's value for a report.
     *
     * @return off, auto or the command
     */
    String describe() {
        return off ? "off" : command == null ? "auto" : command;
    }
}
