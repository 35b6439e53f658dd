/**
 * Netty 4.2 over TCP: the native epoll transport where {@code Epoll.isAvailable()}, else NIO; TCP_NODELAY,
 * pooled direct buffers, {@code LengthFieldBasedFrameDecoder} on frames of
 * {@link dev.peregrine.peers.support.TcpFrameLayout}. The responder echoes on one event-loop thread that polls
 * without blocking when the run busy-spins; the client drives its own {@code ManualIoEventLoop} from the
 * calling thread, so a send is written and an echo read on that thread with no hand-off between threads.
 *
 * <p>Threading: the responder runs its event loop on a thread of its own; a client is driven by the one
 * thread that first sends or polls.
 */
package dev.peregrine.peers.netty;
