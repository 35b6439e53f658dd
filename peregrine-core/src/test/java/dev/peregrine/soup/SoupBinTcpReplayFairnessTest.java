package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 32: in a duty cycle the caught-up clients are served before the replays, the replays share a per-cycle byte
 * budget ({@link SoupBinTcpServerOptions#replayCycleBytes}) in turn, and exactly-once holds across the seam.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpReplayFairnessTest {
    /** Every message 8 bytes: an 11-byte packet. */
    private static final int PACKET = 11;
    private final MemorySegment message = Arena.ofAuto().allocate(8);

    private static long position(final SoupBinTcpServer server, final long id) {
        return server.bytesWritten(id) + server.pendingBytes(id);
    }

    private SoupBinTcpServer server(final Reactor reactor, final SoupBinTcpSession[] feed, final Map<String, Long> ids,
        final SoupBinTcpServerOptions options) {
        return new SoupBinTcpServer(reactor, options, (user, password, session) -> SoupLoginDecision.accept(feed[0]),
            new SoupBinTcpServerHandler() {
                @Override
                public void onUnsequencedData(final long channelId, final SoupBinTcpSession session,
                    final MemorySegment buffer, final long offset, final int length) {
                }

                @Override
                public void onLoggedIn(final long channelId, final SoupBinTcpSession session, final String username,
                    final long nextSequence) {
                    ids.put(username, channelId);
                }
            });
    }

    @Test
    void shouldRefuseAReplayBudgetBelowOneByteNamingIt() {
        assertThatThrownBy(() -> new SoupBinTcpServerOptions().replayCycleBytes(0))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replayCycleBytes=0");
        assertThat(new SoupBinTcpServerOptions().replayCycleBytes()).isEqualTo(64 * 1024);
    }

    @Test
    void shouldServeTheCaughtUpClientInTheCycleEvenWhenTheReplayBudgetIsSpent() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final Map<String, Long> ids = new HashMap<>();
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            // a budget of 1 byte: one packet of one replaying client per cycle
            final SoupBinTcpServer server = server(reactor, feed, ids,
                new SoupBinTcpServerOptions().replayBurst(4).replayCycleBytes(1));
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            for (int i = 0; i < 5_000; i++) {
                store.append(message, 0, 8);
            }
            try (SoupFixture.RawClient replay = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient live = new SoupFixture.RawClient(address)) {
                replay.send(login("replay", "pw", "FEED", "1")); // accepted first: first in the server's list
                pump(reactor, () -> ids.containsKey("replay"));
                live.send(login("live", "pw", "FEED", "0"));
                pump(reactor, () -> ids.containsKey("live"));
                final long replayId = ids.get("replay");
                final long liveId = ids.get("live");
                for (int cycle = 0; cycle < 20; cycle++) {
                    // appended without a flush: the server's duty cycle serves it, as it does a gateway's messages
                    feed[0].append(message, 0, 8);
                    final long replayBefore = position(server, replayId);
                    final long liveBefore = position(server, liveId);
                    reactor.doWork();
                    assertThat(position(server, liveId) - liveBefore).as("live, cycle %d", cycle).isEqualTo(PACKET);
                    assertThat(position(server, replayId) - replayBefore).as("replay, cycle %d", cycle)
                        .isEqualTo(PACKET);
                    replay.poll();
                    live.poll();
                }
                assertThat(live.events).hasSize(21);
                for (int i = 1; i <= 20; i++) {
                    assertThat(live.events.get(i)).startsWith("S " + (5_000 + i) + " ");
                }
            }
            server.close();
        }
    }

    @Test
    void shouldShareTheReplayBudgetInTurnAndDeliverEveryMessageExactlyOnce() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final Map<String, Long> ids = new HashMap<>();
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            // a budget of 3 packets a cycle, a burst of 2: one client and a half a cycle
            final SoupBinTcpServer server = server(reactor, feed, ids,
                new SoupBinTcpServerOptions().replayBurst(2).replayCycleBytes(3 * PACKET));
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            for (int i = 0; i < 600; i++) {
                store.append(message, 0, 8);
            }
            final SoupFixture.RawClient[] clients = new SoupFixture.RawClient[3];
            try (SoupFixture.RawClient a = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient b = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient c = new SoupFixture.RawClient(address)) {
                clients[0] = a;
                clients[1] = b;
                clients[2] = c;
                for (int i = 0; i < 3; i++) {
                    final String user = "c" + i;
                    clients[i].send(login(user, "pw", "FEED", "1"));
                    pump(reactor, () -> ids.containsKey(user));
                }
                final long[] before = new long[3];
                for (int i = 0; i < 3; i++) {
                    before[i] = position(server, ids.get("c" + i));
                }
                for (int cycle = 0; cycle < 30; cycle++) {
                    reactor.doWork();
                    for (final SoupFixture.RawClient client : clients) {
                        client.poll();
                    }
                }
                // 30 cycles of 3 packets: 90 packets, 30 each when shared in turn (one client alone would take all)
                for (int i = 0; i < 3; i++) {
                    assertThat(position(server, ids.get("c" + i)) - before[i]).as("client c%d", i)
                        .isEqualTo(30L * PACKET);
                }
                for (int i = 0; i < 3; i++) {
                    final SoupFixture.RawClient client = clients[i];
                    pump(reactor, () -> client.poll().size() == 601);
                    assertThat(client.count("S")).isEqualTo(600);
                    for (int s = 1; s <= 600; s++) {
                        assertThat(client.events.get(s)).startsWith("S " + s + " ");
                    }
                }
            }
            server.close();
        }
    }
}
