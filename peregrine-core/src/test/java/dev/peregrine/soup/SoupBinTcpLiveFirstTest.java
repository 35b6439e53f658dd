package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32: a caught-up client's bytes leave before the replays' in the cycle's end-of-cycle write, though the
 * replays were served earlier in the cycle; every message still reaches each client exactly once, in order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpLiveFirstTest {
    private final MemorySegment message = Arena.ofAuto().allocate(8);

    @Test
    void shouldWriteTheCaughtUpClientBeforeTheReplayServedEarlierInTheCycle() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final Map<String, Long> ids = new HashMap<>();
        final List<Long> writes = new ArrayList<>();
        final int replayed = 5_000;
        final int cycles = 20;
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServerOptions options = new SoupBinTcpServerOptions().replayCycleBytes(1024)
                .tcp(new TcpOptions().writeListener((id, written, pending) -> writes.add(id)));
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, options,
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
            // the publisher polls after the server's duty cycle (its replay pass) and before the transport's
            // end-of-cycle write, which joins the reactor with the first claim: the bench's order
            final boolean[] publishing = {false};
            reactor.add(nowNs -> {
                if (!publishing[0]) {
                    return 0;
                }
                message.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, nowNs);
                feed[0].publish(message, 0, 8);
                return 1;
            });
            final SocketAddress address = SoupFixture.listen(reactor, server);
            for (int i = 0; i < replayed; i++) {
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
                publishing[0] = true;
                for (int cycle = 0; cycle < cycles; cycle++) {
                    writes.clear();
                    reactor.doWork();
                    // the replay was served (and listed for the write) first, in the server's pollable
                    assertThat(writes).as("writes of cycle %d", cycle).containsExactly(liveId, replayId);
                    replay.poll();
                    live.poll();
                }
                publishing[0] = false;
                pump(reactor, () -> live.poll().size() == 1 + cycles && replay.poll().size() == 1 + replayed + cycles);
                assertThat(live.count("S")).isEqualTo(cycles);
                for (int i = 1; i <= cycles; i++) {
                    assertThat(live.events.get(i)).startsWith("S " + (replayed + i) + " ");
                }
                for (int s = 1; s <= replayed + cycles; s++) {
                    assertThat(replay.events.get(s)).startsWith("S " + s + " ");
                }
            }
            server.close();
        }
    }
}
