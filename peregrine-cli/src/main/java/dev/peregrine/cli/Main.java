package dev.peregrine.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code ./peregrine} command line.
 */
@Command(name = "peregrine", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = "Low-latency messaging in plain Java: examples and the benchmark suite.",
    footer = {"", "Commands of the ./peregrine launcher itself (each answers --help):",
        "  build    (re)build without the tests",
        "  test     the whole test suite, what CI runs; more arguments go to Maven",
        "  install  put peregrine-core in the local Maven repository; more arguments go to Maven",
        "  jdk      print the JDK 25 or newer it found",
        "  mvn      run Maven on the project with that JDK"},
    subcommands = {CommandLine.HelpCommand.class, BenchCommand.class,
        dev.peregrine.cli.HelloCommand.class, dev.peregrine.cli.EchoCommand.class,
        dev.peregrine.cli.MoldCommand.class, StatCommand.class, SoupCommand.class,
        FanoutCommand.class})
public final class Main {
    @Option(names = Cli.VERBOSE, scope = ScopeType.INHERIT, description = "On a failure, print the stack trace too.")
    boolean verbose;

    private Main() {
    }

    /**
     * The command line, answering user errors with one line and exit code 2 ({@link Cli}).
     *
     * @return a new command line
     */
    public static CommandLine commandLine() {
        return commandLine(new CommandLine.RunLast());
    }

    /**
     * The command line, running a parsed command with {@code strategy} once every check has passed.
     *
     * @param strategy what runs the command (tests pass one that records that it was reached)
     * @return a new command line
     */
    static CommandLine commandLine(final CommandLine.IExecutionStrategy strategy) {
        return Cli.configure(new CommandLine(new Main()), strategy);
    }

    /**
     * Runs a command.
     *
     * @param args the command line
     */
    public static void main(final String[] args) {
        System.exit(commandLine().execute(args));
    }
}
