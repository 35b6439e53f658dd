package dev.peregrine.peers;

import com.paritytrading.nassau.soupbintcp.SoupBinTCP;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClient;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClientStatusListener;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServer;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServerStatusListener;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.soup.SoupBinTcpClient;
import dev.peregrine.soup.SoupBinTcpClientListener;
import dev.peregrine.soup.SoupBinTcpClientOptions;
import dev.peregrine.soup.SoupBinTcpServer;
import dev.peregrine.soup.SoupBinTcpServerHandler;
import dev.peregrine.soup.SoupBinTcpServerOptions;
import dev.peregrine.soup.SoupBinTcpSession;
import dev.peregrine.soup.SoupLoginDecision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SoupBinTCP both ways with Nassau 1.0.0, a peer written by others: Nassau's client against Peregrine's server, and
 * Peregrine's client against a small harness around Nassau's server (Nassau's classes handle one connection and
 * leave receive() and keepAlive() to the caller; the harness adds the accept loop and the replay from a list).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpNassauInteropTest {
    private final long[] clockNs = {1_000_000_000L};
    private final long[] nassauMillis = {1_000L};

    private Reactor reactor() {
        return new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(() -> clockNs[0]));
    }

    private static void pump(final Runnable cycle, final BooleanSupplier done) {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            cycle.run();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
        }
    }

    private static String text(final ByteBuffer buffer) {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static void publish(final SoupBinTcpSession session, final String text) {
        session.publish(Arena.ofAuto().allocateFrom(text, StandardCharsets.ISO_8859_1), 0, text.length());
    }

    @Test
    void shouldServeNassausClientReplayLiveHeartbeatsAndEndOfSession() throws Exception {
        final List<String> events = new ArrayList<>();
        final List<String> serverEvents = new ArrayList<>();
        try (Reactor reactor = reactor(); MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 64, 1 << 16)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions(),
                (user, password, session) -> user.equals("alice") && password.equals("secret")
                    ? SoupLoginDecision.accept(feed[0]) : SoupLoginDecision.NOT_AUTHORIZED,
                new SoupBinTcpServerHandler() {
                    @Override
                    public void onUnsequencedData(final long id, final SoupBinTcpSession session, final MemorySegment buffer,
                        final long offset, final int length) {
                        serverEvents.add("U " + new String(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE),
                            StandardCharsets.ISO_8859_1));
                    }

                    @Override
                    public void onClosed(final long id, final dev.peregrine.channel.CloseReason reason, final String detail) {
                        serverEvents.add("closed " + reason + " " + detail);
                    }
                });
            feed[0] = server.addSession("FEED", store);
            for (int i = 1; i <= 5; i++) {
                publish(feed[0], "m" + i);
            }
            server.listen(new InetSocketAddress("127.0.0.1", 0));
            pump(reactor::doWork, () -> server.localAddress() != null);
            try (SocketChannel channel = SocketChannel.open(server.localAddress())) {
                channel.configureBlocking(false);
                final SoupBinTCPClient nassau = new SoupBinTCPClient(() -> nassauMillis[0], channel, 1024,
                    buffer -> events.add(text(buffer)), new SoupBinTCPClientStatusListener() {
                        @Override
                        public void heartbeatTimeout(final SoupBinTCPClient client) {
                            events.add("heartbeat timeout");
                        }

                        @Override
                        public void loginAccepted(final SoupBinTCPClient client, final SoupBinTCP.LoginAccepted accepted) {
                            events.add("accepted " + accepted.getSession().trim() + " " + accepted.getSequenceNumber());
                        }

                        @Override
                        public void loginRejected(final SoupBinTCPClient client, final SoupBinTCP.LoginRejected rejected) {
                            events.add("rejected " + (char)rejected.getRejectReasonCode());
                        }

                        @Override
                        public void endOfSession(final SoupBinTCPClient client) {
                            events.add("end of session");
                        }
                    });
                final Runnable cycle = () -> {
                    reactor.doWork();
                    try {
                        nassau.receive();
                    } catch (final IOException ex) {
                        throw new AssertionError(ex);
                    }
                };
                final SoupBinTCP.LoginRequest login = new SoupBinTCP.LoginRequest();
                login.setUsername("alice");
                login.setPassword("secret");
                login.setRequestedSession("");
                login.setRequestedSequenceNumber(3);
                nassau.login(login);
                pump(cycle, () -> events.size() == 4);
                publish(feed[0], "m6");
                pump(cycle, () -> events.size() == 5);
                nassau.send(ByteBuffer.wrap("order".getBytes(StandardCharsets.ISO_8859_1)));
                pump(cycle, () -> serverEvents.size() == 1);
                // 1.5 s of silence both ways: our server sends H, Nassau's keepAlive sends R; then m7 proves H parsed
                clockNs[0] += 1_500_000_000L;
                nassauMillis[0] += 1_500;
                nassau.keepAlive();
                for (int i = 0; i < 50; i++) {
                    cycle.run();
                }
                publish(feed[0], "m7");
                feed[0].end();
                pump(cycle, () -> events.size() == 7);
                assertThat(events).containsExactly("accepted FEED 3", "m3", "m4", "m5", "m6", "m7", "end of session");
                assertThat(serverEvents).containsExactly("U order");
                assertThat(server.protocolErrors()).isZero();
                nassau.logout();
                pump(cycle, () -> serverEvents.size() == 2);
                assertThat(serverEvents.get(1)).isEqualTo("closed LOCAL Logout Request");
            }
            server.close();
        }
    }

    /** Nassau's server, one connection at a time, replaying a list from the requested sequence number. */
    private static final class NassauHarness implements AutoCloseable {
        final ServerSocketChannel listener;
        final List<String> messages = new ArrayList<>();
        final List<String> logins = new ArrayList<>();
        SoupBinTCPServer current;

        NassauHarness() throws IOException {
            listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            listener.configureBlocking(false);
        }

        void poll() {
            try {
                if (current == null) {
                    final SocketChannel channel = listener.accept();
                    if (channel == null) {
                        return;
                    }
                    channel.configureBlocking(false);
                    current = new SoupBinTCPServer(channel, 1024, buffer -> { }, new SoupBinTCPServerStatusListener() {
                        @Override
                        public void heartbeatTimeout(final SoupBinTCPServer server) {
                        }

                        @Override
                        public void loginRequest(final SoupBinTCPServer server, final SoupBinTCP.LoginRequest request)
                            throws IOException {
                            logins.add(request.getRequestedSession().trim() + " " + request.getRequestedSequenceNumber());
                            final SoupBinTCP.LoginAccepted accepted = new SoupBinTCP.LoginAccepted();
                            accepted.setSession("NASSAU");
                            final long from = request.getRequestedSequenceNumber();
                            accepted.setSequenceNumber(from);
                            server.accept(accepted);
                            for (long s = from; s <= messages.size(); s++) {
                                server.send(ByteBuffer.wrap(messages.get((int)s - 1).getBytes(StandardCharsets.ISO_8859_1)));
                            }
                        }

                        @Override
                        public void logoutRequest(final SoupBinTCPServer server) {
                        }
                    });
                }
                current.receive();
            } catch (final IOException ex) {
                cut();
            }
        }

        void cut() {
            try {
                current.close();
            } catch (final IOException ignored) {
                // closing
            }
            current = null;
        }

        @Override
        public void close() throws IOException {
            if (current != null) {
                current.close();
            }
            listener.close();
        }
    }

    @Test
    void shouldFollowNassausServerAcrossCutsExactlyOnce() throws Exception {
        final List<String> delivered = new ArrayList<>();
        final List<String> events = new ArrayList<>();
        try (Reactor reactor = reactor(); NassauHarness harness = new NassauHarness()) {
            for (int i = 1; i <= 30; i++) {
                harness.messages.add("m" + i);
            }
            final SoupBinTcpClient client = new SoupBinTcpClient(reactor, new SoupBinTcpClientOptions()
                .addresses(harness.listener.getLocalAddress()).credentials("alice", "secret").session(""),
                new SoupBinTcpClientListener() {
                    @Override
                    public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                        delivered.add(sequence + " " + new String(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE),
                            StandardCharsets.ISO_8859_1));
                    }

                    @Override
                    public void onLoginAccepted(final String session, final long sequence) {
                        events.add("accepted " + session + " " + sequence);
                    }

                    @Override
                    public void onEndOfSession() {
                        events.add("end of session");
                    }
                });
            final Runnable cycle = () -> {
                reactor.doWork();
                harness.poll();
            };
            client.start();
            pump(cycle, () -> delivered.size() == 30);
            harness.cut(); // the server goes away; the client comes back at 31
            for (int i = 31; i <= 40; i++) {
                harness.messages.add("m" + i);
            }
            pump(cycle, () -> delivered.size() == 40);
            harness.current.endSession();
            pump(cycle, client::isStopped);
            final List<String> expected = new ArrayList<>();
            for (int i = 1; i <= 40; i++) {
                expected.add(i + " m" + i);
            }
            assertThat(delivered).isEqualTo(expected);
            assertThat(harness.logins).containsExactly(" 1", "NASSAU 31");
            assertThat(events).containsExactly("accepted NASSAU 1", "accepted NASSAU 31", "end of session");
            client.close();
        }
    }
}
