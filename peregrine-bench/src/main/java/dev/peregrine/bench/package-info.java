/**
 * The {@code ./peregrine} command line and the benchmark suite ({@code bench compare | pingpong | load |
 * throughput | transports}), one package per role; a new piece goes where its role is:
 * <ul>
 *   <li>{@link dev.peregrine.bench.cli}: the picocli commands and their option mixins. A new command or option
 *       goes here; it checks its values, then hands a {@link dev.peregrine.bench.run.RunSpec} to a runner.</li>
 *   <li>{@link dev.peregrine.bench.run}: how a measurement runs: sessions, runners, responder sides, the
 *       measuring loops and their results. A new scenario goes here.</li>
 *   <li>{@link dev.peregrine.bench.report}: what is shown of finished results: tables, charts, the HTML report,
 *       JSON and the summary. A new chart or table goes here.</li>
 *   <li>{@link dev.peregrine.bench.transports}: Peregrine's own transports as
 *       {@link dev.peregrine.peers.BenchTransport}s, and the lookup of every transport on the class path. A new
 *       Peregrine transport goes here (a peer goes to {@code peregrine-peers}).</li>
 * </ul>
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
