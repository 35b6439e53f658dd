package dev.peregrine.bench.transports;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.Transport;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.Reactor;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What the echo sides that run a {@link Transport} on a reactor thread of their own share: waiting until the
 * transport listens, counting echoes, and closing the transport on its own thread.
 */
abstract class ReactorResponder implements Responder, ChannelHandler {
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile String failure;
    private volatile long messages;

    /**
     * The reactor the transport runs on.
     *
     * @return it
     */
    abstract Reactor reactor();

    /**
     * The transport that listens and echoes.
     *
     * @return it
     */
    abstract Transport transport();

    /**
     * Listens on {@code address}, starts the reactor and waits until the transport listens.
     *
     * @param address where to listen
     * @throws IOException if it does not listen within 10 s (closed then)
     * @throws InterruptedException if interrupted while waiting
     */
    final void listenAndStart(final SocketAddress address) throws IOException, InterruptedException {
        transport().listen(address); // before start(): the thread start publishes it
        reactor().start();
        if (!ready.await(10, TimeUnit.SECONDS) || failure != null) {
            close();
            throw new IOException(failure != null ? failure : "responder did not listen on " + address + " in 10 s");
        }
    }

    /** Counts one echo; on the reactor thread only (the single writer). */
    final void echoed() {
        messages++;
    }

    @Override
    public final long messages() {
        return messages;
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        ready.countDown();
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        failure = reason;
        ready.countDown();
    }

    /** Closes the transport on the reactor's thread (it is not thread-safe), waiting up to 5 s, then the reactor. */
    @Override
    public void close() {
        final Reactor reactor = reactor();
        final CountDownLatch closed = new CountDownLatch(1);
        if (!reactor.isClosed() && reactor.execute(() -> {
            transport().close();
            closed.countDown();
        })) {
            try {
                closed.await(5, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        reactor.close();
    }
}
