package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seam between replay and live while publishing goes on, and a slow client served from the store as fast as
 * its socket takes it, with a bounded outbound buffer and without holding up a fast client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpServerFlowTest {
    private static void publish(final SoupBinTcpSession session, final long sequence) {
        final String text = "m" + sequence;
        final MemorySegment message = Arena.ofAuto().allocateFrom(text, StandardCharsets.ISO_8859_1);
        assertThat(session.publish(message, 0, text.length())).isEqualTo(sequence);
    }

    private static void assertExactlyOnceInOrder(final List<String> events, final long from, final long to) {
        assertThat(events).hasSize((int)(to - from + 2));
        assertThat(events.get(0)).isEqualTo("A FEED " + from);
        for (long sequence = from; sequence <= to; sequence++) {
            assertThat(events.get((int)(sequence - from + 1))).isEqualTo("S " + sequence + " m" + sequence);
        }
    }

    @Test
    void shouldHaveNoGapAndNoRepeatAtTheSeamWhilePublishingGoesOn() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions().replayBurst(7),
                (user, password, session) -> SoupLoginDecision.accept(feed[0]), (id, session, buffer, offset, length) -> { });
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            for (long sequence = 1; sequence <= 3_000; sequence++) {
                publish(feed[0], sequence);
            }
            try (SoupFixture.RawClient client = new SoupFixture.RawClient(address)) {
                client.send(login("alice", "pw", "FEED", "5"));
                final long[] next = {3_001};
                // a message published every cycle while the replay, 7 a cycle, catches up with it
                pump(reactor, () -> {
                    if (client.poll().size() > 3_000 && client.count("S") == next[0] - 5) {
                        return true; // caught up with everything published so far
                    }
                    publish(feed[0], next[0]++);
                    return false;
                });
                for (int i = 0; i < 100; i++) { // live after the seam
                    publish(feed[0], next[0]++);
                }
                pump(reactor, () -> client.poll().size() == next[0] - 5 + 1);
                assertExactlyOnceInOrder(client.events, 5, next[0] - 1);
            }
            server.close();
        }
    }

    @Test
    void shouldServeASlowClientFromTheStoreWithABoundedBufferWithoutHoldingUpAFastOne() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions()
                .tcp(new TcpOptions().outboundBufferSize(4096).socketSendBufferSize(4096)),
                (user, password, session) -> SoupLoginDecision.accept(feed[0]), (id, session, buffer, offset, length) -> { });
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            for (long sequence = 1; sequence <= 20_000; sequence++) {
                publish(feed[0], sequence);
            }
            try (SoupFixture.RawClient slow = new SoupFixture.RawClient(address, 4096);
                 SoupFixture.RawClient fast = new SoupFixture.RawClient(address)) {
                slow.send(login("slow", "pw", "FEED", "1"));
                fast.send(login("fast", "pw", "FEED", "0"));
                pump(reactor, () -> fast.poll().size() == 1 && feed[0].clientCount() == 2);
                for (int i = 0; i < 50; i++) {
                    reactor.doWork(); // the slow client's buffers fill; it reads nothing
                }
                for (long sequence = 20_001; sequence <= 20_500; sequence++) {
                    publish(feed[0], sequence);
                    reactor.doWork();
                }
                pump(reactor, () -> fast.poll().size() == 501);
                assertExactlyOnceInOrder(fast.events, 20_001, 20_500);
                // what the kernel holds for it is far less than the 20 500 messages: the rest waits in the store
                assertThat(slow.poll().size()).isLessThan(10_000);
                pump(reactor, () -> slow.poll().size() == 20_501);
                assertExactlyOnceInOrder(slow.events, 1, 20_500);
            }
            server.close();
        }
    }
    @Test
    void shouldCloseAClientThatFellBehindWhatTheStoreStillHolds() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final java.util.List<String> closes = new java.util.ArrayList<>();
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 256, 1 << 16)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions()
                .tcp(new TcpOptions().outboundBufferSize(4096).socketSendBufferSize(4096)),
                (user, password, session) -> SoupLoginDecision.accept(feed[0]), new SoupBinTcpServerHandler() {
                    @Override
                    public void onUnsequencedData(final long id, final SoupBinTcpSession session, final MemorySegment buffer,
                        final long offset, final int length) {
                    }

                    @Override
                    public void onClosed(final long id, final dev.peregrine.channel.CloseReason reason, final String detail) {
                        closes.add(reason + " " + detail);
                    }
                });
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            final MemorySegment message = Arena.ofAuto().allocate(1000);
            try (SoupFixture.RawClient slow = new SoupFixture.RawClient(address, 4096)) {
                slow.send(login("slow", "pw", "FEED", "0"));
                pump(reactor, () -> feed[0].clientCount() == 1);
                // 1 000-byte messages while it reads nothing: the store keeps 65 of them, far less than the stream
                pump(reactor, () -> {
                    feed[0].publish(message, 0, 1000);
                    clock.advanceMillis(1); // the timer scan, every 100 ms, finds it even while its socket is full
                    return !closes.isEmpty();
                });
                assertThat(closes.getFirst()).startsWith("ERROR fell behind the store: next sequence ");
                assertThat(server.protocolErrors()).isEqualTo(1);
            }
            server.close();
        }
    }
}
