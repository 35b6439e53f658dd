package dev.peregrine.cli;

import dev.peregrine.bench.run.RunSpec;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The runs a {@code bench} command was asked for that cannot run in their configuration (a size too big for a
 * datagram, a reply size a transport does not answer with), found before anything runs rather than after the
 * other transports have: the runner reports each {@code UNAVAILABLE} without starting it, with the same reason.
 * When none of the runs can run, the command is a user error; otherwise each reason is said once, up front, and
 * the runs still have their rows in the table.
 */
final class UnavailableRuns {
    private final Map<String, Set<String>> reasons;
    private final boolean anyRuns;

    private UnavailableRuns(final Map<String, Set<String>> reasons, final boolean anyRuns) {
        this.reasons = reasons;
        this.anyRuns = anyRuns;
    }

    /**
     * Asks why each run cannot run.
     *
     * @param runs the runs the command will make
     * @param reason why a run cannot run, or null if it can (the runner's own check)
     * @return the reasons, by transport
     */
    static UnavailableRuns of(final List<RunSpec> runs, final Function<RunSpec, String> reason) {
        final Map<String, Set<String>> reasons = new LinkedHashMap<>();
        boolean anyRuns = false;
        for (final RunSpec run : runs) {
            final String why = reason.apply(run);
            if (why == null) {
                anyRuns = true;
            } else {
                reasons.computeIfAbsent(run.transport().name(), name -> new LinkedHashSet<>()).add(why);
            }
        }
        return new UnavailableRuns(reasons, anyRuns);
    }

    /**
     * Refuses the command when not one of its runs can run: one line naming each transport and why, exit code 2.
     *
     * @param commandLine the command
     * @throws ParameterException if no run can run
     */
    void refuseIfNoneRuns(final CommandLine commandLine) {
        if (!anyRuns && !reasons.isEmpty()) {
            final List<String> each = new ArrayList<>();
            reasons.forEach((name, whys) -> each.add(name + ": " + String.join("; ", whys)));
            throw new ParameterException(commandLine, "no transport asked for can run as asked: "
                + String.join("; ", each));
        }
    }

    /**
     * Says, before the first run starts, which runs will be reported unavailable and why: a line for each reason.
     *
     * @param out where the lines go
     */
    void print(final PrintStream out) {
        reasons.forEach((name, whys) -> {
            for (final String why : whys) {
                out.println("  " + name + ": unavailable, not run: " + why);
            }
        });
    }
}
