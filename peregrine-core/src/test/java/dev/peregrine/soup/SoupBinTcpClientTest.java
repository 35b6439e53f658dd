package dev.peregrine.soup;

import dev.peregrine.channel.SendResult;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpClientTest {
    private final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
    private final Reactor reactor = SoupFixture.reactor(clock);
    private final List<String> events = new ArrayList<>();
    private final List<String> requestedSessions = new ArrayList<>();
    private final List<Long> serverChannels = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private long nextDelivered = 1;
    private long outOfOrder;

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        reactor.close();
    }

    /** A server with one session, FEED, that accepts everyone and records the sessions asked for. */
    private SoupBinTcpServer server(final MoldUDP64MessageStore store, final SoupBinTcpServerOptions options, final int port) {
        final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
        final SoupBinTcpServer server = new SoupBinTcpServer(reactor, options, (user, password, session) -> {
            requestedSessions.add(session);
            return session.isEmpty() || session.equals("FEED") ? SoupLoginDecision.accept(feed[0])
                : SoupLoginDecision.SESSION_NOT_AVAILABLE;
        }, new SoupBinTcpServerHandler() {
            @Override
            public void onUnsequencedData(final long channelId, final SoupBinTcpSession session, final MemorySegment buffer,
                final long offset, final int length) {
                events.add("server U " + length);
            }

            @Override
            public void onLoggedIn(final long channelId, final SoupBinTcpSession session, final String username, final long next) {
                serverChannels.add(channelId);
            }
        });
        feed[0] = server.addSession("FEED", store);
        toClose.add(server);
        server.listen(new InetSocketAddress("127.0.0.1", port));
        pump(reactor, () -> server.localAddress() != null);
        return server;
    }

    private MoldUDP64MessageStore store() {
        final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22);
        toClose.add(store);
        return store;
    }

    private SoupBinTcpClient client(final SoupBinTcpClientOptions options) {
        final SoupBinTcpClient client = new SoupBinTcpClient(reactor, options.credentials("alice", "pw"), new SoupBinTcpClientListener() {
            @Override
            public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                final String text = new String(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
                if (sequence != nextDelivered || !text.equals("m" + sequence)) {
                    outOfOrder++;
                    events.add("bad " + sequence + " " + text);
                }
                nextDelivered = sequence + 1;
            }

            @Override
            public void onLoginAccepted(final String session, final long sequence) {
                events.add("accepted " + session + " " + sequence);
            }

            @Override
            public void onLoginRejected(final byte code) {
                events.add("rejected " + (char)code);
            }

            @Override
            public void onGap(final long expected, final long accepted) {
                events.add("gap " + expected + " " + accepted);
                nextDelivered = accepted;
            }

            @Override
            public void onEndOfSession() {
                events.add("end of session");
            }

            @Override
            public void onConnectionLost(final String reason) {
                events.add("lost");
            }

            @Override
            public void onStopped(final String reason) {
                events.add("stopped " + reason);
            }
        });
        toClose.add(client);
        return client;
    }

    private static void publish(final SoupBinTcpServer server, final long sequence) {
        final String text = "m" + sequence;
        assertThat(server.session("FEED").publish(Arena.ofAuto().allocateFrom(text, StandardCharsets.ISO_8859_1), 0,
            text.length())).isEqualTo(sequence);
    }

    @Test
    void shouldDeliverEveryMessageExactlyOnceInOrderAcrossCutsFromEitherSide() {
        final SoupBinTcpServer server = server(store(), new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(server.localAddress()));
        client.start();
        long published = 0;
        for (int cut = 0; cut < 40; cut++) {
            for (int i = 0; i < 250; i++) {
                publish(server, ++published);
                reactor.doWork();
            }
            if (cut % 2 == 0) {
                client.abortConnection();
            } else {
                pump(reactor, () -> !serverChannels.isEmpty());
                server.abort(serverChannels.getLast());
            }
            serverChannels.clear();
        }
        final long last = published;
        // the last cut may come after the last message: wait for its loss and the login after it too
        pump(reactor, () -> client.nextSequence() == last + 1 && client.isLoggedIn()
            && events.stream().filter("lost"::equals).count() == 40);
        assertThat(outOfOrder).isZero();
        assertThat(nextDelivered).isEqualTo(last + 1);
        assertThat(client.connects()).isEqualTo(41);
        assertThat(requestedSessions.subList(1, requestedSessions.size())).allMatch("FEED"::equals);
    }

    @Test
    void shouldFailOverToTheNextAddressAtOnceAndAskForTheSessionItWasAcceptedInto() {
        final MoldUDP64MessageStore primaryStore = store();
        final MoldUDP64MessageStore backupStore = store();
        final SoupBinTcpServer primary = server(primaryStore, new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpServer backup = server(backupStore, new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().session("")
            .addresses(primary.localAddress(), backup.localAddress()));
        client.start();
        for (long sequence = 1; sequence <= 10; sequence++) {
            if (sequence <= 5) {
                publish(primary, sequence);
            }
            publish(backup, sequence); // a replica
        }
        pump(reactor, () -> client.nextSequence() == 6);
        primary.close(); // no clock moves: the first retry is immediate
        pump(reactor, () -> client.nextSequence() == 11);
        assertThat(events).containsExactly("accepted FEED 1", "lost", "accepted FEED 6");
        assertThat(requestedSessions).containsExactly("", "FEED");
        assertThat(outOfOrder).isZero();
    }

    @Test
    void shouldReportEachAttemptAndEachConnectionBeforeItsLoginAcrossAFailover() {
        final SoupBinTcpServer primary = server(store(), new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpServer backup = server(store(), new SoupBinTcpServerOptions(), 0);
        final List<String> seen = new ArrayList<>();
        final SoupBinTcpClient client = new SoupBinTcpClient(reactor, new SoupBinTcpClientOptions().credentials("alice", "pw")
            .addresses(primary.localAddress(), backup.localAddress()), new SoupBinTcpClientListener() {
                private String name(final SocketAddress address) {
                    return address.equals(primary.localAddress()) ? "primary" : "backup";
                }

                @Override
                public void onConnecting(final SocketAddress address) {
                    seen.add("connecting " + name(address));
                }

                @Override
                public void onConnected(final SocketAddress address) {
                    seen.add("connected " + name(address));
                }

                @Override
                public void onLoginAccepted(final String session, final long sequence) {
                    seen.add("accepted");
                }

                @Override
                public void onConnectionLost(final String reason) {
                    seen.add("lost");
                }

                @Override
                public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset,
                                            final int length) {
                }
            });
        toClose.add(client);
        client.start();
        pump(reactor, client::isLoggedIn);
        primary.close();
        pump(reactor, () -> seen.size() == 7);
        assertThat(seen).containsExactly("connecting primary", "connected primary", "accepted", "lost",
            "connecting backup", "connected backup", "accepted");
    }

    @Test
    void shouldMakeTheNextConnectsSocketAheadAfterLoginAndUseItOnTheReconnect() {
        final SoupBinTcpServer server = server(store(), new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(server.localAddress()));
        client.start();
        pump(reactor, () -> client.isLoggedIn() && client.transport().hasSpareSocket());
        assertThat(client.transport().connectsOnSpareSocket()).as("the first connect had none").isZero();

        client.abortConnection();
        pump(reactor, () -> client.connects() == 2 && client.isLoggedIn());
        assertThat(client.transport().connectsOnSpareSocket()).isEqualTo(1);
        pump(reactor, () -> client.transport().hasSpareSocket()); // and the one after it is made again
        publish(server, 1);
        pump(reactor, () -> client.nextSequence() == 2);
        assertThat(events).containsExactly("accepted FEED 1", "lost", "accepted FEED 1");
    }

    @Test
    void shouldBackOffWithJitterAfterTheFirstImmediateRetry() throws Exception {
        final SocketAddress refusing;
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            refusing = probe.getLocalAddress(); // closed below: connecting is refused
        }
        final RandomGenerator half = () -> 0L; // nextDouble() == 0.0: every wait is half its base
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(refusing)
            .backoff(10, 40, TimeUnit.MILLISECONDS).random(half));
        client.start();
        pump(reactor, () -> client.connects() == 2); // the first retry, with no time passing
        final long[] waitsMs = {5, 10, 20, 20}; // base 10, 20, 40, 40 (the max), halved
        for (final long waitMs : waitsMs) {
            final long before = client.connects();
            pump(reactor, () -> events.size() == before); // the failure of the last attempt is in
            clock.advanceMillis(waitMs - 1);
            for (int i = 0; i < 100; i++) {
                reactor.doWork();
            }
            assertThat(client.connects()).as("1 ms before a wait of %d ms", waitMs).isEqualTo(before);
            clock.advanceMillis(1);
            pump(reactor, () -> client.connects() == before + 1);
        }
        assertThat(events).allMatch("lost"::equals);
    }

    @Test
    void shouldKeepTheReactorAwakeWhileAYoungConnectOrLoginIsPendingAndLetItBackOffAfterPendingSpin() throws Exception {
        try (ServerSocketChannel silent = ServerSocketChannel.open()) {
            silent.bind(new InetSocketAddress("127.0.0.1", 0)); // the kernel completes the connect; no one answers
            final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(silent.getLocalAddress())
                .pendingSpin(2, TimeUnit.MILLISECONDS));
            client.start();
            for (int i = 0; i < 100; i++) { // connect (done at once on loopback), login
                assertThat(reactor.doWork()).as("cycle %d after the connect", i).isPositive();
            }
            try (SocketChannel accepted = silent.accept()) { // blocking: the client's connect is in the backlog
                final ByteBuffer request = ByteBuffer.allocate(3 + SoupBinTcpLayout.LOGIN_REQUEST_LENGTH);
                while (request.hasRemaining()) {
                    reactor.doWork(); // the Login Request is written at the end of a cycle
                    accepted.configureBlocking(false);
                    if (accepted.read(request) < 0) {
                        break;
                    }
                }
                assertThat(request.get(2)).as("the Login Request arrived").isEqualTo(SoupBinTcpLayout.LOGIN_REQUEST);
                clock.advanceMillis(1); // still younger than pendingSpin: awaiting Login Accepted counts as work
                for (int i = 0; i < 100; i++) {
                    assertThat(reactor.doWork()).as("cycle %d awaiting Login Accepted", i).isPositive();
                }
                clock.advanceMillis(1); // as old as pendingSpin: the reactor may back off
                for (int i = 0; i < 10; i++) {
                    reactor.doWork();
                }
                assertThat(reactor.doWork()).as("a cycle once the attempt is pendingSpin old").isZero();
                assertThat(events).isEmpty();
            }
        }
    }

    @Test
    void shouldRefuseANegativePendingSpin() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SoupBinTcpClientOptions().pendingSpin(-1,
            TimeUnit.MILLISECONDS)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pendingSpin=-1");
    }

    @Test
    void shouldSendHeartbeatsSoTheServerKeepsItAndTimeOutASilentServer() {
        final SoupBinTcpServer server = server(store(), new SoupBinTcpServerOptions()
            .heartbeatInterval(1, TimeUnit.HOURS).receiveTimeout(3, TimeUnit.SECONDS), 0);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(server.localAddress()));
        client.start();
        pump(reactor, client::isLoggedIn);
        for (int i = 0; i < 140; i++) { // 14 s: the server, sending nothing, hears a heartbeat a second
            clock.advanceMillis(100);
            for (int j = 0; j < 20; j++) {
                reactor.doWork();
            }
        }
        assertThat(server.timeouts()).isZero();
        assertThat(events).containsExactly("accepted FEED 1");
        clock.advanceMillis(1_100); // 15.1 s without a packet from the server
        pump(reactor, () -> events.contains("lost"));
        assertThat(client.connects()).isEqualTo(1);
        pump(reactor, () -> events.size() == 3);
        assertThat(events).containsExactly("accepted FEED 1", "lost", "accepted FEED 1");
    }

    @Test
    void shouldResumeAfterAServerRestartOnItsFileBackedStore(@TempDir final Path dir) {
        final Path file = dir.resolve("feed.store");
        final MoldUDP64MessageStore first = MoldUDP64MessageStore.mapped(file, "FEED", 1 << 10, 1 << 20);
        final SoupBinTcpServer before = server(first, new SoupBinTcpServerOptions(), 0);
        final int port = ((InetSocketAddress)before.localAddress()).getPort();
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(before.localAddress())
            .backoff(1, 1, TimeUnit.MILLISECONDS));
        client.start();
        for (long sequence = 1; sequence <= 5; sequence++) {
            publish(before, sequence);
        }
        pump(reactor, () -> client.nextSequence() == 6);
        before.close();
        first.close();
        toClose.remove(first);
        pump(reactor, () -> events.contains("lost"));
        final MoldUDP64MessageStore reopened = MoldUDP64MessageStore.mapped(file, "FEED", 1 << 10, 1 << 20);
        toClose.add(reopened);
        assertThat(reopened.nextSequence()).isEqualTo(6);
        final SoupBinTcpServer after = server(reopened, new SoupBinTcpServerOptions(), port);
        for (long sequence = 6; sequence <= 10; sequence++) {
            publish(after, sequence);
        }
        pump(reactor, () -> {
            clock.advanceMillis(1);
            return client.nextSequence() == 11;
        });
        assertThat(outOfOrder).isZero();
        assertThat(events.getFirst()).isEqualTo("accepted FEED 1");
        assertThat(events.getLast()).isEqualTo("accepted FEED 6");
    }

    @Test
    void shouldLogOutAndStopAtEndOfSession() {
        final SoupBinTcpServer server = server(store(), new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(server.localAddress()));
        publish(server, 1);
        server.session("FEED").end();
        client.start();
        pump(reactor, client::isStopped);
        pump(reactor, () -> server.connectionCount() == 0);
        clock.advanceMillis(10_000);
        for (int i = 0; i < 100; i++) {
            reactor.doWork();
        }
        assertThat(events).containsExactly("accepted FEED 1", "end of session", "stopped logged out");
        assertThat(client.connects()).isEqualTo(1);
        assertThat(nextDelivered).isEqualTo(2);
    }

    @Test
    void shouldRefuseUnsequencedDataWhileLoggedOutAndSendItWhenLoggedIn() {
        final SoupBinTcpServer server = server(store(), new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(server.localAddress()));
        final MemorySegment order = Arena.ofAuto().allocate(8);
        assertThat(client.sendUnsequenced(order, 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
        client.start();
        pump(reactor, client::isLoggedIn);
        assertThat(client.sendUnsequenced(order, 0, 8)).isGreaterThanOrEqualTo(0);
        pump(reactor, () -> events.contains("server U 8"));
    }

    /** A server written by hand that answers one login with the given bytes. */
    private SocketAddress scriptedServer(final byte[] answer) throws Exception {
        final ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        toClose.add(listener);
        final Thread thread = Thread.ofVirtual().start(() -> {
            try (SocketChannel peer = listener.accept()) {
                final ByteBuffer login = ByteBuffer.allocate(49);
                while (login.hasRemaining() && peer.read(login) >= 0) {
                    // the whole Login Request
                }
                peer.write(ByteBuffer.wrap(answer));
                peer.read(ByteBuffer.allocate(1)); // until the client closes
            } catch (final Exception ignored) {
                // the test ends
            }
        });
        toClose.add(thread::interrupt);
        return listener.getLocalAddress();
    }

    @Test
    void shouldReportAGapWhenAcceptedAtAHigherSequenceThanAsked() throws Exception {
        final byte[] accepted = SoupFixture.packet('A', String.format("%10s%20s", "FEED", "10"));
        final byte[] message = SoupFixture.packet('S', "m10");
        final byte[] both = new byte[accepted.length + message.length];
        System.arraycopy(accepted, 0, both, 0, accepted.length);
        System.arraycopy(message, 0, both, accepted.length, message.length);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(scriptedServer(both)));
        client.start();
        pump(reactor, () -> client.nextSequence() == 11);
        assertThat(events).containsExactly("accepted FEED 10", "gap 1 10");
        assertThat(outOfOrder).isZero();
    }

    @Test
    void shouldStopOnLoginRejectedNotAuthorized() throws Exception {
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(scriptedServer(SoupFixture.packet('J', "A"))));
        client.start();
        pump(reactor, client::isStopped);
        clock.advanceMillis(10_000);
        for (int i = 0; i < 100; i++) {
            reactor.doWork();
        }
        assertThat(events).containsExactly("rejected A", "stopped Login Rejected 'A' (not authorized)");
        assertThat(client.connects()).isEqualTo(1);
    }

    @Test
    void shouldReconnectAfterLoginRejectedSessionNotAvailable() throws Exception {
        final SoupBinTcpServer server = server(store(), new SoupBinTcpServerOptions(), 0);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions()
            .addresses(scriptedServer(SoupFixture.packet('J', "S")), server.localAddress()));
        client.start();
        pump(reactor, client::isLoggedIn);
        assertThat(events).containsExactly("rejected S", "lost", "accepted FEED 1");
    }

    @Test
    void shouldStopAfterTheLimitOfSessionRejectionsInARowBackingOffBetweenThem() {
        final SoupBinTcpServer server = server(store(), new SoupBinTcpServerOptions(), 0); // holds nothing: 100 gets S
        final RandomGenerator half = () -> 0L; // every wait is half its base
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions().addresses(server.localAddress())
            .fromSequence(100).backoff(10, 40, TimeUnit.MILLISECONDS).random(half).maxSessionRejections(3));
        client.start();
        pump(reactor, () -> client.connects() == 2 && events.size() == 4); // the first retry is immediate
        assertThat(events).containsExactly("rejected S", "lost", "rejected S", "lost");
        clock.advanceMillis(4);
        for (int i = 0; i < 100; i++) {
            reactor.doWork();
        }
        assertThat(client.connects()).as("1 ms before the back-off of 5 ms").isEqualTo(2);
        clock.advanceMillis(1);
        pump(reactor, client::isStopped);
        assertThat(events).containsExactly("rejected S", "lost", "rejected S", "lost", "rejected S",
            "stopped Login Rejected 'S' (session not available) 3 times in a row, the limit (maxSessionRejections):"
                + " session '' from sequence 100 is not served");
        clock.advanceMillis(60_000);
        for (int i = 0; i < 100; i++) {
            reactor.doWork();
        }
        assertThat(client.connects()).isEqualTo(3);
        assertThat(server.rejectedLogins()).isEqualTo(3);
    }

    @Test
    void shouldCountSessionRejectionsAgainAfterALoginAccepted() {
        final MoldUDP64MessageStore store = store();
        final int[] logins = new int[1];
        final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
        final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions(),
            (user, password, session) -> ++logins[0] % 3 == 0 ? SoupLoginDecision.accept(feed[0])
                : SoupLoginDecision.SESSION_NOT_AVAILABLE, (id, session, buffer, offset, length) -> { });
        feed[0] = server.addSession("FEED", store);
        toClose.add(server);
        final SoupBinTcpClient client = client(new SoupBinTcpClientOptions()
            .addresses(SoupFixture.listen(reactor, server)).backoff(1, 1, TimeUnit.MILLISECONDS).maxSessionRejections(3));
        client.start();
        pump(reactor, () -> {
            clock.advanceMillis(1);
            return client.isLoggedIn();
        });
        client.abortConnection(); // two rejections more, then accepted: 4 in all, never 3 in a row
        pump(reactor, () -> {
            clock.advanceMillis(1);
            return logins[0] == 6 && client.isLoggedIn() || client.isStopped();
        });
        assertThat(events).containsExactly("rejected S", "lost", "rejected S", "lost", "accepted FEED 1", "lost",
            "rejected S", "lost", "rejected S", "lost", "accepted FEED 1");
    }

    @Test
    void shouldCountUnsentBytesAtACutAsDiscarded() {
        assertThat(SoupBinTcpClient.discardedIn("aborted by the application; 120 unsent bytes discarded")).isEqualTo(120);
        assertThat(SoupBinTcpClient.discardedIn("closed by peer")).isZero();
    }
}
