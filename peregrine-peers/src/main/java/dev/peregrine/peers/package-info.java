/**
 * What the benchmark measures, transport by transport: a small service-provider interface
 * ({@link dev.peregrine.peers.BenchTransport}) and its implementations for the peers Peregrine is compared
 * against (blocking {@code java.net.Socket}, a hand-written NIO loop, Netty, Aeron). Peregrine's own
 * transports implement the same interface in the benchmark module. Kept out of the library so that it has
 * no dependency on any peer.
 *
 * <p>Layers: this package is the interface and the message every transport carries
 * ({@link dev.peregrine.peers.BenchMessageLayout}); {@code support} holds helpers built on it, and each peer's
 * package builds on both. Nothing here uses {@code support} or a peer's package.
 *
 * <p>{@code handoff} is apart: {@code bench handoff}'s queues, thread to thread in one JVM, with an interface of
 * their own ({@link dev.peregrine.peers.handoff.HandoffImplementation}); it uses {@code aeron} only for the JVM
 * options Agrona needs.
 *
 * <p>Threading: a {@link dev.peregrine.peers.PingClient} or {@link dev.peregrine.peers.StreamSender} is used
 * by one thread; a {@link dev.peregrine.peers.Responder} runs on threads of its own.
 */
package dev.peregrine.peers;
