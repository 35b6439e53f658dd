/**
 * How a measurement runs: a runner per scenario
 * ({@link dev.peregrine.bench.run.BenchRunner} for ping-pong and load,
 * {@link dev.peregrine.bench.run.ThroughputRunner} for one-way streams,
 * {@link dev.peregrine.bench.run.FloorRunner} for the C floor), a
 * {@link dev.peregrine.bench.run.ResponderSide} in a second JVM or on threads of this one, the measuring loops
 * ({@link dev.peregrine.bench.run.PingPongLoop}, {@link dev.peregrine.bench.run.SharedClientLoop}) and what they
 * produce ({@link dev.peregrine.bench.run.RunResult}). The runs of one command, one after another, are a
 * {@code session}'s; how results are shown is {@code report}'s.
 *
 * <p>What goes here: a new scenario (a loop, a runner, a responder behaviour) and the numbers it records. What
 * the user types belongs in the command line ({@code dev.peregrine.cli}, another module), how results are shown
 * in {@code report}; nothing here uses either.
 *
 * <p>Threading: a measuring loop belongs to its client thread and allocates nothing per message; a responder
 * side owns the threads (or the JVM) it starts and stops them in {@code close()}; progress is printed by a
 * daemon thread from a counter the loop stores ({@link dev.peregrine.bench.run.Progress}); Ctrl-C (a shutdown
 * hook) stops the loops, and what was measured is printed.
 */
package dev.peregrine.bench.run;
