/**
 * The baseline most users write today: blocking {@code java.net.Socket} and {@code ServerSocket}, TCP_NODELAY,
 * a thread per connection, frames of {@link dev.peregrine.peers.support.TcpFrameLayout} read with
 * {@code DataInputStream.readInt} and {@code readFully} into a reused array.
 *
 * <p>Threading: the responder and the stream receiver's acceptor run on threads of their own; a client or
 * sender is used by one thread.
 */
package dev.peregrine.peers.socket;
