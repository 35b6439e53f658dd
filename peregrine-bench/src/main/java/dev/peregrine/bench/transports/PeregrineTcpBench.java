package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.reactor.BlockingSelectIdleStrategy;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Peregrine's own TCP transport in the benchmark: {@link dev.peregrine.tcp.TcpTransport} on a reactor,
 * frames with a 4-byte big-endian length. The responder runs a reactor on its own thread; the client
 * drives its reactor itself inside {@code poll()} (no second thread, so no hand-off), and sends through
 * the zero-copy claim/commit path. When the run busy-spins, both sides read by polling
 * ({@link TcpOptions#readPolling(boolean)}) and consult the selector only every
 * {@value #BUSY_SPIN_SELECT_INTERVAL} cycles: one read syscall per idle cycle, as a hand-written C loop does.
 */
public final class PeregrineTcpBench implements BenchTransport, BlockingClients {
    /** The framing on the wire: a 4-byte big-endian length before each message. */
    static final Framing FRAMING = Framing.lengthPrefixed(4, ByteOrder.BIG_ENDIAN, false);

    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public PeregrineTcpBench() {
    }

    @Override
    public String name() {
        return "peregrine-tcp";
    }

    @Override
    public String description() {
        return "Peregrine TcpTransport on a Reactor (off-heap buffers), frames [int32 BE length][payload], TCP_NODELAY; "
            + "client sends with tryClaim/commit and drives its reactor inside poll(); responder reactor on its own thread "
            + "echoing with send() (a reply of another size with tryClaim/commit, the sequence copied); with busy-spin both sides read by polling (TcpOptions.readPolling: a non-blocking read "
            + "per cycle, no epoll_wait) and select only every " + BUSY_SPIN_SELECT_INTERVAL + " cycles (accept, connect, "
            + "OP_WRITE), otherwise selectNow with a consumer every cycle and, idle, a blocking select woken by readiness";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        return PeregrineTcpResponder.start(config);
    }

    @Override
    public Responder startSharedResponder(final BenchConfig config) throws Exception {
        return PeregrineTcpResponder.start(config, true);
    }

    @Override
    public PingClient connect(final BenchConfig config) throws Exception {
        return new PeregrineTcpPingClient(config);
    }

    @Override
    public List<PingClient> connectAll(final BenchConfig config, final int count) throws Exception {
        return PeregrineTcpClientGroup.connect(config, count); // one reactor drives every client's connection
    }

    @Override
    public boolean sharedResponder() {
        return true; // one reactor thread serves every connection
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    @Override
    public boolean supportsRespondEvery() {
        return true;
    }

    @Override
    public boolean supportsStream() {
        return true;
    }

    @Override
    public StreamReceiver startStreamReceiver(final BenchConfig config) throws Exception {
        return new PeregrineTcpStreamReceiver(config);
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) throws Exception {
        return new PeregrineTcpStreamSender(config);
    }

    /**
     * A ping-pong client that waits for each echo asleep in a blocking select on its socket: its reactor's options
     * are those of a run without busy-spin (readiness through the selector every cycle, {@link
     * BlockingSelectIdleStrategy}), whatever the run's; the responder keeps the run's.
     */
    @Override
    public BlockingClients.Client connectBlocking(final BenchConfig config) throws Exception {
        return new PeregrineTcpPingClient(new BenchConfig(config.host(), config.port(), config.size(),
            config.directory(), false, config.replySize(), config.respondEvery()), true);
    }

    /** Selector consulted every this many cycles when busy-spinning: only for connect, accept and OP_WRITE. */
    static final int BUSY_SPIN_SELECT_INTERVAL = 64;

    static TcpOptions options(final BenchConfig config) {
        return options(config, false);
    }

    /**
     * The TCP options of a side with one connection, or of one serving many ({@code manyConnections}).
     * Busy-spinning with one connection, each cycle reads it (no epoll_wait between a segment and its read);
     * with many, a read per connection per cycle costs more than one epoll_wait that names the ready ones,
     * so such a side reads what the selector, consulted every cycle, says is ready, as an NIO server does.
     */
    static TcpOptions options(final BenchConfig config, final boolean manyConnections) {
        // both sides receive frames of either size (messages one way, replies the other)
        return new TcpOptions().readPolling(config.busySpin() && !manyConnections).framing(FRAMING)
            .maxFrameLength(Math.max(config.largest(), 64))
            .receiveBufferSize(256 * 1024).outboundBufferSize(Math.max(1024 * 1024, 4 * config.largest()));
    }

    static ReactorOptions reactorOptions(final BenchConfig config, final String name) {
        return reactorOptions(config, name, false);
    }

    /** The reactor options that go with {@link #options(BenchConfig, boolean)}. */
    static ReactorOptions reactorOptions(final BenchConfig config, final String name, final boolean manyConnections) {
        return new ReactorOptions().name(name).idleStrategy(idleStrategy(config))
            .selectInterval(config.busySpin() && !manyConnections ? BUSY_SPIN_SELECT_INTERVAL : 1);
    }

    /**
     * Busy-spin, or else sleep in the selector: a reactor that is woken by readiness answers at once, where
     * a back-off would answer only when its park ends (hundreds of microseconds at low rates).
     */
    static IdleStrategy idleStrategy(final BenchConfig config) {
        return config.busySpin() ? new BusySpinIdleStrategy() : new BlockingSelectIdleStrategy();
    }

    static InetSocketAddress address(final BenchConfig config) {
        return new InetSocketAddress(config.host(), config.port());
    }
}
