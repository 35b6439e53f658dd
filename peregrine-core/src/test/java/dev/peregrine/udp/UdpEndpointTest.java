package dev.peregrine.udp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /** The JDK decodes a sender's address anew only when it changes: the count that bounds what that allocates. */
    @Test
    void shouldCountTheDatagramsWhoseSenderDiffersFromThePreviousOnes() {
        final List<Integer> senders = new ArrayList<>();
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> senders.add(sender.getPort()));
        final UdpEndpoint a = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(server.localAddress()), (endpoint, buffer, offset, length, sender, nowNs) -> { });
        final UdpEndpoint b = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(server.localAddress()), (endpoint, buffer, offset, length, sender, nowNs) -> { });
        final MemorySegment message = Arena.ofAuto().allocate(8);
        final UdpEndpoint[] order = {a, a, b, b, a};
        for (final UdpEndpoint from : order) { // one at a time, each received before the next is sent
            final int before = senders.size();
            assertThat(from.send(message, 0, 8)).isEqualTo(8);
            spinUntil(() -> senders.size() == before + 1);
        }

        final int portA = a.localAddress().getPort();
        final int portB = b.localAddress().getPort();
        assertThat(senders).containsExactly(portA, portA, portB, portB, portA);
        assertThat(server.senderAddressChanges()).as("a, then b, then a again").isEqualTo(3);
        assertThat(a.senderAddressChanges()).isZero();
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

    @ParameterizedTest(name = "connectedReadWrite={0}")
    @ValueSource(booleans = {false, true})
    void shouldDropDatagramLargerThanBufferAsTruncated(final boolean connectedReadWrite) {
        final List<Integer> lengths = new ArrayList<>();
        final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> { });
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(client.localAddress()).connectedReadWrite(connectedReadWrite).datagramBuffer(64),
            (endpoint, buffer, offset, length, sender, nowNs) -> lengths.add(length));
        final MemorySegment message = Arena.ofAuto().allocate(1000);

        client.sendTo(message, 0, 1000, server.localAddress());
        client.sendTo(message, 0, 10, server.localAddress());
        spinUntil(() -> lengths.size() == 1);

        assertThat(lengths).containsExactly(10);
        assertThat(server.truncated()).isEqualTo(1);
        assertThat(server.send(message, 0, 70_000)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
    }

    /** The reactor keeps the process-wide counters (on unless -Dperegrine.counters=off), so this is with counters on. */
    @ParameterizedTest(name = "connectedReadWrite={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 150, unit = TimeUnit.SECONDS) // up to five sets after the warm-up, on a loaded machine
    void shouldReceiveAndSendWithoutAllocatingInSteadyState(final boolean connectedReadWrite) {
        final long[] received = new long[1];
        final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .busyPoll(true), (endpoint, buffer, offset, length, sender, nowNs) -> received[0]++);
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(client.localAddress()).connectedReadWrite(connectedReadWrite).busyPoll(true),
            (endpoint, buffer, offset, length, sender, nowNs) -> {
                received[0]++;
                endpoint.sendTo(buffer, offset, length, sender); // the connected peer: write(2) with connectedReadWrite
            });
        final InetSocketAddress serverAddress = server.localAddress();
        final MemorySegment message = Arena.ofAuto().allocate(256);

        final long[] roundTrips = {0};
        final Runnable roundTrip = () -> {
            roundTrips[0]++;
            final long target = received[0] + 2;
            client.sendTo(message, 0, 256, serverAddress);
            for (int i = 0; i < 1_000_000 && received[0] < target; i++) {
                reactor.doWork();
            }
        };
        // zero tolerance in the first of at most five sets of ten windows that is clean: what an earlier set shows
        // is code not yet compiled or deoptimised once; anything allocated once per set (50 000 round trips) fails
        final long allocated = AllocationMeter.firstCleanSet(20_000, 5_000, 10, 5, roundTrip).totalBytes();

        assertThat(received[0]).isEqualTo(2L * roundTrips[0]);
        assertThat(allocated).isZero();
    }

    @Test
    void shouldReadOnlyFromConnectedPeerAndHandPeerAsSender() {
        final List<InetSocketAddress> senders = new ArrayList<>();
        final List<Integer> echoes = new ArrayList<>();
        final UdpEndpoint peer = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> echoes.add(sender.getPort()));
        final UdpEndpoint stranger = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
            (endpoint, buffer, offset, length, sender, nowNs) -> { });
        final UdpEndpoint connected = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .remoteAddress(peer.localAddress()).connectedReadWrite(true).busyPoll(true),
            (endpoint, buffer, offset, length, sender, nowNs) -> {
                senders.add(sender);
                endpoint.sendTo(buffer, offset, length, sender);
            });
        final MemorySegment message = Arena.ofAuto().allocate(32);

        stranger.sendTo(message, 0, 32, connected.localAddress()); // the kernel drops it: not from the connected peer
        peer.sendTo(message, 0, 32, connected.localAddress());
        spinUntil(() -> echoes.size() == 1);

        assertThat(senders).hasSize(1);
        assertThat(senders.get(0)).isSameAs(connected.remoteAddress());
        assertThat(echoes).containsExactly(connected.localAddress().getPort());
        assertThat(connected.datagramsReceived()).isEqualTo(1);
        assertThat(connected.datagramsSent()).isEqualTo(1);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> UdpEndpoint.open(reactor,
            new UdpOptions().connectedReadWrite(true), (endpoint, buffer, offset, length, sender, nowNs) -> { }))
            .withMessageContaining("connectedReadWrite=true remoteAddress=null");
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS) // up to five sets after the warm-up, on a loaded machine
    void reactorCycleAllocatesNothing() {
        final UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
            .busyPoll(true), (endpoint, buffer, offset, length, sender, nowNs) -> { });
        assertThat(server.localAddress().getPort()).isPositive();
        assertThat(AllocationMeter.firstCleanSet(20_000, 20_000, 10, 5, reactor::doWork).totalBytes()).isZero();
    }

    private void spinUntil(final java.util.function.BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        assertThat(condition.getAsBoolean()).as("condition met within 10 s").isTrue();
    }
}
