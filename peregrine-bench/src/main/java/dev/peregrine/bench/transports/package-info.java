/**
 * Peregrine's own transports in the benchmark (TCP, UDP, MoldUDP64, shared memory) as
 * {@link dev.peregrine.peers.BenchTransport}s, listed in {@code META-INF/services}, and
 * {@link dev.peregrine.bench.transports.Transports}, which finds every transport on the class path (Peregrine's
 * and the peers') so that the benchmark never names one in code.
 *
 * <p>What goes here: a new Peregrine transport, its clients, responders and stream senders/receivers. A peer
 * (Netty, Aeron, a hand-written loop) goes in {@code peregrine-peers}.
 *
 * <p>Threading: a client or stream sender is driven by the one thread the runner gives it and allocates nothing
 * per message; a responder runs on threads it starts and stops in {@code close()}.
 */
package dev.peregrine.bench.transports;
