package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler that throws from any callback: its own channel (or server) is closed with the reason in
 * {@code onClosed}, nothing follows that {@code onClosed}, the exception goes to the reactor's error handler,
 * and the reactor goes on: a bystander channel on the same reactor still echoes afterwards.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpFaultTest {
    enum Callback {
        ON_LISTENING, ON_LISTEN_FAILED, ON_ACCEPTED, ON_CONNECTED, ON_CONNECT_FAILED, ON_MESSAGE, ON_SENT, ON_CLOSED,
        /** From the onClosed that the application's own close(id) brings, outside any callback. */
        ON_CLOSED_BY_APPLICATION
    }

    /** Echoes every message, and throws once from the armed callback. */
    private static final class FaultyHandler implements ChannelHandler {
        TcpTransport transport;
        Callback armed;
        int thrown;

        private void maybeThrow(final Callback callback) {
            if (callback == armed) {
                armed = null;
                thrown++;
                throw new IllegalStateException("thrown by the test from " + callback);
            }
        }

        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            maybeThrow(Callback.ON_LISTENING);
        }

        @Override
        public void onListenFailed(final long serverId, final String reason) {
            maybeThrow(Callback.ON_LISTEN_FAILED);
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            maybeThrow(Callback.ON_ACCEPTED);
        }

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            maybeThrow(Callback.ON_CONNECTED);
        }

        @Override
        public void onConnectFailed(final long channelId, final String reason) {
            maybeThrow(Callback.ON_CONNECT_FAILED);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            maybeThrow(Callback.ON_MESSAGE);
            transport.send(channelId, buffer, offset, length);
        }

        @Override
        public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
            maybeThrow(Callback.ON_SENT);
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            maybeThrow(Callback.ON_CLOSED);
            maybeThrow(Callback.ON_CLOSED_BY_APPLICATION);
        }
    }

    @ParameterizedTest
    @EnumSource(Callback.class)
    void shouldCloseOnlyTheFailingChannelAndKeepTheReactorServingOthers(final Callback callback) throws Exception {
        final FaultyHandler handler = new FaultyHandler();
        final TcpOptions options = new TcpOptions().outboundBufferSize(1024 * 1024).socketSendBufferSize(16 * 1024);
        try (TcpTestRig rig = new TcpTestRig(options, handler); Socket bystander = new Socket()) {
            handler.transport = rig.transport;
            final InetSocketAddress address = rig.listen();
            final long serverId = rig.first(ChannelEvent.Listening.class).serverId();
            bystander.setSoTimeout(10_000);
            bystander.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long bystanderId = rig.first(ChannelEvent.Accepted.class).channelId();

            handler.armed = callback;
            final long victim = provoke(rig, callback, address);
            rig.pollUntil(() -> handler.thrown == 1 && !rig.errors.isEmpty());
            // the marker: the bystander's ping, sent after the failure, comes back as an event; then a timer due now.
            // Whatever the failure would still bring (an event after onClosed, a second error) has come by then
            final DataOutputStream out = new DataOutputStream(bystander.getOutputStream());
            out.writeInt(4);
            out.write("ping".getBytes(StandardCharsets.US_ASCII));
            final CompletableFuture<byte[]> echo = CompletableFuture.supplyAsync(() -> readFrame(bystander));
            rig.pollUntil(echo::isDone);
            assertThat(echo.get()).asString(StandardCharsets.US_ASCII).isEqualTo("ping");
            rig.awaitMarker();

            assertThat(rig.errors).singleElement().satisfies(error -> assertThat(error)
                .hasMessageContaining("channel handler failed").hasRootCauseMessage("thrown by the test from " + callback));
            if (victim != 0) {
                final var victimEvents = rig.recorder.events().stream().filter(event -> concerns(event, victim)).toList();
                assertThat(victimEvents.getLast()).as("onClosed, and nothing after it").isInstanceOf(ChannelEvent.Closed.class);
                assertThat(victimEvents.stream().filter(ChannelEvent.Closed.class::isInstance).count()).isEqualTo(1);
                if (callback != Callback.ON_CLOSED && callback != Callback.ON_CLOSED_BY_APPLICATION) {
                    final ChannelEvent.Closed closed = (ChannelEvent.Closed)victimEvents.getLast();
                    assertThat(closed.reason()).isEqualTo(CloseReason.ERROR);
                    assertThat(closed.detail()).contains("handler failed").contains("thrown by the test from " + callback);
                }
            }
            assertThat(rig.recorder.events()).as("the bystander was not touched").noneMatch(event -> concerns(event, bystanderId)
                && !(event instanceof ChannelEvent.Accepted) && !(event instanceof ChannelEvent.Message)
                && !(event instanceof ChannelEvent.Sent));
            assertThat(rig.transport.localAddress(serverId)).as("the first server still listens").isEqualTo(address);
        }
    }

    /** Makes the armed callback run; returns the channel or server it concerns, or 0 if none remains. */
    private static long provoke(final TcpTestRig rig, final Callback callback, final InetSocketAddress address)
        throws IOException {
        switch (callback) {
            case ON_LISTENING -> {
                return rig.transport.listen(TcpTestRig.ANY_LOOPBACK_PORT);
            }
            case ON_LISTEN_FAILED -> {
                rig.transport.listen(address); // in use: the server is gone with onListenFailed
                return 0;
            }
            case ON_ACCEPTED, ON_MESSAGE, ON_CLOSED, ON_CLOSED_BY_APPLICATION -> {
                final Socket peer = new Socket();
                peer.connect(address);
                rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);
                final long id = rig.all(ChannelEvent.Accepted.class).get(1).channelId();
                if (callback == Callback.ON_MESSAGE) {
                    new DataOutputStream(peer.getOutputStream()).write(new byte[] {0, 0, 0, 1, 'x'});
                } else if (callback == Callback.ON_CLOSED) {
                    peer.close();
                } else if (callback == Callback.ON_CLOSED_BY_APPLICATION) {
                    rig.transport.close(id); // the handler's failure does not come back out of here
                    peer.close();
                }
                if (callback != Callback.ON_CLOSED && callback != Callback.ON_CLOSED_BY_APPLICATION) {
                    rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));
                    assertThat(peer.getInputStream().read()).as("the failing channel is closed").isEqualTo(-1);
                    peer.close();
                }
                return id;
            }
            case ON_CONNECTED -> {
                return rig.transport.connect(address);
            }
            case ON_CONNECT_FAILED -> {
                final InetSocketAddress refused;
                try (ServerSocket closed = new ServerSocket(0, 1, address.getAddress())) {
                    refused = new InetSocketAddress(address.getAddress(), closed.getLocalPort());
                }
                rig.transport.connect(refused);
                return 0;
            }
            case ON_SENT -> {
                final Socket peer = new Socket();
                peer.setReceiveBufferSize(16 * 1024);
                peer.connect(address);
                rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);
                final long id = rig.all(ChannelEvent.Accepted.class).get(1).channelId();
                final MemorySegment payload = Arena.ofAuto().allocate(1000);
                for (int i = 0; i < 300; i++) {
                    assertThat(rig.transport.send(id, payload, 0, 1000)).isNotNegative();
                }
                rig.reactor.doWork(); // the socket takes part; the rest waits for OP_WRITE, and onSent
                CompletableFuture.runAsync(() -> drain(peer));
                return id;
            }
            default -> throw new AssertionError(callback);
        }
    }

    private static boolean concerns(final ChannelEvent event, final long id) {
        return switch (event) {
            case ChannelEvent.Accepted accepted -> accepted.channelId() == id;
            case ChannelEvent.Connected connected -> connected.channelId() == id;
            case ChannelEvent.Message message -> message.channelId() == id;
            case ChannelEvent.Sent sent -> sent.channelId() == id;
            case ChannelEvent.Closed closed -> closed.channelId() == id;
            case ChannelEvent.Listening listening -> listening.serverId() == id;
            default -> false;
        };
    }

    private static byte[] readFrame(final Socket peer) {
        try {
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            return in.readNBytes(in.readInt());
        } catch (final IOException ex) {
            throw new AssertionError(ex);
        }
    }

    private static void drain(final Socket peer) {
        try (peer) {
            final byte[] sink = new byte[8192];
            while (peer.getInputStream().read(sink) >= 0) {
                // until the transport closes the channel
            }
        } catch (final IOException ex) {
            // a reset ends it too
        }
    }
}
