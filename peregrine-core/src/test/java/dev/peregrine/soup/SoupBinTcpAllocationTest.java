package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Server and client allocate nothing in steady state, zero tolerance: on one reactor (the test's thread), a message
 * is published every cycle to a live client and a client replaying 100 000 messages behind (one replayed a cycle,
 * so the replay lasts the whole measurement); every 500 cycles the clock jumps 1.1 s, so heartbeats go out both
 * ways and the timer scan runs in every window.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // up to five sets of 50 000 cycles on a loaded machine
class SoupBinTcpAllocationTest {
    private static final int PREFILL = 100_000;

    @Test
    void shouldAllocateNothingPerMessageLiveOrReplayingWithHeartbeats() {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final long[] live = new long[3]; // next expected, delivered, out of order
        final long[] replay = new long[3];
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 19, 1 << 24)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions().replayBurst(1),
                (user, password, session) -> SoupLoginDecision.accept(feed[0]), (id, session, buffer, offset, length) -> { });
            feed[0] = server.addSession("FEED", store);
            final MemorySegment message = Arena.ofAuto().allocate(16);
            for (int i = 0; i < PREFILL; i++) {
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, store.nextSequence());
                feed[0].publish(message, 0, 16);
            }
            final var address = SoupFixture.listen(reactor, server);
            final SoupBinTcpClient liveClient = new SoupBinTcpClient(reactor, new SoupBinTcpClientOptions()
                .addresses(address).fromSequence(0), recorder(live));
            final SoupBinTcpClient replayClient = new SoupBinTcpClient(reactor, new SoupBinTcpClientOptions()
                .addresses(address).fromSequence(1), recorder(replay));
            live[0] = PREFILL + 1;
            replay[0] = 1;
            liveClient.start();
            replayClient.start();
            pump(reactor, () -> liveClient.isLoggedIn() && replayClient.isLoggedIn());
            final long[] cycles = {0};
            // zero tolerance once the JIT has settled: the first whole set of 20 windows that allocates nothing, at
            // most five (the store holds the prefill and five sets). An allocation once per set fails every set
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 2_500, 20, 5, () -> {
                clock.now += 50_000;
                if (++cycles[0] % 500 == 0) {
                    clock.now += 1_100_000_000L;
                }
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, store.nextSequence());
                feed[0].publish(message, 0, 16);
                reactor.doWork();
            });
            final long last = store.nextSequence() - 1;
            pump(reactor, () -> live[0] == last + 1);
            assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
            assertThat(live[2]).isZero();
            assertThat(replay[2]).isZero();
            assertThat(live[1]).isEqualTo(last - PREFILL);
            assertThat(replay[1]).isGreaterThan(90_000); // replaying throughout: about one a cycle, 100 000 behind
            assertThat(replay[1]).isLessThan(last);
            assertThat(server.timeouts()).isZero();
            liveClient.close();
            replayClient.close();
            server.close();
        }
    }

    private static SoupBinTcpClientListener recorder(final long[] counts) {
        return (sequence, buffer, offset, length) -> {
            if (sequence != counts[0] || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != sequence) {
                counts[2]++;
            }
            counts[0] = sequence + 1;
            counts[1]++;
        };
    }
}
