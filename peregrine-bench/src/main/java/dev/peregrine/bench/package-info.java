/**
 * The {@code ./peregrine} command line and the benchmark suite ({@code bench compare | pingpong | load |
 * throughput | transports}).
 *
 * <p>How a measurement runs: transports are found with {@link java.util.ServiceLoader} as
 * {@link dev.peregrine.peers.BenchTransport}s; each run gets fresh ports and a fresh folder; the responder
 * runs in a second JVM ({@link dev.peregrine.bench.ChildResponderSide}, hidden command {@code responder}) or on
 * threads of this one ({@code --in-process}); a client thread per responder warms up, then measures with
 * {@link dev.peregrine.bench.PingPongLoop} into an HdrHistogram (one message in flight, or at a fixed rate with
 * latency from the intended send time). Results are {@link dev.peregrine.bench.RunResult}s, printed as tables,
 * written as JSON, {@code .hgrm} files and a self-contained HTML report with SVG charts.
 *
 * <p>Threading: a measuring loop belongs to its client thread and allocates nothing per message; progress
 * is printed by a daemon thread from a counter; Ctrl-C (a shutdown hook) stops the loops and prints what
 * was measured.
 */
package dev.peregrine.bench;
