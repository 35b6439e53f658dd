package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.SoupBenchScenario;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.soup.SoupBinTcpServer;
import dev.peregrine.soup.SoupBinTcpServerHandler;
import dev.peregrine.soup.SoupBinTcpServerOptions;
import dev.peregrine.soup.SoupBinTcpSession;
import dev.peregrine.soup.SoupLoginDecision;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The answering side of {@code peregrine-soup}'s ping-pong: a {@link SoupBinTcpServer} on a reactor thread of its
 * own. Each user gets a session of its own at its first login (OUCH-like; a login naming another user's session is
 * refused {@code S}); each Unsequenced Data ping is answered by publishing {@link BenchConfig#replySize()} bytes
 * carrying its sequence field on that session, which the server writes at once to the caught-up client. With a
 * period above 1 only the pings {@link BenchConfig#answers} picks are answered.
 */
final class PeregrineSoupResponder implements Responder, SoupBinTcpServerHandler {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final BenchConfig config;
    private final Reactor reactor;
    private final SoupBinTcpServer server;
    /** Stores of the sessions made so far; read by {@link #close()} after the reactor thread has let go of them. */
    private final List<MoldUDP64MessageStore> stores = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    /** An answer of another size than the ping, written in place: the sequence field, then zeros. */
    private final MemorySegment reply;
    private final boolean echo;
    private final int sequenceLength;
    private final int respondEvery;
    private volatile long messages;
    private volatile Thread reactorThread;

    private PeregrineSoupResponder(final BenchConfig config) {
        this.config = config;
        this.reactor = new Reactor(PeregrineSoupBench.reactorOptions(config, "peregrine-soup-responder"));
        this.server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions().tcp(PeregrineSoupBench.tcp(config)),
            this::authenticate, this);
        this.reply = arena.allocate(config.replySize(), 8);
        this.echo = !config.asymmetric();
        this.sequenceLength = config.sequenceLength();
        this.respondEvery = config.respondEvery();
    }

    /**
     * Starts a responder: listens (the duty cycles on the calling thread until it does), then starts the reactor.
     *
     * @param config the run's configuration
     * @return the listening responder
     * @throws IOException if it cannot listen within 10 s
     */
    static PeregrineSoupResponder start(final BenchConfig config) throws IOException {
        final PeregrineSoupResponder responder = new PeregrineSoupResponder(config);
        responder.server.listen(PeregrineSoupBench.address(config));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (responder.server.localAddress() == null && responder.server.listenFailure() == null
            && System.nanoTime() < deadline) {
            responder.reactor.doWork();
        }
        if (responder.server.localAddress() == null) {
            final String failure = responder.server.listenFailure();
            responder.release();
            throw new IOException(failure != null ? failure : "listen on " + PeregrineSoupBench.address(config)
                + " did not complete in 10 s");
        }
        responder.reactorThread = responder.reactor.start(); // the thread start publishes everything made so far
        return responder;
    }

    private SoupLoginDecision authenticate(final String username, final String password, final String requested) {
        if (!SoupBenchScenario.PASSWORD.equals(password)) {
            return SoupLoginDecision.NOT_AUTHORIZED;
        }
        final String name = SoupBenchScenario.sessionOf(username);
        if (!requested.isEmpty() && !requested.equals(name)) {
            return SoupLoginDecision.SESSION_NOT_AVAILABLE; // another user's session
        }
        SoupBinTcpSession session = server.session(name);
        if (session == null) { // at a login, not on the hot path
            final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(name,
                SoupBenchScenario.PING_STORE_MESSAGES, SoupBenchScenario.pingStoreBytes(config));
            synchronized (stores) {
                stores.add(store);
            }
            session = server.addSession(name, store);
        }
        return SoupLoginDecision.accept(session);
    }

    @Override
    public void onUnsequencedData(final long channelId, final SoupBinTcpSession session, final MemorySegment buffer,
                                  final long offset, final int length) {
        if (respondEvery > 1 && !BenchConfig.answers(buffer.get(SEQUENCE, offset), respondEvery)) {
            messages++; // read, and left unanswered by design
            return;
        }
        messages++; // single writer: the reactor thread; counted before the answer can reach the client
        if (echo) {
            session.publish(buffer, offset, length);
        } else {
            MemorySegment.copy(buffer, offset, reply, 0, Math.min(length, sequenceLength));
            session.publish(reply, 0, (int)reply.byteSize());
        }
    }

    @Override
    public long messages() {
        return messages;
    }

    /**
     * The reactor's thread, for a test that measures what it allocates.
     *
     * @return the thread
     */
    Thread reactorThread() {
        return reactorThread;
    }

    @Override
    public void close() {
        final CountDownLatch closed = new CountDownLatch(1);
        if (!reactor.isClosed() && reactor.execute(() -> {
            server.close();
            closed.countDown();
        })) {
            try {
                closed.await(5, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        release();
    }

    private void release() {
        reactor.close();
        synchronized (stores) {
            stores.forEach(MoldUDP64MessageStore::close);
            stores.clear();
        }
        arena.close();
    }
}
