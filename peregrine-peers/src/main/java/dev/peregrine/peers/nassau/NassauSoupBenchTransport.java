package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.SoupBenchScenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * Nassau 1.0.0's SoupBinTCP ({@code com.paritytrading.nassau.soupbintcp}) as the peer of {@code peregrine-soup}, in
 * the scenario of {@link SoupBenchScenario}. Nassau's {@code SoupBinTCPServer} and {@code SoupBinTCPClient} each
 * handle one connection they are handed, leave {@code receive()} and {@code keepAlive()} to the caller, and keep no
 * store; the rest is written here the way Nassau's own SoupBinTCP perf test does it:
 * <ul>
 *   <li>non-blocking {@code SocketChannel}s with {@code TCP_NODELAY}, busy-polled with {@code receive()} (one
 *       connection) or through a {@code Selector} polled with {@code selectNow} (the responder, any number of
 *       connections, plus the accepting channel); {@code keepAlive()} every 1024 turns of each loop;</li>
 *   <li>ping-pong: the responder keeps a sequence counter per user (one session per user, OUCH-like) and answers
 *       each Unsequenced Data ping with {@code send()}, a Sequenced Data packet, at once; a login is accepted from
 *       the session's next sequence number (or {@code 0}); there is nothing to replay, as the scenario never
 *       reconnects;</li>
 *   <li>stream: the sender accepts the receiver's connection and login, then {@code send()}s each message, which
 *       Nassau writes to the socket at once (its send loops until the kernel has taken the packet), within the
 *       credit window; the receiver counts sequence numbers from Login Accepted and checks each against the bench
 *       sequence the message carries.</li>
 * </ul>
 * Both sides busy-poll whatever {@link BenchConfig#busySpin()} says: that is how Nassau's loops are written.
 */
public final class NassauSoupBenchTransport implements BenchTransport {
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    /** Turns of a loop between two {@code keepAlive()} calls. */
    static final int KEEP_ALIVE_EVERY = 1024;

    /** Creates the adapter (service loader). */
    public NassauSoupBenchTransport() {
    }

    @Override
    public String name() {
        return "nassau-soup";
    }

    @Override
    public String description() {
        return "Nassau 1.0.0 SoupBinTCP: SoupBinTCPServer/SoupBinTCPClient on non-blocking SocketChannels (TCP_NODELAY),"
            + " busy-polled receive() (responder: a Selector polled with selectNow), keepAlive() every 1024 turns; ping ="
            + " Unsequenced Data answered with send() of a Sequenced Data packet on the client's own session (a sequence"
            + " counter per user); stream = send() per message within the credit window, sequence numbers checked";
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
        return NassauSoupResponder.start(config);
    }

    @Override
    public PingClient connect(final BenchConfig config) throws Exception {
        return new NassauSoupPingClient(config);
    }

    @Override
    public boolean sharedResponder() {
        return true; // one selector thread serves every connection
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
    public StreamReceiver startStreamReceiver(final BenchConfig config) {
        return new NassauSoupStreamReceiver(config);
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) throws Exception {
        return new NassauSoupStreamSender(config);
    }

    /**
     * The largest payload Nassau's receive buffer takes: SoupBinTCP's largest, so that a reply of another size than
     * configured reaches the client's length check instead of failing Nassau's parser.
     */
    static int maxPayload(final BenchConfig config) {
        return 65_534;
    }

    static InetSocketAddress address(final BenchConfig config) {
        return new InetSocketAddress(config.host(), config.port());
    }

    static void configure(final SocketChannel channel) throws IOException {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }
}
