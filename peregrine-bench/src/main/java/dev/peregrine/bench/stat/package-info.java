/**
 * The Peregrine counters of a benchmark's process at the end of a run, for the run's JSON and report
 * ({@link dev.peregrine.bench.stat.RunCounters}, {@link dev.peregrine.bench.stat.RunCounter}). The
 * {@code peregrine stat} command that shows live counters is the command line's ({@code dev.peregrine.cli}).
 *
 * <p>Threading: stateless; a read opens, copies and closes the counters file on the calling thread.
 */
package dev.peregrine.bench.stat;
