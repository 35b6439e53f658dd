package dev.peregrine.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./peregrine} command line.
 */
@Command(name = "peregrine", mixinStandardHelpOptions = true, version = "peregrine 0.1.0",
    description = "Low-latency messaging in plain Java: examples and the benchmark suite.",
    subcommands = {CommandLine.HelpCommand.class, BenchCommand.class, ResponderCommand.class,
        dev.peregrine.bench.cli.HelloCommand.class, dev.peregrine.bench.cli.EchoCommand.class,
        dev.peregrine.bench.cli.MoldCommand.class})
public final class Main {
    private Main() {
    }

    /**
     * Runs a command.
     *
     * @param args the command line
     */
    public static void main(final String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }
}
