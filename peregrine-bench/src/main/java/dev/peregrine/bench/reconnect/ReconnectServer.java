package dev.peregrine.bench.reconnect;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.soup.SoupBinTcpServer;
import dev.peregrine.soup.SoupBinTcpServerHandler;
import dev.peregrine.soup.SoupBinTcpServerOptions;
import dev.peregrine.soup.SoupBinTcpSession;
import dev.peregrine.soup.SoupLoginDecision;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * The server side of {@code bench reconnect}, on its reactor's thread: a {@link SoupBinTcpServer} with one session,
 * {@value #SESSION}, fed by a publisher paced at a rate (message {@code n} due {@code n / rate} seconds after the
 * start, a burst of at most {@value #BURST} per duty cycle) up to a count, then End of Session. A server started on a
 * store that already holds messages (a restart) goes on from the store's next number, paced from its own start. It
 * makes the server-side cuts of a {@link CutSchedule}: an abort of the client's connection.
 */
final class ReconnectServer implements SoupBinTcpServerHandler {
    static final String SESSION = "RECONNECT";
    static final String USER = "bench";
    static final String PASSWORD = "bench";
    private static final int BURST = 4096;

    private final Reactor reactor;
    private final SoupBinTcpServer server;
    private final SoupBinTcpSession session;
    private final MoldUDP64MessageStore store;
    private final CutSchedule cuts;
    private final long count;
    private final long rate;
    private final long base;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message;
    private final Pollable publisher = this::publish;
    private long startNs = Long.MIN_VALUE;
    /** This reactor's cycles during each resume, or null without cuts. */
    private final ResumeCycles resumeCycles;
    private long channelId;
    private volatile long published;

    /**
     * @param reactor the server's reactor (not yet running)
     * @param store the session's store, possibly holding messages already (a restart)
     * @param count the last message's number
     * @param rate messages per second
     * @param cuts the cuts to make, or null for none
     */
    ReconnectServer(final Reactor reactor, final MoldUDP64MessageStore store, final long count, final long rate,
                    final CutSchedule cuts) {
        this.reactor = reactor;
        this.store = store;
        this.count = count;
        this.rate = rate;
        this.cuts = cuts;
        this.base = store.nextSequence() - 1;
        this.published = base;
        this.message = arena.allocate(ReconnectFeed.LENGTH, 8);
        this.server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions(),
            (user, password, requested) -> USER.equals(user) && PASSWORD.equals(password) ? SoupLoginDecision.accept(
                session()) : SoupLoginDecision.NOT_AUTHORIZED, this);
        this.session = server.addSession(SESSION, store);
        this.resumeCycles = cuts == null ? null : new ResumeCycles(cuts, CutSchedule.SERVER);
        reactor.add(publisher);
    }

    private SoupBinTcpSession session() {
        return session;
    }

    /** Listens; the bound address is {@link #localAddress()} once a duty cycle has run. */
    void listen(final SocketAddress address) {
        server.listen(address);
    }

    SocketAddress localAddress() {
        return server.localAddress();
    }

    String listenFailure() {
        return server.listenFailure();
    }

    /** Messages published so far (the store's last number); safe from any thread. */
    long published() {
        return published;
    }

    private int publish(final long nowNs) {
        if (startNs == Long.MIN_VALUE) {
            startNs = nowNs;
            if (cuts != null) {
                cuts.start(nowNs);
            }
        }
        int work = 0;
        if (resumeCycles != null) {
            resumeCycles.cycle(nowNs);
        }
        if (cuts != null && channelId != 0 && cuts.due(CutSchedule.SERVER, nowNs)) {
            cuts.cut();
            server.abort(channelId);
            work++;
        }
        if (session.isEnded()) {
            return work;
        }
        final long due = Math.min(count, base + (nowNs - startNs) / 1_000 * rate / 1_000_000);
        long next = store.nextSequence();
        final long last = Math.min(due, next + BURST - 1);
        for (; next <= last; next++) {
            ReconnectFeed.put(message, 0, next);
            session.publish(message, 0, ReconnectFeed.LENGTH);
            work++;
        }
        published = next - 1;
        if (next > count) {
            if (cuts != null) {
                cuts.over();
            }
            session.end();
        }
        return work;
    }

    @Override
    public void onUnsequencedData(final long id, final SoupBinTcpSession from, final MemorySegment buffer,
                                  final long offset, final int length) {
        // the client sends none
    }

    @Override
    public void onLoggedIn(final long id, final SoupBinTcpSession into, final String username, final long next) {
        channelId = id;
        final CutHops hops = cuts == null ? null : cuts.hops();
        if (hops != null && cuts.made() > 0) {
            hops.serverLogin(cuts.made() - 1, System.nanoTime());
        }
    }

    @Override
    public void onClosed(final long id, final CloseReason reason, final String detail) {
        if (id == channelId) {
            channelId = 0;
        }
    }

    /** Closes the server and its buffer; the store is the caller's. Reactor thread, or after it ended. */
    void close() {
        server.close();
        reactor.remove(publisher);
        if (resumeCycles != null) {
            resumeCycles.close();
        }
        arena.close();
    }
}
