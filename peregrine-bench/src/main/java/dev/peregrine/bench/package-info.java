/**
 * The benchmark engine behind the {@code ./peregrine bench} commands ({@code compare | pingpong | load |
 * throughput | transports}), one package per role; a new piece goes where its role is. The commands
 * themselves are in the {@code peregrine-cli} module ({@code dev.peregrine.cli}): a new command or option goes
 * there; it checks its values, then hands a {@link dev.peregrine.bench.run.RunSpec} to a session or a runner.
 * Nothing in this module uses the command line.
 * <ul>
 *   <li>{@link dev.peregrine.bench.session}: the runs of one command, printed as they come and on Ctrl-C.</li>
 *   <li>{@link dev.peregrine.bench.run}: how a measurement runs: runners, responder sides (the responder JVM's
 *       main class included), the measuring loops and their results. A new scenario goes here.</li>
 *   <li>{@link dev.peregrine.bench.report}: what is shown of finished results: tables, charts, the HTML report,
 *       JSON and the summary. A new chart or table goes here.</li>
 *   <li>{@link dev.peregrine.bench.transports}: Peregrine's own transports as
 *       {@link dev.peregrine.peers.BenchTransport}s, and the lookup of every transport on the class path. A new
 *       Peregrine transport goes here (a peer goes to {@code peregrine-peers}).</li>
 *   <li>{@link dev.peregrine.bench.stat}: the Peregrine counters a run's JSON carries.</li>
 * </ul>
 *
 * <p>Layers, bottom up: {@code transports}, {@code stat} &lt;- {@code run} &lt;- {@code report} &lt;-
 * {@code session}; the command line's {@code LayeringTest} fails on a reference the other way or a cycle.
 *
 * <p>How a measurement runs: transports are found with {@link java.util.ServiceLoader} as
 * {@link dev.peregrine.peers.BenchTransport}s; each run gets fresh ports and a fresh folder; the responder
 * runs in a second JVM ({@link dev.peregrine.bench.run.ChildResponderSide}, main class
 * {@link dev.peregrine.bench.run.ResponderChild}) or on threads of this one ({@code --in-process}); a client
 * thread per responder warms up, then measures with
 * {@link dev.peregrine.bench.run.PingPongLoop} into an HdrHistogram (one message in flight, or at a fixed rate with
 * latency from the intended send time). Results are {@link dev.peregrine.bench.run.RunResult}s, printed as tables,
 * written as JSON, {@code .hgrm} files and a self-contained HTML report with SVG charts.
 *
 * <p>Threading: a measuring loop belongs to its client thread and allocates nothing per message; progress
 * is printed by a daemon thread from a counter; Ctrl-C (a shutdown hook) stops the loops and prints what
 * was measured.
 */
package dev.peregrine.bench;
