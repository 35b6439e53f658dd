/**
 * The command line: the picocli commands ({@code hello}, {@code echo}, {@code mold}, {@code stat},
 * {@code bench compare | pingpong | load | throughput | transports}), their option mixins
 * ({@link dev.peregrine.cli.CommonOptions}), converters and the entry point
 * {@link dev.peregrine.cli.Main} that the {@code ./peregrine} launcher runs.
 *
 * <p>What goes here: parsing and checking what the user typed (a bad value names the option, the value and the
 * accepted forms, and exits 2 before anything runs), and handing a {@link dev.peregrine.bench.run.RunSpec} to
 * {@link dev.peregrine.bench.run} or a {@link dev.peregrine.bench.session.BenchSession}. How a run measures
 * belongs in the benchmark engine ({@code peregrine-bench}: {@code run}, how it is shown in {@code report}); the
 * applications {@code hello}, {@code echo} and {@code mold} start are {@code peregrine-examples}'. This is the top
 * layer: nothing in another module or package references it ({@code LayeringTest}).
 *
 * <p>Threading: a command runs on the thread that called {@link dev.peregrine.cli.Main}; it starts no
 * measuring thread itself. A {@code bench} command may run itself again in a JVM with the options its transports
 * need ({@link dev.peregrine.cli.Relaunch}).
 */
package dev.peregrine.cli;
