/**
 * The runs of one command: a {@link dev.peregrine.bench.session.BenchSession} executes them one after another
 * with the runners of {@code run}, prints each result with the tables of {@code report} as it comes, and on
 * Ctrl-C prints everything measured so far. It sits above both: {@code report} shows what {@code run} measured,
 * and neither knows the session.
 *
 * <p>Threading: a session is used by the command's thread; its Ctrl-C hook runs on the JVM's shutdown thread and
 * meets the running measurement under the session's lock.
 */
package dev.peregrine.bench.session;
