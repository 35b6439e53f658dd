package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.TestAbortedException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.nothingReceived;
import static dev.peregrine.mold.MoldFixture.receive;
import static dev.peregrine.mold.MoldFixture.unhex;
import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64RequestServerTest {
    private static final String SESSION_HEX = "46454544202020202020"; // "FEED"
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final Reactor reactor = MoldFixture.reactor(clock);
    private final DatagramChannel client = capture();
    private final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 20);
    private final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
        new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100, 5);

    @AfterEach
    void close() throws Exception {
        reactor.close();
        client.close();
        store.close();
    }

    private void request(final String hex) throws IOException {
        client.send(ByteBuffer.wrap(unhex(hex)), server.localAddress());
    }

    private void publish(final int messages, final int length) {
        for (int i = 0; i < messages; i++) {
            final byte[] message = new byte[length];
            if (length > 0) {
                message[0] = (byte)(i + 1);
            }
            store.append(MemorySegment.ofArray(message), 0, length);
        }
    }

    @Test
    void shouldAnswerToRequestSourceWithRequestedMessages() throws IOException {
        publish(5, 1);
        request(SESSION_HEX + "0000000000000002" + "0003");

        assertThat(hex(receive(reactor, client))).isEqualTo(SESSION_HEX + "0000000000000002" + "0003" + "000102" + "000103" + "000104");
        assertThat(server.answers()).isEqualTo(1);
    }

    @Test
    void shouldCapLargeCountToOnePacketOfWholeMessages() throws IOException {
        publish(100, 100);
        request(SESSION_HEX + "0000000000000001" + "ffff");

        final byte[] answer = receive(reactor, client);
        assertThat(answer).hasSize(20 + 14 * 102);
        assertThat(hex(answer).substring(20, 40)).isEqualTo("0000000000000001" + "000e");
        assertThat(nothingReceived(reactor, client)).as("one packet per request").isTrue();
    }

    @Test
    void shouldIgnoreOtherSessionsMalformedAndUnavailableRequests() throws IOException {
        publish(3, 1);
        request("4f544845522020202020" + "0000000000000001" + "0001");
        request(SESSION_HEX + "0000000000000001" + "0001" + "00");
        request(SESSION_HEX + "0000000000000001");
        request(SESSION_HEX + "0000000000000000" + "0001");
        request(SESSION_HEX + "0000000000000001" + "0000");
        request(SESSION_HEX + "0000000000000004" + "0001");
        request(SESSION_HEX + "8000000000000000" + "0001");

        assertThat(nothingReceived(reactor, client)).isTrue();
        assertThat(server.requests()).isEqualTo(7);
        assertThat(server.otherSession()).isEqualTo(1);
        assertThat(server.malformed()).isEqualTo(5);
        assertThat(server.unavailable()).isEqualTo(1);
        assertThat(server.answers()).isZero();
    }

    @Test
    void shouldRateLimitAnswersPerSourceDeferringTheRestAndMergingRepeats() throws IOException {
        publish(3, 1);
        for (int i = 0; i < 20; i++) {
            request(SESSION_HEX + "0000000000000001" + "0001");
        }
        MoldFixture.spinUntil(reactor, () -> server.requests() == 20, 5);

        assertThat(server.answers()).isEqualTo(5);
        assertThat(server.deferred()).as("the first over the budget waits").isEqualTo(1);
        assertThat(server.merged()).as("the same range again from the same source").isEqualTo(14);
        assertThat(server.rateLimited()).isZero();
        clock.now += 10_000_000L; // one emission interval at 100 per second: the waiting one is answered
        MoldFixture.spinUntil(reactor, () -> server.answers() == 6, 5);
        assertThat(server.waiting()).isZero();
    }

    /**
     * A datagram may come from source port 0 (forged, or a raw socket); the JDK refuses to send the answer there, and
     * each such request reported an error with its stack trace. The fixture's error handler fails the test on one.
     */
    @Test
    void shouldDropARequestFromSourcePortZeroAsMalformedWithoutReportingAnError() {
        publish(3, 1);
        final byte[] request = unhex(SESSION_HEX + "0000000000000001" + "0001");

        final int answered = server.onRequest(MemorySegment.ofArray(request), 0, request.length,
            MoldFixture.loopback(0), clock.now);

        assertThat(answered).isZero();
        assertThat(server.malformed()).isEqualTo(1);
        assertThat(server.answers()).isZero();
        assertThat(server.rateLimited()).isZero();
    }

    /** Keyed on address and port, one host took a budget per source port: 2000 ports pulled 4719 answers in a burst. */
    @Test
    void shouldShareOneRateBudgetAmongAllThePortsOfOneHost() throws IOException {
        publish(3, 1);
        final List<DatagramChannel> ports = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                final DatagramChannel port = capture();
                ports.add(port);
                port.send(ByteBuffer.wrap(unhex(SESSION_HEX + "0000000000000001" + "0001")), server.localAddress());
            }
            MoldFixture.spinUntil(reactor, () -> server.requests() == 20, 5);

            assertThat(server.answers()).as("one burst for the host, whatever its ports").isEqualTo(5);
            assertThat(server.deferred()).as("the rest wait for the host's budget").isEqualTo(15);
            assertThat(server.rateLimited()).isZero();
        } finally {
            for (final DatagramChannel port : ports) {
                port.close();
            }
        }
    }

    /**
     * Keyed on the sum of address and port, (ip + 1, port - 1) had the budget of (ip, port): a host could use up the
     * answers of a listener it chose.
     */
    @Test
    void shouldNotShareARateBudgetWithANeighbouringHostWhoseAddressAndPortAddUpTheSame() throws IOException {
        publish(3, 1);
        final InetSocketAddress clientSource = (InetSocketAddress)client.getLocalAddress();
        InetAddress neighbour = InetAddress.getByName("127.0.0.2"); // all of 127/8 is the loopback interface
        // the buckets are keyed at random: one neighbour in 1024 shares the client's by chance, so take another then
        for (int last = 3; server.rateSlot(new InetSocketAddress(neighbour, 1)) == server.rateSlot(clientSource); last++) {
            neighbour = InetAddress.getByName("127.0.0." + last);
        }
        try (DatagramChannel other = neighbourOf(client, neighbour)) {
            final InetSocketAddress clientAddress = (InetSocketAddress)client.getLocalAddress();
            final InetSocketAddress otherAddress = (InetSocketAddress)other.getLocalAddress();
            assertThat(otherAddress.hashCode()).as("the old key").isEqualTo(clientAddress.hashCode());

            for (int i = 0; i < 5; i++) {
                other.send(ByteBuffer.wrap(unhex(SESSION_HEX + "0000000000000001" + "0001")), server.localAddress());
            }
            MoldFixture.spinUntil(reactor, () -> server.requests() == 5, 5);
            assertThat(server.answers()).as("the neighbour's whole burst").isEqualTo(5);
            request(SESSION_HEX + "0000000000000001" + "0001");
            MoldFixture.spinUntil(reactor, () -> server.requests() == 6, 5);

            assertThat(server.deferred()).as("the client's budget is its own").isZero();
            assertThat(hex(receive(reactor, client))).isEqualTo(SESSION_HEX + "0000000000000001" + "0001" + "000101");
        }
    }

    /** A socket on {@code address} whose port is one below the client's: its address plus port add up to the client's. */
    private static DatagramChannel neighbourOf(final DatagramChannel client, final InetAddress address) throws IOException {
        final InetSocketAddress clientAddress = (InetSocketAddress)client.getLocalAddress();
        assertThat(clientAddress.getAddress().getAddress()[3]).isEqualTo((byte)1);
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            channel.bind(new InetSocketAddress(address, clientAddress.getPort() - 1));
        } catch (final IOException ex) {
            channel.close();
            throw new TestAbortedException("port " + (clientAddress.getPort() - 1) + " on " + address + " is taken", ex);
        }
        return channel;
    }

    @Test
    void shouldAnswerWithWhatItStillHasWhenTheRequestStartsBeforeTheStore() throws IOException {
        try (MoldUDP64MessageStore small = MoldUDP64MessageStore.inMemory("FEED", 4, 1 << 20)) {
            final MoldUDP64RequestServer smallServer = new MoldUDP64RequestServer(reactor, small,
                new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100, 5);
            for (int i = 1; i <= 6; i++) {
                small.append(MemorySegment.ofArray(new byte[] {(byte)i}), 0, 1); // keeps 3 to 6
            }
            client.send(ByteBuffer.wrap(unhex(SESSION_HEX + "0000000000000001" + "0004")), smallServer.localAddress());
            assertThat(hex(receive(reactor, client))).isEqualTo(SESSION_HEX + "0000000000000003" + "0002" + "000103" + "000104");
            client.send(ByteBuffer.wrap(unhex(SESSION_HEX + "0000000000000001" + "0002")), smallServer.localAddress());

            assertThat(nothingReceived(reactor, client)).as("none of it is kept").isTrue();
            assertThat(smallServer.forgotten()).isEqualTo(2);
            assertThat(smallServer.unavailable()).isEqualTo(1);
            assertThat(smallServer.answers()).isEqualTo(1);
        }
    }

    @Test
    void shouldServeEveryQueuedRequestInOneCycle() throws IOException {
        final MoldUDP64RequestServer busy = new MoldUDP64RequestServer(reactor, store,
            new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000_000, 1000);
        publish(20, 1);
        for (int i = 1; i <= 20; i++) {
            client.send(ByteBuffer.wrap(unhex(SESSION_HEX + String.format("%016x", i) + "0001")), busy.localAddress());
        }
        for (int i = 0; i < 1_000_000 && busy.requests() == 0; i++) {
            reactor.doWork();
        }

        assertThat(busy.requests()).as("the first cycle that sees a request serves them all").isEqualTo(20);
        assertThat(busy.answers()).isEqualTo(20);
    }
}
