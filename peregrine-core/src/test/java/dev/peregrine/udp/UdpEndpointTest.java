package dev.peregrine.udp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testing.AllocationMeter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UdpEndpointTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()));

    @AfterEach
    void closeReactor() {
        reactor.close();
    }

    @Test
    void shouldDeliverDatagramWithSenderAddress() {
        final List<String> received = new ArrayList<>();
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> received.add(length + " from " + sender.getPort()));
        final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(server.localAddress()), (endpoint, buffer, offset, length, sender, nowNs) -> { });
        final MemorySegment message = Arena.ofAuto().allocate(100);

        assertThat(client.send(message, 0, 100)).isEqualTo(100);
        assertThat(client.send(message, 0, 1)).isEqualTo(1);
        spinUntil(() -> received.size() == 2);

        assertThat(received).containsExactly("100 from " + client.localAddress().getPort(), "1 from " + client.localAddress().getPort());
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> client.send(message, 0, 0))
            .withMessageContaining("length=0");
    }

    @Test
    void shouldEchoThroughTransportWithChannelHandlerEvents() {
        final List<String> events = new ArrayList<>();
        final UdpTransport[] holder = new UdpTransport[1];
        final ChannelHandler handler = new ChannelHandler() {
            @Override
            public void onListening(final long serverId, final SocketAddress localAddress) {
                events.add("listening " + serverId);
            }

            @Override
            public void onConnected(final long channelId, final SocketAddress remoteAddress) {
                events.add("connected " + channelId);
            }

            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                events.add("message " + channelId + " " + buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
                if (channelId == 1) {
                    holder[0].send(channelId, buffer, offset, length); // echo to the last sender
                }
            }

            @Override
            public void onClosed(final long channelId, final CloseReason reason, final String detail) {
                events.add("closed " + channelId + " " + reason);
            }
        };
        final UdpTransport transport = new UdpTransport(reactor, new UdpOptions(), handler);
        holder[0] = transport;
        final long server = transport.listen(new InetSocketAddress(LOOPBACK, 0));
        final long client = transport.connect(transport.endpoint(server).localAddress());
        final MemorySegment message = Arena.ofAuto().allocate(16);
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42L);

        assertThat(transport.send(server, message, 0, 16)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(transport.send(client, message, 0, 16)).isZero();
        spinUntil(() -> events.size() == 4);
        transport.close();

        assertThat(events).containsExactly("listening 1", "connected 2", "message 1 42", "message 2 42", "closed 1 LOCAL", "closed 2 LOCAL");
    }

    @Test
    void shouldDropDatagramLargerThanBufferAsTruncated() {
        final List<Integer> lengths = new ArrayList<>();
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .datagramBuffer(64), (endpoint, buffer, offset, length, sender, nowNs) -> lengths.add(length));
        final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().remoteAddress(server.localAddress()),
            (endpoint, buffer, offset, length, sender, nowNs) -> { });
        final MemorySegment message = Arena.ofAuto().allocate(1000);

        client.send(message, 0, 1000);
        client.send(message, 0, 10);
        spinUntil(() -> lengths.size() == 1);

        assertThat(lengths).containsExactly(10);
        assertThat(server.truncated()).isEqualTo(1);
        assertThat(client.send(message, 0, 70_000)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
    }

    @Test
    void shouldReceiveAndSendWithoutAllocatingInSteadyState() {
        final long[] received = new long[1];
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .busyPoll(true), (endpoint, buffer, offset, length, sender, nowNs) -> {
                received[0]++;
                endpoint.sendTo(buffer, offset, length, sender);
            });
        final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().remoteAddress(server.localAddress())
            .busyPoll(true), (endpoint, buffer, offset, length, sender, nowNs) -> received[0]++);
        final MemorySegment message = Arena.ofAuto().allocate(256);

        final long allocated = AllocationMeter.quietestWindowBytes(20_000, 5_000, 10, () -> {
            final long target = received[0] + 2;
            client.send(message, 0, 256);
            for (int i = 0; i < 1_000_000 && received[0] < target; i++) {
                reactor.doWork();
            }
        });

        assertThat(received[0]).isGreaterThanOrEqualTo(50_000).isEven(); // two deliveries per round trip
        assertThat(allocated).isZero();
    }

    @Test
    void reactorCycleAllocatesNothing() {
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .busyPoll(true), (endpoint, buffer, offset, length, sender, nowNs) -> { });
        assertThat(server.localAddress().getPort()).isPositive();
        assertThat(AllocationMeter.quietestWindowBytes(20_000, 20_000, 10, reactor::doWork)).isZero();
    }

    private void spinUntil(final java.util.function.BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        assertThat(condition.getAsBoolean()).as("condition met within 10 s").isTrue();
    }
}
