package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.packet;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpServerTest {
    private final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
    private final List<String> events = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private Reactor reactor;
    private MoldUDP64MessageStore feedStore;
    private SoupBinTcpServer server;
    private SoupBinTcpSession feed;
    private SoupBinTcpSession alice;
    private SocketAddress address;

    @BeforeEach
    void start() {
        start(new SoupBinTcpServerOptions(), 1 << 10);
    }

    private void start(final SoupBinTcpServerOptions options, final int storeMessages) {
        reactor = SoupFixture.reactor(clock);
        feedStore = MoldUDP64MessageStore.inMemory("FEED", storeMessages, 1 << 20);
        server = new SoupBinTcpServer(reactor, options, this::authenticate, new SoupBinTcpServerHandler() {
            @Override
            public void onUnsequencedData(final long channelId, final SoupBinTcpSession session, final MemorySegment buffer,
                final long offset, final int length) {
                final byte[] bytes = buffer.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                events.add("U " + session.name() + " " + new String(bytes, StandardCharsets.ISO_8859_1));
            }

            @Override
            public void onClosed(final long channelId, final dev.peregrine.channel.CloseReason reason, final String detail) {
                events.add("closed " + reason + " " + detail);
            }
        });
        feed = server.addSession("FEED", feedStore);
        alice = server.addSession("ALICE", MoldUDP64MessageStore.inMemory("ALICE", 64, 1 << 16));
        toClose.add(alice.store());
        address = SoupFixture.listen(reactor, server);
    }

    private SoupLoginDecision authenticate(final String username, final String password, final String requested) {
        if (!password.equals("secret")) {
            return SoupLoginDecision.NOT_AUTHORIZED;
        }
        if (requested.isEmpty() || requested.equals("FEED")) {
            return SoupLoginDecision.accept(feed); // shared by every user
        }
        if (requested.equals("ALICE")) {
            return username.equals("alice") ? SoupLoginDecision.accept(alice) : SoupLoginDecision.NOT_AUTHORIZED;
        }
        return SoupLoginDecision.SESSION_NOT_AVAILABLE;
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        reactor.close();
        feedStore.close();
        for (final AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    private SoupFixture.RawClient client() {
        final SoupFixture.RawClient client = new SoupFixture.RawClient(address);
        toClose.add(client);
        return client;
    }

    private void publish(final SoupBinTcpSession session, final String text) {
        final MemorySegment message = Arena.ofAuto().allocateFrom(text, StandardCharsets.ISO_8859_1);
        session.publish(message, 0, text.length());
    }

    private void await(final SoupFixture.RawClient client, final int events) {
        pump(reactor, () -> client.poll().size() >= events);
    }

    @Test
    void shouldReplayFromTheRequestedSequenceThenGoLive() {
        for (int i = 1; i <= 5; i++) {
            publish(feed, "m" + i);
        }
        final SoupFixture.RawClient client = client();
        client.send(login("alice", "secret", "FEED", "3"));
        await(client, 4);
        publish(feed, "m6");
        await(client, 5);
        assertThat(client.events).containsExactly("A FEED 3", "S 3 m3", "S 4 m4", "S 5 m5", "S 6 m6");
    }

    @Test
    void shouldAnswerALoginAlreadyInTheSocketAtAcceptWithinTheAcceptsCycle() {
        final SoupFixture.RawClient client = client(); // connected by the kernel; the server has not run a cycle
        client.send(login("alice", "secret", "FEED", "1")); // on loopback, in the server's socket once written
        int cycle = 0;
        int acceptedAt = -1;
        final long deadline = System.nanoTime() + 10_000_000_000L; // fails a hung wait only
        while (server.acceptedLogins() == 0 && System.nanoTime() < deadline) {
            reactor.doWork();
            cycle++;
            if (acceptedAt < 0 && server.connectionCount() > 0) {
                acceptedAt = cycle;
            }
        }
        assertThat(server.acceptedLogins()).isEqualTo(1);
        assertThat(cycle).as("the cycle of the Login Accepted").isEqualTo(acceptedAt);
        await(client, 1);
        assertThat(client.events).containsExactly("A FEED 1");
    }

    @Test
    void shouldStartWithTheNextMessagePublishedWhenSequenceIsZero() {
        publish(feed, "old");
        final SoupFixture.RawClient client = client();
        client.send(login("bob", "secret", "", "0"));
        await(client, 1);
        publish(feed, "new");
        await(client, 2);
        assertThat(client.events).containsExactly("A FEED 2", "S 2 new");
    }

    @Test
    void shouldRejectWithSessionNotAvailableASequenceOlderThanTheStoreOrPastItsEnd() {
        server.close();
        reactor.close();
        feedStore.close();
        start(new SoupBinTcpServerOptions(), 4); // keeps the last 4 messages
        for (int i = 1; i <= 10; i++) {
            publish(feed, "m" + i);
        }
        assertThat(feedStore.firstSequence()).isEqualTo(7);
        final SoupFixture.RawClient old = client();
        old.send(login("alice", "secret", "FEED", "6"));
        await(old, 2);
        final SoupFixture.RawClient past = client();
        past.send(login("alice", "secret", "FEED", "12"));
        await(past, 2);
        final SoupFixture.RawClient end = client();
        end.send(login("alice", "secret", "FEED", "11"));
        await(end, 1);
        final SoupFixture.RawClient oldest = client();
        oldest.send(login("alice", "secret", "FEED", "7"));
        await(oldest, 5);
        assertThat(old.events).containsExactly("J S", "closed");
        assertThat(past.events).containsExactly("J S", "closed");
        assertThat(end.events).containsExactly("A FEED 11");
        assertThat(oldest.events).containsExactly("A FEED 7", "S 7 m7", "S 8 m8", "S 9 m9", "S 10 m10");
        assertThat(server.rejectedLogins()).isEqualTo(2);
        assertThat(feedStore.nextSequence()).isEqualTo(11);
    }

    @Test
    void shouldRejectABadPasswordAndAnUnknownSessionAndAnotherUsersSession() {
        final SoupFixture.RawClient badPassword = client();
        badPassword.send(login("alice", "wrong", "FEED", "1"));
        final SoupFixture.RawClient unknown = client();
        unknown.send(login("alice", "secret", "NOPE", "1"));
        final SoupFixture.RawClient notHers = client();
        notHers.send(login("bob", "secret", "ALICE", "1"));
        await(badPassword, 2);
        await(unknown, 2);
        await(notHers, 2);
        assertThat(badPassword.events).containsExactly("J A", "closed");
        assertThat(unknown.events).containsExactly("J S", "closed");
        assertThat(notHers.events).containsExactly("J A", "closed");
        assertThat(events).hasSize(3).allMatch(e -> e.startsWith("closed LOCAL Login Rejected"));
    }

    @Test
    void shouldServeASharedSessionToManyUsersAndAnOwnedSessionToItsOwnerOnly() {
        final SoupFixture.RawClient a = client();
        a.send(login("alice", "secret", "", "1"));
        final SoupFixture.RawClient b = client();
        b.send(login("bob", "secret", "FEED", "1"));
        final SoupFixture.RawClient orders = client();
        orders.send(login("alice", "secret", "ALICE", "1"));
        pump(reactor, () -> a.poll().size() == 1 && b.poll().size() == 1 && orders.poll().size() == 1);
        publish(feed, "quote");
        publish(alice, "fill");
        await(a, 2);
        await(b, 2);
        await(orders, 2);
        assertThat(a.events).containsExactly("A FEED 1", "S 1 quote");
        assertThat(b.events).containsExactly("A FEED 1", "S 1 quote");
        assertThat(orders.events).containsExactly("A ALICE 1", "S 1 fill");
        orders.send(packet('U', "order"));
        pump(reactor, () -> events.size() == 1);
        assertThat(events).containsExactly("U ALICE order");
    }

    static Stream<Arguments> badInput() {
        final byte[] lengthZero = {0, 0};
        final byte[] overLong = new byte[2 + 3000];
        overLong[0] = (byte)(3000 >> 8);
        overLong[1] = (byte)3000;
        overLong[2] = 'U';
        return Stream.of(
            Arguments.of("second login", cat(login("alice", "secret", "FEED", "1"), login("alice", "secret", "FEED", "1")),
                "a second Login Request on one connection"),
            Arguments.of("data before login", packet('U', "early"), "Unsequenced Data before login"),
            Arguments.of("unknown type", packet('Q', ""), "unknown packet type 'Q'"),
            Arguments.of("server type from a client", packet('S', "x"), "unknown packet type 'S'"),
            Arguments.of("length 0", lengthZero, "a packet of length 0"),
            Arguments.of("over-long packet", overLong, "3000"),
            Arguments.of("short login", packet('L', String.format("%-6s%-10s%10s%19s", "alice", "secret", "FEED", "1")),
                "payload of 45 bytes, not 46"),
            Arguments.of("username padded on the left", packet('L', String.format("%6s%-10s%10s%20s", "bob", "secret", "FEED", "1")),
                "username: a space before character 3"),
            Arguments.of("password padded on the left", packet('L', String.format("%-6s%10s%10s%20s", "bob", "secret", "FEED", "1")),
                "password: a space before character 4"),
            Arguments.of("session padded on the right", packet('L', String.format("%-6s%-10s%-10s%20s", "bob", "secret", "FEED", "1")),
                "requested session: a space at 4 after the text"),
            Arguments.of("session of the wrong width", packet('L', String.format("%-6s%-10s%11s%19s", "bob", "secret", "FEED", "1")),
                "requested sequence number"),
            Arguments.of("sequence with a letter", login("bob", "secret", "FEED", "12a"), "requested sequence number '12a'"),
            Arguments.of("sequence padded on the right", packet('L', String.format("%-6s%-10s%10s%-20s", "bob", "secret", "FEED", "1")),
                "requested sequence number"),
            Arguments.of("sequence all spaces", login("bob", "secret", "FEED", ""), "requested sequence number"),
            Arguments.of("sequence past 2^63", login("bob", "secret", "FEED", "99999999999999999999"), "requested sequence number"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInput")
    void shouldCloseOnlyTheOffendingConnectionWithAReasonAndLeaveTheStoreAlone(final String name, final byte[] bytes,
        final String reason) {
        server.close();
        reactor.close();
        feedStore.close();
        start(new SoupBinTcpServerOptions().maxPacketLength(2000), 1 << 10);
        publish(feed, "m1");
        final SoupFixture.RawClient good = client();
        good.send(login("alice", "secret", "FEED", "1"));
        await(good, 2);
        final SoupFixture.RawClient bad = client();
        bad.send(bytes);
        pump(reactor, () -> bad.poll().contains("closed"));
        assertThat(events).hasSize(1);
        assertThat(events.get(0)).startsWith("closed ERROR").contains(reason);
        assertThat(server.protocolErrors()).isEqualTo(1);
        assertThat(feedStore.nextSequence()).isEqualTo(2);
        publish(feed, "m2");
        await(good, 3);
        assertThat(good.events).containsExactly("A FEED 1", "S 1 m1", "S 2 m2");
    }

    @Test
    void shouldCloseAConnectionThatSendsNoLoginInTime() {
        final SoupFixture.RawClient silent = client();
        pump(reactor, () -> server.connectionCount() == 1);
        clock.advanceMillis(4_900);
        reactor.doWork();
        assertThat(server.connectionCount()).isEqualTo(1);
        clock.advanceMillis(200);
        pump(reactor, () -> silent.poll().contains("closed"));
        assertThat(events).containsExactly("closed ERROR no Login Request within 5000 ms");
        assertThat(server.timeouts()).isEqualTo(1);
    }

    @Test
    void shouldSendHeartbeatsAfterOneSecondOfSilenceAndCloseAfterFifteenWithoutReceiving() {
        final SoupFixture.RawClient client = client();
        client.send(login("alice", "secret", "FEED", "1"));
        await(client, 1); // login received and answered at t0
        clock.advanceMillis(900);
        reactor.doWork();
        publish(feed, "m1"); // sent at t0 + 0.9 s: the heartbeat clock starts again
        await(client, 2);
        clock.advanceMillis(900);
        reactor.doWork();
        clock.advanceMillis(150); // 1.05 s after m1
        await(client, 3);
        // the heartbeat is the marker: had one gone out at 0.9 s after the login or after m1, it would come first
        assertThat(client.events).containsExactly("A FEED 1", "S 1 m1", "H");
        for (int i = 1; i <= 12; i++) { // to t0 + 13.95 s, a heartbeat a second
            clock.advanceMillis(1_000);
            await(client, 3 + i);
        }
        client.send(packet('R', ""));
        client.send(packet('U', "marker")); // handled after the heartbeat: the receive clock restarted at 13.95 s
        pump(reactor, () -> events.size() == 1);
        clock.advanceMillis(14_000);
        await(client, 16); // a heartbeat at 27.95 s, and no close: 14 s without receiving
        clock.advanceMillis(1_100);
        pump(reactor, () -> client.poll().contains("closed"));
        assertThat(events).containsExactly("U FEED marker", "closed ERROR nothing received for 15000 ms (receive timeout)");
        assertThat(client.events.subList(3, 16)).allMatch("H"::equals);
        assertThat(server.timeouts()).isEqualTo(1);
    }

    @Test
    void shouldSendEndOfSessionAfterTheLastMessageAlsoToAClientStillReplaying() {
        for (int i = 1; i <= 3; i++) {
            publish(feed, "m" + i);
        }
        final SoupFixture.RawClient live = client();
        live.send(login("alice", "secret", "FEED", "4"));
        await(live, 1);
        feed.end();
        await(live, 2);
        final SoupFixture.RawClient late = client();
        late.send(login("bob", "secret", "FEED", "2"));
        await(late, 4);
        assertThat(live.events).containsExactly("A FEED 4", "Z");
        assertThat(late.events).containsExactly("A FEED 2", "S 2 m2", "S 3 m3", "Z");
    }

    @Test
    void shouldCloseOnLogoutRequest() {
        final SoupFixture.RawClient client = client();
        client.send(login("alice", "secret", "FEED", "1"));
        await(client, 1);
        client.send(packet('O', ""));
        pump(reactor, () -> client.poll().contains("closed"));
        assertThat(events).containsExactly("closed LOCAL Logout Request");
        assertThat(feed.clientCount()).isZero();
    }

    private static byte[] cat(final byte[] a, final byte[] b) {
        final byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
