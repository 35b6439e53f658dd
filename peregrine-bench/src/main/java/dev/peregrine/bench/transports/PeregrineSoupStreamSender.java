package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;
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
import java.util.concurrent.TimeUnit;

/**
 * {@code peregrine-soup}'s publishing side: a {@link SoupBinTcpServer} with one session, {@value
 * SoupBenchScenario#STREAM_SESSION}, on a reactor the sending thread drives. Each offer appends one message (the
 * bench sequence in its first 8 bytes) to the session ({@link SoupBinTcpSession#append}), a run of them one claim
 * in the store ({@link SoupBinTcpSession#claim}); the batch's flush sends
 * the run to the caught-up receiver with one claim ({@link SoupBinTcpSession#flush}), as a publisher with many
 * messages at hand would, and what its socket does not take is served later from the store. An offer is refused
 * while the publisher is a window ahead of the receiver's last credit ({@link SoupBenchScenario}), after handing on
 * what it holds; {@link #flush()} runs a duty cycle (the writes that wait, the credits that came) and is done when
 * the receiver has credited every message.
 */
final class PeregrineSoupStreamSender implements StreamSender, SoupBinTcpServerHandler {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Reactor reactor;
    private final SoupBinTcpServer server;
    private final MoldUDP64MessageStore store;
    private final SoupBinTcpSession session;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message;
    private final int size;
    private final long window;
    /** The receiver's last credit: the next SoupBinTCP sequence number it has not delivered. */
    private long credited = 1;
    private boolean loggedIn;
    private String closed;

    PeregrineSoupStreamSender(final BenchConfig config) throws IOException {
        this.size = config.size();
        this.window = SoupBenchScenario.window(size);
        this.message = arena.allocate(size, 8);
        this.reactor = new Reactor(PeregrineSoupBench.reactorOptions(config, "peregrine-soup-sender"));
        this.store = MoldUDP64MessageStore.inMemory(SoupBenchScenario.STREAM_SESSION,
            SoupBenchScenario.storeMessages(size), SoupBenchScenario.storeBytes(size));
        // one client: a receiver that fell behind (its socket full) catches up as fast as the socket takes it, not 256
        // messages per duty cycle (the default burst, fair among many clients), in a reactor that cycles once a batch
        this.server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions().tcp(PeregrineSoupBench.tcp(config))
            .replayBurst((int)Math.min(Integer.MAX_VALUE, window)),
            (user, password, requested) -> SoupBenchScenario.PASSWORD.equals(password)
                ? SoupLoginDecision.accept(this.session()) : SoupLoginDecision.NOT_AUTHORIZED, this);
        this.session = server.addSession(SoupBenchScenario.STREAM_SESSION, store);
        server.listen(PeregrineSoupBench.address(config));
        // the receiver started first and retries its connection: wait for its login
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!loggedIn && server.listenFailure() == null && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        if (!loggedIn) {
            final String failure = server.listenFailure();
            close();
            throw new IOException(failure != null ? failure : "no receiver logged in at "
                + PeregrineSoupBench.address(config) + " in 10 s");
        }
    }

    private SoupBinTcpSession session() {
        return session;
    }

    @Override
    public boolean offer(final long sequence) {
        if (store.nextSequence() - credited >= window) {
            return waitForCredit();
        }
        message.set(SEQUENCE, 0, sequence);
        session.append(message, 0, size);
        return true;
    }

    /**
     * A run of messages is one claimed run in the store ({@link SoupBinTcpSession#claim}): the sequence of each
     * written at its place, one commit for all, as {@code peregrine-tcp}'s sender claims a run of frames. Within the
     * credit window.
     */
    @Override
    public int offer(final long firstSequence, final int count) {
        final long room = window - (store.nextSequence() - credited);
        if (room <= 0) {
            waitForCredit();
            return 0;
        }
        final long first = session.claim(size, (int)Math.min(count, room));
        final int claimed = session.claimCount();
        final MemorySegment buffer = session.claimBuffer();
        final long stride = size + MoldUDP64MessageStore.PACKET_HEADER_LENGTH;
        for (int i = 0; i < claimed; i++) {
            buffer.set(SEQUENCE, first + i * stride, firstSequence + i);
        }
        session.commit();
        return claimed;
    }

    private boolean waitForCredit() {
        session.flush(); // what is held goes on before an offer is refused
        reactor.doWork();
        checkOpen();
        return false;
    }

    @Override
    public boolean flush() {
        session.flush();
        reactor.doWork();
        checkOpen();
        return credited == store.nextSequence();
    }

    private void checkOpen() {
        if (closed != null) {
            throw new IllegalStateException("the receiver's connection closed: " + closed);
        }
    }

    @Override
    public void onLoggedIn(final long channelId, final SoupBinTcpSession loggedInto, final String username,
                           final long nextSequence) {
        loggedIn = true;
    }

    @Override
    public void onUnsequencedData(final long channelId, final SoupBinTcpSession from, final MemorySegment buffer,
                                  final long offset, final int length) {
        credited = Math.max(credited, SoupBenchScenario.credit(buffer, offset, length));
    }

    @Override
    public void onClosed(final long channelId, final dev.peregrine.channel.CloseReason reason, final String detail) {
        if (loggedIn && closed == null) {
            closed = reason + " " + detail;
        }
    }

    @Override
    public void close() {
        server.close();
        reactor.close();
        store.close();
        arena.close();
    }
}
