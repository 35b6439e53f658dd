package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.SoupBenchScenario;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.soup.SoupBinTcpClientOptions;
import dev.peregrine.tcp.TcpOptions;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Peregrine's SoupBinTCP ({@link dev.peregrine.soup}) in the benchmark, the scenario of {@link SoupBenchScenario}:
 * <ul>
 *   <li>Ping-pong: the client sends each ping as Unsequenced Data; the responder, a
 *       {@link dev.peregrine.soup.SoupBinTcpServer} on a reactor thread of its own, publishes the answer on the
 *       client's own session (one per user, made at its first login), which writes it at once to that caught-up
 *       client as Sequenced Data. Any number of clients on one responder.</li>
 *   <li>Stream: the sender is the server, publishing on one session from the sending thread (its reactor driven
 *       there); the receiver is a {@link dev.peregrine.soup.SoupBinTcpClient} that logs in from sequence 1,
 *       checks that each message's SoupBinTCP sequence number matches the bench sequence it carries, and returns
 *       credits.</li>
 * </ul>
 * TCP settings as {@code peregrine-tcp}'s (polled reads when busy-spinning); heartbeats and timeouts as the spec
 * and Nassau have them (1 s, 15 s).
 */
public final class PeregrineSoupBench implements BenchTransport {
    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public PeregrineSoupBench() {
    }

    @Override
    public String name() {
        return "peregrine-soup";
    }

    @Override
    public String description() {
        return "Peregrine SoupBinTCP 3.00 server and client on reactors (TcpTransport underneath, as peregrine-tcp); "
            + "ping = Unsequenced Data, answered by a Sequenced Data message published on the client's own session "
            + "(OUCH-like, one session per user); stream = Sequenced Data from the server's store to a client logged in "
            + "from 1, each sequence number checked, credits back every quarter window";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        return SoupBenchScenario.unavailableReason(config);
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        return PeregrineSoupResponder.start(config);
    }

    @Override
    public PingClient connect(final BenchConfig config) throws Exception {
        return new PeregrineSoupPingClient(config);
    }

    @Override
    public boolean sharedResponder() {
        return true; // one server reactor serves every client, each on its own session
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
        return new PeregrineSoupStreamReceiver(config);
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) throws Exception {
        return new PeregrineSoupStreamSender(config);
    }

    /** The TCP options of either side: {@code peregrine-tcp}'s (the SoupBinTCP classes set the framing). */
    static TcpOptions tcp(final BenchConfig config) {
        return PeregrineTcpBench.options(config);
    }

    static ReactorOptions reactorOptions(final BenchConfig config, final String name) {
        return PeregrineTcpBench.reactorOptions(config, name);
    }

    /** A client's options: the responder's address, the first retry at once, then 1 ms doubling up to 50 ms. */
    static SoupBinTcpClientOptions clientOptions(final BenchConfig config, final String username, final String session) {
        return new SoupBinTcpClientOptions().addresses(address(config)).credentials(username, SoupBenchScenario.PASSWORD)
            .session(session).fromSequence(1).tcp(tcp(config)).backoff(1, 50, TimeUnit.MILLISECONDS);
    }

    static InetSocketAddress address(final BenchConfig config) {
        return new InetSocketAddress(config.host(), config.port());
    }
}
