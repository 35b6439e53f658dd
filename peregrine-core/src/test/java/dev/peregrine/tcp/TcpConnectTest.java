package dev.peregrine.tcp;

import dev.peregrine.testkit.Needs;
import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.CloseReason;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connecting fails clearly: refused, timed out, unresolvable, each as {@code onConnectFailed} naming the
 * address, delivered after {@code connect} returned its id. Loopback only.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpConnectTest {
    @Test
    void shouldReportConnectFailedWhenThePortIsClosed() throws Exception {
        final InetSocketAddress closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = (InetSocketAddress)probe.getLocalSocketAddress();
        }
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions())) {
            final long id = rig.transport.connect(closedPort);
            rig.pollUntil(() -> rig.has(ChannelEvent.ConnectFailed.class));

            final ChannelEvent.ConnectFailed failed = rig.first(ChannelEvent.ConnectFailed.class);
            assertThat(failed.channelId()).isEqualTo(id);
            assertThat(failed.reason()).contains(closedPort.toString()).containsIgnoringCase("refused");
            assertThat(rig.transport.isConnected(id)).isFalse();
            assertThat(rig.has(ChannelEvent.Closed.class)).isFalse();
        }
    }

    @Test
    void shouldReportConnectFailedAfterTheTimeoutWhenNobodyAnswers() throws Exception {
        // a listening socket whose accept queue is full drops further SYNs: the connect hangs, on loopback
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final List<Socket> fillers = new ArrayList<>();
            try {
                Needs.platform("a kernel that drops SYNs to a full accept queue", fillAcceptQueue(full, fillers),
                    "the kernel completed every connect to a full accept queue, so no loopback connect can be made to hang here");
                try (TcpTestRig rig = new TcpTestRig(new TcpOptions().connectTimeout(150, TimeUnit.MILLISECONDS))) {
                    final long id = rig.transport.connect(full.getLocalSocketAddress());
                    rig.pollUntil(() -> rig.has(ChannelEvent.ConnectFailed.class));

                    final ChannelEvent.ConnectFailed failed = rig.first(ChannelEvent.ConnectFailed.class);
                    assertThat(failed.channelId()).isEqualTo(id);
                    assertThat(failed.reason()).isEqualTo("connect to " + full.getLocalSocketAddress()
                        + " timed out after 150 ms");
                }
            } finally {
                for (final Socket filler : fillers) {
                    filler.close();
                }
            }
        }
    }

    @Test
    void shouldKeepConnectingWhenTheConnectTimeoutIsTheLongestThereIs() throws Exception {
        // a listening socket whose accept queue is full drops further SYNs: the connect hangs, on loopback
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final List<Socket> fillers = new ArrayList<>();
            try {
                Needs.platform("a kernel that drops SYNs to a full accept queue", fillAcceptQueue(full, fillers),
                    "the kernel completed every connect to a full accept queue, so no loopback connect can be made to hang here");
                final long[] clock = {TimeUnit.SECONDS.toNanos(1)};
                final TcpOptions options = new TcpOptions().connectTimeout(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
                try (TcpTestRig rig = new TcpTestRig(options, () -> clock[0])) {
                    final long id = rig.transport.connect(full.getLocalSocketAddress());
                    rig.reactor.doWork();
                    clock[0] += TimeUnit.MINUTES.toNanos(1);
                    rig.reactor.doWork();

                    assertThat(rig.recorder.events()).as("still connecting a minute later").isEmpty();
                    rig.transport.close(id);
                    assertThat(rig.recorder.events()).containsExactly(
                        new ChannelEvent.Closed(id, CloseReason.LOCAL, "closed by the application"));
                    assertThat(rig.errors).isEmpty();
                }
            } finally {
                for (final Socket filler : fillers) {
                    filler.close();
                }
            }
        }
    }

    /** Connects to the server until a connect hangs; returns whether one did. */
    private static boolean fillAcceptQueue(final ServerSocket full, final List<Socket> fillers) throws Exception {
        for (int i = 0; i < 16; i++) {
            final Socket filler = new Socket();
            fillers.add(filler);
            try {
                filler.connect(full.getLocalSocketAddress(), 1000);
            } catch (final SocketTimeoutException ex) {
                return true;
            }
        }
        return false;
    }

    @Test
    void shouldReportConnectFailedForAnUnresolvedAddressAfterConnectReturns() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions())) {
            final InetSocketAddress nowhere = InetSocketAddress.createUnresolved("no-such-host.invalid", 9);
            final long id = rig.transport.connect(nowhere);
            assertThat(rig.recorder.events()).isEmpty();
            rig.pollUntil(() -> rig.has(ChannelEvent.ConnectFailed.class));

            final ChannelEvent.ConnectFailed failed = rig.first(ChannelEvent.ConnectFailed.class);
            assertThat(failed.channelId()).isEqualTo(id);
            assertThat(failed.reason()).contains("no-such-host.invalid");
        }
    }

    @Test
    void shouldReportALocalCloseWhileConnecting() throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions())) {
            final InetSocketAddress address = rig.listen();
            final long id = rig.transport.connect(address);
            rig.transport.close(id);
            // the marker: a second connect to the same server, made after the close, connects; the select that
            // reports it would have reported the first connect's completion too, had the close left it registered
            final long marker = rig.transport.connect(address);
            rig.pollUntil(() -> rig.all(ChannelEvent.Connected.class).stream().anyMatch(connected -> connected.channelId() == marker));
            rig.awaitMarker();

            assertThat(rig.all(ChannelEvent.Closed.class).stream().filter(closed -> closed.channelId() == id)).containsExactly(
                new ChannelEvent.Closed(id, CloseReason.LOCAL, "closed by the application"));
            assertThat(rig.all(ChannelEvent.Connected.class)).extracting(ChannelEvent.Connected::channelId).containsExactly(marker);
            assertThat(rig.has(ChannelEvent.ConnectFailed.class)).isFalse();
        }
    }
}
