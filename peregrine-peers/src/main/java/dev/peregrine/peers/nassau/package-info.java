/**
 * Nassau (paritytrading, {@code nassau-core}) as a MoldUDP64 peer: its {@code MoldUDP64Server}, message store
 * and {@code MoldUDP64RequestServer} publish, its {@code MoldUDP64Client} follows and recovers. Ping-pong runs
 * over two sessions (PING to the responder, PONG back); the one-way stream drops live packets on purpose when
 * asked ({@link dev.peregrine.peers.StreamLoss}) and the client recovers them from the request server.
 *
 * <p>Each side is used by one thread.
 */
package dev.peregrine.peers.nassau;
