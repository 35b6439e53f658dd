package dev.peregrine.udp;

import dev.peregrine.testkit.Needs;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.Ipv6Loopback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An endpoint given only an IPv6 peer binds the IPv6 wildcard by itself: before, its default local address was the
 * IPv4 wildcard, and opening it failed (UnsupportedAddressTypeException, or a socket that could not reach the peer).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UdpEndpointIpv6Test {
    private static final InetAddress IPV6_LOOPBACK = Ipv6Loopback.ADDRESS;
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy())
        .errorHandler(error -> {
            throw new AssertionError("unexpected error reported to the reactor", error);
        }));

    @BeforeAll
    static void requireIpv6Loopback() {
        Needs.configuration("IPv6 loopback", Ipv6Loopback.usable(), "no ::1 on this machine: the IPv6 default address is untested");
    }

    @AfterEach
    void closeReactor() {
        reactor.close();
    }

    @Test
    void shouldExchangeDatagramsOverIpv6LoopbackWhenOnlyTheRemoteAddressIsSet() {
        final List<String> atServer = new ArrayList<>();
        final List<String> atClient = new ArrayList<>();
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(IPV6_LOOPBACK, 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> {
                atServer.add(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) + " from " + sender);
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, 2L);
                assertThat(endpoint.sendTo(buffer, offset, length, sender)).isEqualTo(length);
            });
        final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().remoteAddress(server.localAddress()),
            (endpoint, buffer, offset, length, sender, nowNs) ->
                atClient.add(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) + " from " + sender));
        final MemorySegment message = Arena.ofAuto().allocate(8);
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1L);

        assertThat(client.localAddress().getAddress()).isInstanceOf(Inet6Address.class);
        assertThat(client.send(message, 0, 8)).isEqualTo(8);
        spinUntil(() -> atClient.size() == 1);

        assertThat(atServer).containsExactly("1 from " + new InetSocketAddress(IPV6_LOOPBACK, client.localAddress().getPort()));
        assertThat(atClient).containsExactly("2 from " + server.localAddress());
    }

    @Test
    void shouldBindTheIpv6WildcardForAnUnconnectedSocketGivenAnIpv6Peer() {
        final List<String> atServer = new ArrayList<>();
        final List<String> atSender = new ArrayList<>();
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(IPV6_LOOPBACK, 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> {
                atServer.add(length + " bytes");
                assertThat(endpoint.sendTo(buffer, offset, length, sender)).isEqualTo(length);
            });
        final UdpEndpoint sender = UdpEndpoint.open(reactor, new UdpOptions(), IPV6_LOOPBACK,
            (endpoint, buffer, offset, length, from, nowNs) -> atSender.add(length + " bytes from " + from));
        final MemorySegment message = Arena.ofAuto().allocate(16);

        assertThat(sender.localAddress().getAddress()).isInstanceOf(Inet6Address.class);
        assertThat(sender.sendTo(message, 0, 16, server.localAddress())).isEqualTo(16);
        spinUntil(() -> atSender.size() == 1);

        assertThat(atServer).containsExactly("16 bytes");
        assertThat(atSender).containsExactly("16 bytes from " + server.localAddress());
    }

    @Test
    void shouldKeepTheIpv4WildcardForAnIpv4Peer() {
        final UdpEndpoint server = UdpEndpoint.open(reactor,
            new UdpOptions().localAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> { });
        final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().remoteAddress(server.localAddress()),
            (endpoint, buffer, offset, length, sender, nowNs) -> { });

        assertThat(client.localAddress().getAddress().getAddress()).hasSize(4);
    }

    private void spinUntil(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        assertThat(condition.getAsBoolean()).as("condition met within 10 s").isTrue();
    }
}
