package dev.peregrine.udp;

import dev.peregrine.testkit.Needs;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A send that cannot go answers with the {@link SendResult} that says why, on the JDK's socket and on the native
 * one, never with an exception, and never with NOT_CONNECTED for a datagram that is merely too long; an address
 * that cannot be bound is refused up front.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UdpSendOutcomeTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<Throwable> errors = new ArrayList<>();
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy())
        .errorHandler(errors::add));

    @AfterEach
    void closeReactor() {
        reactor.close();
    }

    private UdpEndpoint open(final UdpOptions options) {
        return UdpEndpoint.open(reactor, options, (endpoint, buffer, offset, length, sender, nowNs) -> { });
    }

    private static InetSocketAddress freePort() throws SocketException {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            return (InetSocketAddress)socket.getLocalSocketAddress();
        }
    }

    @Test
    void shouldAnswerNotConnectedToASendWithoutATargetOnAnUnconnectedEndpoint() {
        final UdpEndpoint endpoint = open(new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)));
        final MemorySegment message = Arena.ofAuto().allocate(16);

        assertThat(endpoint.send(message, 0, 16)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(endpoint.sendPrepared(16, null)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(endpoint.sendTo(message, 0, 16, null)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(endpoint.sendSegmented(10, 10, null)).isEqualTo((int)SendResult.NOT_CONNECTED);
        assertThat(endpoint.sendSegmented(20, 10, null)).isEqualTo((int)SendResult.NOT_CONNECTED);
        assertThat(endpoint.isClosed()).isFalse();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldAnswerMessageTooLargeToADatagramLongerThanUdpCarriesOverIpv4() throws Exception {
        final UdpEndpoint endpoint = open(new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(freePort()));
        final MemorySegment message = Arena.ofAuto().allocate(65_536);
        assertThat(endpoint.maxDatagramLength()).isGreaterThan(UdpEndpoint.MAX_UDP_PAYLOAD_IPV4);

        assertThat(endpoint.send(message, 0, UdpEndpoint.MAX_UDP_PAYLOAD_IPV4 + 1)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
        assertThat(endpoint.sendPrepared(UdpEndpoint.MAX_UDP_PAYLOAD_IPV4 + 1, null)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
        assertThat(endpoint.sendSegmented(65_536, UdpEndpoint.MAX_UDP_PAYLOAD_IPV4 + 2, null))
            .isEqualTo((int)SendResult.MESSAGE_TOO_LARGE);
        assertThat(endpoint.send(message, 0, UdpEndpoint.MAX_UDP_PAYLOAD_IPV4)).as("the longest that goes")
            .isEqualTo(UdpEndpoint.MAX_UDP_PAYLOAD_IPV4);
        assertThat(endpoint.sendErrors()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldAnswerMessageTooLargeOnTheNativeSocketToo() throws Exception {
        Needs.platform("the native UDP socket", UdpEndpoint::nativeSocketUnavailableReason);
        final UdpEndpoint endpoint = open(new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(freePort()).busyPoll(true).connectedReadWrite(true).nativeSocket(true));
        assertThat(endpoint.isNativeSocket()).isTrue();

        assertThat(endpoint.sendPrepared(UdpEndpoint.MAX_UDP_PAYLOAD_IPV4 + 1, null)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
        assertThat(endpoint.sendSegmented(65_536, UdpEndpoint.MAX_UDP_PAYLOAD_IPV4 + 2, null))
            .isEqualTo((int)SendResult.MESSAGE_TOO_LARGE);
        assertThat(endpoint.sendErrors()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldRefuseAnUnresolvedLocalAddressRatherThanBindEveryInterface() {
        assertThatThrownBy(() -> new UdpOptions().localAddress(InetSocketAddress.createUnresolved("localhost", 0)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
    }
}
