package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32 (soup10): a publish looks only at the clients that are not replaying. With many clients replaying and one
 * caught up, the publish path touched every client of the session (a compare each) to serve one; now the session
 * keeps the clients that are not replaying apart. Every message still reaches each client exactly once, in order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpLiveListTest {
    private final MemorySegment message = Arena.ofAuto().allocate(8);

    @Test
    void shouldLookOnlyAtTheCaughtUpClientsWhenPublishingWhileOthersReplay() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final Map<String, Long> ids = new HashMap<>();
        final int replayed = 5_000;
        final int publishes = 30;
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            // a tiny replay budget: the three replaying clients stay behind while the live one is published to
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor,
                new SoupBinTcpServerOptions().replayCycleBytes(64),
                (user, password, session) -> SoupLoginDecision.accept(feed[0]), new SoupBinTcpServerHandler() {
                    @Override
                    public void onUnsequencedData(final long channelId, final SoupBinTcpSession session,
                        final MemorySegment buffer, final long offset, final int length) {
                    }

                    @Override
                    public void onLoggedIn(final long channelId, final SoupBinTcpSession session,
                        final String username, final long nextSequence) {
                        ids.put(username, channelId);
                    }
                });
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            for (int i = 1; i <= replayed; i++) {
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                store.append(message, 0, 8);
            }
            try (SoupFixture.RawClient a = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient b = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient c = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient live = new SoupFixture.RawClient(address)) {
                final SoupFixture.RawClient[] replaying = {a, b, c};
                for (int i = 0; i < replaying.length; i++) {
                    replaying[i].send(login("r" + i, "pw", "FEED", "1"));
                    final String user = "r" + i;
                    pump(reactor, () -> ids.containsKey(user));
                }
                live.send(login("live", "pw", "FEED", "0"));
                pump(reactor, () -> ids.containsKey("live"));
                assertThat(feed[0].clientCount()).isEqualTo(4);
                assertThat(feed[0].liveClientCount()).as("only the live client is not replaying").isEqualTo(1);

                final long visitsBefore = feed[0].flushVisits();
                for (int p = 1; p <= publishes; p++) {
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, replayed + p);
                    feed[0].publish(message, 0, 8);
                    reactor.doWork();
                    live.poll();
                }
                assertThat(feed[0].flushVisits() - visitsBefore).as("clients a publish looked at, %d publishes with"
                    + " three clients replaying", publishes).isEqualTo(publishes);

                final long total = replayed + publishes;
                pump(reactor, () -> {
                    boolean done = live.poll().size() == 1 + publishes;
                    for (final SoupFixture.RawClient r : replaying) {
                        done &= r.poll().size() == 1 + total;
                    }
                    return done;
                });
                pump(reactor, () -> feed[0].liveClientCount() == 4); // caught up: the next pass marks them live
                final long visitsCaughtUp = feed[0].flushVisits();
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, total + 1);
                feed[0].publish(message, 0, 8);
                assertThat(feed[0].flushVisits() - visitsCaughtUp).as("all four caught up").isEqualTo(4);
                pump(reactor, () -> live.poll().size() == 2 + publishes && a.poll().size() == 2 + total
                    && b.poll().size() == 2 + total && c.poll().size() == 2 + total);

                for (final SoupFixture.RawClient r : new SoupFixture.RawClient[] {a, b, c, live}) {
                    final long first = r == live ? replayed + 1 : 1;
                    assertThat(r.count("S")).isEqualTo(total + 1 - first + 1);
                    for (long s = first; s <= total + 1; s++) {
                        assertThat(r.events.get((int)(s - first + 1))).startsWith("S " + s + " ");
                    }
                }
                hangUp(a);
                pump(reactor, () -> feed[0].clientCount() == 3);
                assertThat(feed[0].liveClientCount()).as("a closed client leaves the list").isEqualTo(3);
            }
            server.close();
        }
    }

    /** Closes a client's socket before its try block ends (closing it twice is harmless). */
    private static void hangUp(final SoupFixture.RawClient client) throws Exception {
        client.close();
    }
}
