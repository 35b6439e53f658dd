package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Slots, servers and streams survive what handlers, the application and the system throw at them: a handler
 * that closes its own channel and then throws gives the slot back, a claim left open past its duty cycle is
 * refused loudly without corrupting anything, and an accepted connection that cannot be registered is
 * closed alone while its server goes on listening. A handler that calls back into a transport that is closing
 * (to reconnect, or to close it again) is refused without harm.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpReliabilityTest {
    private static final int MAX_CONNECTIONS = 2;

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldFreeTheSlotWhenAHandlerClosesItsOwnChannelAndThenThrows(final boolean readPolling) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final ChannelHandler closeThenThrow = (channelId, buffer, offset, length) -> {
            transport[0].close(channelId);
            throw new IllegalStateException("handler fails after closing its channel");
        };
        final TcpOptions options = new TcpOptions().readPolling(readPolling).maxConnections(MAX_CONNECTIONS);
        try (TcpTestRig rig = new TcpTestRig(options, closeThenThrow)) {
            transport[0] = rig.transport;
            final InetSocketAddress address = rig.listen();
            final int rounds = 3 * MAX_CONNECTIONS;
            for (int round = 1; round <= rounds; round++) {
                try (Socket peer = new Socket()) {
                    peer.connect(address);
                    final int accepted = round;
                    rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == accepted);
                    new DataOutputStream(peer.getOutputStream()).write(new byte[] {0, 0, 0, 1, 'x'});
                    rig.pollUntil(() -> rig.count(ChannelEvent.Closed.class) == accepted);
                }
            }

            assertThat(rig.count(ChannelEvent.Accepted.class)).as("every connection accepted").isEqualTo(rounds);
            assertThat(rig.all(ChannelEvent.Closed.class)).allSatisfy(closed ->
                assertThat(closed.reason()).isEqualTo(CloseReason.LOCAL));
            assertThat(rig.errors).hasSize(rounds).allSatisfy(error ->
                assertThat(error).hasMessageContaining("channel handler failed"));
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldKeepAnOpenClaimIntactWhenTheBytesBeforeItAreWritten(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling)); Socket peer = new Socket()) {
            peer.setSoTimeout(10_000);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            rig.transport.send(id, TcpTestRig.text("first"), 0, 5);
            final long offset = rig.transport.tryClaim(id, 8);
            assertThat(offset).isNotNegative();
            assertThat(rig.transport.flush(id)).as("everything before the claim written").isZero();
            MemorySegment.copy(TcpTestRig.text("claimed!"), 0, rig.transport.claimBuffer(), offset, 8);
            assertThat(rig.transport.commit()).isNotNegative();
            rig.reactor.doWork();

            final DataInputStream in = new DataInputStream(peer.getInputStream());
            assertThat(in.readInt()).isEqualTo(5);
            assertThat(in.readNBytes(5)).asString(StandardCharsets.US_ASCII).isEqualTo("first");
            assertThat(in.readInt()).isEqualTo(8);
            assertThat(in.readNBytes(8)).asString(StandardCharsets.US_ASCII).isEqualTo("claimed!");
            rig.transport.close(id);
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));
            assertThat(in.read()).as("nothing else was sent").isEqualTo(-1);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldAbortAClaimLeftOpenPastItsDutyCycleAndKeepTheStreamIntact(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling)); Socket peer = new Socket()) {
            peer.setSoTimeout(10_000);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            rig.transport.send(id, TcpTestRig.text("first"), 0, 5);
            final long offset = rig.transport.tryClaim(id, 8);
            assertThat(offset).isNotNegative();
            rig.transport.claimBuffer().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, -1L);
            rig.reactor.doWork(); // writes "first" (draining the buffer) and ends the cycle with the claim open

            assertThat(rig.errors).singleElement().satisfies(error -> assertThat(error)
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("end of the duty cycle"));
            assertThatThrownBy(() -> rig.transport.commit()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("claim of 8 bytes on channel " + id).hasMessageContaining("aborted");
            assertThatThrownBy(() -> rig.transport.commit()).as("once").hasMessage("no claim is open");
            rig.transport.send(id, TcpTestRig.text("second"), 0, 6);
            rig.reactor.doWork();

            final DataInputStream in = new DataInputStream(peer.getInputStream());
            assertThat(in.readInt()).isEqualTo(5);
            assertThat(in.readNBytes(5)).asString(StandardCharsets.US_ASCII).isEqualTo("first");
            assertThat(in.readInt()).isEqualTo(6);
            assertThat(in.readNBytes(6)).asString(StandardCharsets.US_ASCII).isEqualTo("second");
            assertThat(in.available()).isZero();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldCloseAnAcceptedChannelThatCannotBeRegisteredAndKeepTheServerListening(final boolean readPolling)
        throws Exception {
        final TcpOptions options = new TcpOptions().readPolling(readPolling).maxConnections(MAX_CONNECTIONS);
        try (TcpTestRig rig = new TcpTestRig(options)) {
            final InetSocketAddress address = rig.listen();
            final int[] failures = {2 * MAX_CONNECTIONS};
            rig.transport.registrar((channel, interestOps, connection) -> {
                if (failures[0] > 0) {
                    failures[0]--;
                    throw new UncheckedIOException(new java.io.IOException("registration refused by the test"));
                }
                return rig.reactor.register(channel, interestOps, connection);
            });
            for (int i = 0; i < 2 * MAX_CONNECTIONS; i++) {
                try (Socket refused = new Socket()) {
                    refused.setSoTimeout(10_000);
                    refused.connect(address);
                    final int reported = i + 1;
                    rig.pollUntil(() -> rig.errors.size() == reported);
                    assertThat(refused.getInputStream().read()).as("the accepted channel is closed").isEqualTo(-1);
                }
            }

            assertThat(rig.transport.localAddress(rig.first(ChannelEvent.Listening.class).serverId())).isEqualTo(address);
            try (Socket next = new Socket()) { // the server still accepts, and slots were freed
                next.connect(address);
                rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
                final long id = rig.first(ChannelEvent.Accepted.class).channelId();
                rig.transport.send(id, TcpTestRig.text("ok"), 0, 2);
                rig.reactor.doWork();
                assertThat(new DataInputStream(next.getInputStream()).readInt()).isEqualTo(2);
            }
            assertThat(rig.has(ChannelEvent.Closed.class)).as("nothing closed that the application knew of").isFalse();
            assertThat(rig.errors).allSatisfy(error -> assertThat(error).hasMessageContaining("cannot register"));
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldRefuseAConnectOrListenFromOnClosedWhileTheTransportCloses(final boolean readPolling) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final SocketAddress[] reconnectTo = new SocketAddress[1];
        final List<String> outcomes = new ArrayList<>();
        final ChannelHandler reconnecting = new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            }

            @Override
            public void onClosed(final long channelId, final CloseReason reason, final String detail) {
                // an application that reconnects, or listens again, whenever something closes
                try {
                    outcomes.add("connect returned " + transport[0].connect(reconnectTo[0]));
                } catch (final IllegalStateException ex) {
                    outcomes.add("connect: " + ex.getMessage());
                }
                try {
                    outcomes.add("listen returned " + transport[0].listen(TcpTestRig.ANY_LOOPBACK_PORT));
                } catch (final IllegalStateException ex) {
                    outcomes.add("listen: " + ex.getMessage());
                }
            }
        };
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling), reconnecting);
            Socket peer = new Socket()) {
            transport[0] = rig.transport;
            reconnectTo[0] = rig.listen();
            peer.setSoTimeout(10_000);
            peer.connect(reconnectTo[0]);
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));

            rig.transport.close();

            assertThat(rig.count(ChannelEvent.Closed.class)).as("the server and the connection").isEqualTo(2);
            assertThat(outcomes).containsExactly("connect: transport is closed", "listen: transport is closed",
                "connect: transport is closed", "listen: transport is closed");
            assertThat(peer.getInputStream().read()).as("the connection is closed").isEqualTo(-1);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldReturnFromACloseOfTheTransportCalledFromOnClosedWhileItCloses(final boolean readPolling) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final ChannelHandler lastOneOut = new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            }

            @Override
            public void onClosed(final long channelId, final CloseReason reason, final String detail) {
                transport[0].close(); // "the last one out shuts the transport"
            }
        };
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling), lastOneOut);
            Socket peer = new Socket()) {
            transport[0] = rig.transport;
            peer.setSoTimeout(10_000);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final long serverId = rig.first(ChannelEvent.Listening.class).serverId();

            assertThatCode(rig.transport::close).doesNotThrowAnyException();

            assertThat(rig.all(ChannelEvent.Closed.class)).containsExactly(
                new ChannelEvent.Closed(serverId, CloseReason.LOCAL, "server closed by the application"),
                new ChannelEvent.Closed(id, CloseReason.LOCAL, "transport closed"));
            assertThat(peer.getInputStream().read()).as("the connection is closed").isEqualTo(-1);
            assertThat(rig.errors).isEmpty();
        }
    }
}
