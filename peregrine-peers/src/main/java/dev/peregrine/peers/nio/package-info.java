/**
 * A plain hand-written NIO loop: non-blocking {@code SocketChannel}s, direct {@code ByteBuffer}s, no
 * selector (every waiting side spins on {@code read}), TCP_NODELAY and frames of
 * {@link dev.peregrine.peers.support.TcpFrameLayout}. Beside it, {@code nio-selector}
 * ({@link dev.peregrine.peers.nio.NioSelectorBenchTransport}): the same clients and frames, and a responder that
 * waits in one {@code Selector} for every connection.
 *
 * <p>Threading: each responder runs one thread that accepts and serves every connection; a client, sender or
 * receiver is used by one thread.
 */
package dev.peregrine.peers.nio;
