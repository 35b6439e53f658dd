package dev.peregrine.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bench}: the benchmark suite. Transports are found on the class path with
 * {@link java.util.ServiceLoader}; see {@code bench compare --help} for the main job.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks: every transport against the best peers (compare), or one scenario at a time.",
    subcommands = {CompareCommand.class, PingPongCommand.class, LoadCommand.class, ThroughputCommand.class,
        TransportsCommand.class, HandoffCommand.class, ReconnectCommand.class, FanoutBenchCommand.class})
public final class BenchCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a scenario is required: "
            + String.join(", ", spec.subcommands().keySet()) + ", e.g. 'bench compare'");
    }
}
