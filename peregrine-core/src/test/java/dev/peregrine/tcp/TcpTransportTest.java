package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.peregrine.tcp.TcpTestRig.message;
import static dev.peregrine.tcp.TcpTestRig.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpTransportTest {
    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldConnectExchangeMessagesAndCloseOnOneReactor(final boolean readPolling) {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:2be")))) {
            final InetSocketAddress address = rig.listen();
            final long client = rig.transport.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class) && rig.has(ChannelEvent.Accepted.class));
            final long server = rig.first(ChannelEvent.Accepted.class).channelId();
            assertThat(polledConnections(rig)).as("connections read by polling").isEqualTo(readPolling ? 2 : -1);

            assertThat(rig.transport.send(client, text("ping"), 0, 4)).isNotNegative();
            rig.pollUntil(() -> rig.has(ChannelEvent.Message.class));
            assertThat(rig.transport.send(server, text("pong!"), 0, 5)).isNotNegative();
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == 2);
            rig.transport.close(client);
            rig.pollUntil(() -> rig.count(ChannelEvent.Closed.class) == 2);

            assertThat(rig.all(ChannelEvent.Message.class)).containsExactly(message(server, "ping"), message(client, "pong!"));
            assertThat(rig.all(ChannelEvent.Closed.class)).containsExactly(
                new ChannelEvent.Closed(client, CloseReason.LOCAL, "closed by the application"),
                new ChannelEvent.Closed(server, CloseReason.BY_PEER, "end of stream"));
            assertThat(rig.transport.send(client, text("late"), 0, 4)).isEqualTo(SendResult.NOT_CONNECTED);
            assertThat(polledConnections(rig)).isEqualTo(readPolling ? 0 : -1);
            assertThat(rig.errors).isEmpty();
        }
    }

    private static int polledConnections(final TcpTestRig rig) {
        final TcpReadPoller poller = rig.transport.readPoller();
        return poller == null ? -1 : poller.count();
    }

    @Test
    void shouldDeliverListeningOnlyAfterListenReturns() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions())) {
            final long serverId = rig.transport.listen(TcpTestRig.ANY_LOOPBACK_PORT);

            assertThat(rig.recorder.events()).isEmpty();
            rig.pollUntil(() -> rig.has(ChannelEvent.Listening.class));
            assertThat(rig.first(ChannelEvent.Listening.class).serverId()).isEqualTo(serverId);
            assertThat(((InetSocketAddress)rig.transport.localAddress(serverId)).getPort()).isPositive();
        }
    }

    @Test
    void shouldFailToListenOnAPortInUseNamingTheAddress() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions())) {
            final InetSocketAddress taken = rig.listen();
            final long second = rig.transport.listen(taken);
            rig.pollUntil(() -> rig.has(ChannelEvent.ListenFailed.class));

            final ChannelEvent.ListenFailed failed = rig.first(ChannelEvent.ListenFailed.class);
            assertThat(failed.serverId()).isEqualTo(second);
            assertThat(failed.reason()).contains("cannot listen on " + taken).contains("in use");
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldSendWithZeroCopyClaimAndCommit(final boolean readPolling) {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4le")));
             Socket peer = new Socket()) {
            final InetSocketAddress address = rig.listen();
            peer.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            final long offset = rig.transport.tryClaim(id, 8);
            assertThat(offset).isNotNegative();
            rig.transport.claimBuffer().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, 0x0102030405060708L);
            assertThat(rig.transport.commit()).as("appended, written at the end of the cycle").isEqualTo(12);
            final long aborted = rig.transport.tryClaim(id, 3);
            assertThat(aborted).isNotNegative();
            rig.transport.abortClaim();
            assertThat(rig.transport.send(id, text("abc"), 0, 3)).isEqualTo(12 + 7);
            rig.reactor.doWork();

            final byte[] received = peer.getInputStream().readNBytes(12 + 7);
            final ByteBuffer wire = ByteBuffer.wrap(received).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            assertThat(wire.getInt()).isEqualTo(8);
            assertThat(wire.order(java.nio.ByteOrder.BIG_ENDIAN).getLong()).isEqualTo(0x0807060504030201L);
            assertThat(wire.order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(3);
            assertThat(new String(received, 16, 3, StandardCharsets.US_ASCII)).isEqualTo("abc");
        } catch (final java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    @Test
    void shouldRefuseAMessageOverTheMaximumAndMisuse() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.fixed(4)))) {
            final InetSocketAddress address = rig.listen();
            final long client = rig.transport.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class));

            assertThat(rig.transport.send(client, text("12345"), 0, 5)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
            assertThatThrownBy(() -> rig.transport.send(client, text("12"), 0, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length=2");
            assertThat(rig.transport.send(client, text("1234"), 0, 4)).isNotNegative();
            rig.transport.tryClaim(client, 4);
            assertThatThrownBy(() -> rig.transport.send(client, text("1234"), 0, 4)).isInstanceOf(IllegalStateException.class);
            rig.transport.abortClaim();
        }
    }

    @Test
    void shouldCheckAClaimsLengthAsASendsIsChecked() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.fixed(4)))) {
            final long client = rig.transport.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class));

            assertThat(rig.transport.tryClaim(client, 5)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
            assertThatThrownBy(() -> rig.transport.tryClaim(client, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length=3").hasMessageContaining("fixed:4");
            assertThatThrownBy(() -> rig.transport.tryClaim(client, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length=-1");
            assertThatThrownBy(() -> rig.transport.commit()).as("nothing was claimed")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no claim is open");
            assertThat(rig.transport.tryClaim(client, 4)).isNotNegative();
            rig.transport.abortClaim();
        }
        // a 1-byte length field caps the frame at 255 bytes whatever maxFrameLength says
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:1be")).maxFrameLength(1000))) {
            final long client = rig.transport.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class));

            assertThat(rig.transport.tryClaim(client, 256)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
            assertThat(rig.transport.tryClaim(client, 0)).as("an empty payload").isNotNegative();
            rig.transport.abortClaim();
            assertThat(rig.transport.tryClaim(client, 255)).isNotNegative();
            rig.transport.abortClaim();
        }
    }

    @Test
    void shouldKeepAnOpenClaimOnItsChannelWhenAnotherChannelIsClaimedMeanwhile() throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:1be")));
             Socket first = new Socket(); Socket second = new Socket()) {
            final InetSocketAddress address = rig.listen();
            first.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 1);
            second.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);
            final long one = rig.all(ChannelEvent.Accepted.class).get(0).channelId();
            final long two = rig.all(ChannelEvent.Accepted.class).get(1).channelId();

            final long at = rig.transport.tryClaim(one, 1);
            rig.transport.claimBuffer().set(ValueLayout.JAVA_BYTE, at, (byte)'a');
            assertThatThrownBy(() -> rig.transport.tryClaim(two, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a claim on channel " + one + " is open");
            assertThat(rig.transport.commit()).as("the claim of the first channel, committed there").isEqualTo(2);
            assertThat(rig.transport.pendingBytes(two)).isZero();
            final long atTwo = rig.transport.tryClaim(two, 1);
            rig.transport.claimBuffer().set(ValueLayout.JAVA_BYTE, atTwo, (byte)'b');
            assertThat(rig.transport.commit()).isEqualTo(2);
            rig.reactor.doWork();

            assertThat(first.getInputStream().readNBytes(2)).containsExactly(1, 'a');
            assertThat(second.getInputStream().readNBytes(2)).containsExactly(1, 'b');
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldEchoEveryFramingOverARealSocket(final boolean readPolling) throws Exception {
        final String[] specs = {"raw", "fixed:5", "length:1be", "length:2le", "length:4be+self", "length:8le", "line", "crlf",
            "delimiter:7c7c"};
        for (final String spec : specs) {
            final Framing framing = Framing.parse(spec);
            try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(framing));
                 Socket peer = new Socket()) {
                final InetSocketAddress address = rig.listen();
                peer.connect(address);
                rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
                final long id = rig.first(ChannelEvent.Accepted.class).channelId();

                assertThat(rig.transport.send(id, text("hello"), 0, 5)).isNotNegative();
                rig.reactor.doWork();
                final byte[] wire = peer.getInputStream().readNBytes(5 + framing.overhead());
                peer.getOutputStream().write(wire);
                rig.pollUntil(() -> rig.has(ChannelEvent.Message.class));

                assertThat(rig.all(ChannelEvent.Message.class)).as(spec).containsExactly(message(id, "hello"));
            }
        }
    }

    @Test
    void shouldRejectAStaleIdWhenItsSlotHoldsANewConnection() throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.raw()))) {
            final InetSocketAddress address = rig.listen();
            final long first;
            try (Socket peer = new Socket()) {
                peer.connect(address);
                rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
                first = rig.first(ChannelEvent.Accepted.class).channelId();
                rig.transport.close(first);
            }
            try (Socket peer = new Socket()) {
                peer.connect(address);
                rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);
                final long second = rig.all(ChannelEvent.Accepted.class).get(1).channelId();

                assertThat(TcpIds.index(second)).isEqualTo(TcpIds.index(first));
                assertThat(second).isNotEqualTo(first);
                assertThat(rig.transport.send(first, text("x"), 0, 1)).isEqualTo(SendResult.NOT_CONNECTED);
                assertThat(rig.transport.send(second, text("y"), 0, 1)).isNotNegative();
                rig.reactor.doWork();
                rig.transport.close(first); // ignored: the new connection stays open
                assertThat(rig.transport.isConnected(second)).isTrue();
                assertThat(peer.getInputStream().read()).isEqualTo('y');
            }
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldKeepTheReactorAndOtherConnectionsGoingWhenAHandlerThrows(final boolean readPolling) throws Exception {
        final long[] victim = {-1};
        final dev.peregrine.channel.ChannelHandler throwing = (channelId, buffer, offset, length) -> {
            if (buffer.get(ValueLayout.JAVA_BYTE, offset) == '!') {
                victim[0] = channelId;
                throw new IllegalStateException("application bug");
            }
        };
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.line()), throwing);
             Socket bad = new Socket(); Socket good = new Socket()) {
            final InetSocketAddress address = rig.listen();
            bad.connect(address);
            good.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);

            bad.getOutputStream().write("!boom\n".getBytes(StandardCharsets.US_ASCII));
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));
            good.getOutputStream().write("fine\n".getBytes(StandardCharsets.US_ASCII));
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == 2);

            final ChannelEvent.Closed closed = rig.first(ChannelEvent.Closed.class);
            assertThat(closed.channelId()).isEqualTo(victim[0]);
            assertThat(closed.reason()).isEqualTo(CloseReason.ERROR);
            assertThat(closed.detail()).contains("handler failed").contains("application bug");
            assertThat(rig.all(ChannelEvent.Message.class).get(1).bytes()).isEqualTo("fine".getBytes(StandardCharsets.US_ASCII));
            assertThat(rig.errors).hasSize(1);
            assertThat(bad.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void shouldCountTheBytesHandedToTheSocketExactlyAndRefuseAnUnknownChannel() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:2be")))) {
            final long client = rig.transport.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class) && rig.has(ChannelEvent.Accepted.class));
            final long server = rig.first(ChannelEvent.Accepted.class).channelId();
            assertThat(rig.transport.bytesWritten(client)).isZero();

            final int frames = 5;
            for (int i = 0; i < frames; i++) {
                assertThat(rig.transport.send(client, text("ping"), 0, 4)).isNotNegative();
            }
            assertThat(rig.transport.bytesWritten(client) + rig.transport.pendingBytes(client))
                .as("written and pending: the position just past the last frame").isEqualTo(frames * (2 + 4));
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == frames);

            assertThat(rig.transport.bytesWritten(client)).isEqualTo(frames * (2 + 4));
            assertThat(rig.transport.pendingBytes(client)).isZero();
            assertThat(rig.transport.bytesWritten(server)).as("the other side sent nothing").isZero();
            assertThat(rig.transport.bytesWritten(client + 1_000_000)).isEqualTo(SendResult.NOT_CONNECTED);
            rig.transport.close(client);
            rig.pollUntil(() -> rig.count(ChannelEvent.Closed.class) == 2);
            assertThat(rig.transport.bytesWritten(client)).as("a closed channel").isEqualTo(SendResult.NOT_CONNECTED);
        }
    }
}
