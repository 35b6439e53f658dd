package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every command's {@code --help} prints its help and nothing else: no picocli warning about a format string. */
final class HelpTextTest {
    private static void collect(final CommandLine command, final List<String> path, final List<List<String>> into) {
        into.add(path);
        for (final var sub : command.getSubcommands().entrySet()) {
            if (!sub.getValue().getCommandSpec().usageMessage().hidden() && !sub.getKey().equals("help")) {
                final List<String> next = new ArrayList<>(path);
                next.add(sub.getKey());
                collect(sub.getValue(), next, into);
            }
        }
    }

    // the launcher's own commands (build, test, ...) were named only to a user who mistyped one
    @Test
    void shouldNameTheLaunchersOwnCommandsInTheTopHelp() {
        final CliRun run = CliRun.execute("--help");
        assertThat(run.code()).isZero();
        for (final String command : Cli.LAUNCHER_COMMANDS) {
            assertThat(run.out()).containsPattern("(?m)^  " + command + " ");
        }
    }

    @Test
    void shouldPrintEveryCommandsHelpWithoutAWarning() {
        final List<List<String>> commands = new ArrayList<>();
        collect(Main.commandLine(), List.of(), commands);
        assertThat(commands).hasSizeGreaterThan(5);
        for (final List<String> path : commands) {
            final List<String> args = new ArrayList<>(path);
            args.add("--help");
            final CliRun run = CliRun.execute(args.toArray(String[]::new));
            assertThat(run.code()).as(String.join(" ", args)).isZero();
            assertThat(run.err()).as(String.join(" ", args)).doesNotContain("WARN");
            assertThat(run.out()).as(String.join(" ", args)).contains("Usage:");
        }
    }
}
