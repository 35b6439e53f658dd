package dev.peregrine.soup;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Messages served in runs: {@link SoupBinTcpSession#append} (or a {@link SoupBinTcpSession#claim claimed} run) then
 * {@link SoupBinTcpSession#flush}, a run longer than
 * one claim across back-pressure, and a run that ends before a message too long for Sequenced Data. The raw client
 * of {@link SoupFixture} decodes the bytes (the oracle).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpBatchTest {
    private final List<String> closes = new ArrayList<>();

    private SoupBinTcpServer server(final Reactor reactor, final SoupBinTcpSession[] feed, final TcpOptions tcp) {
        return new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions().tcp(tcp),
            (user, password, session) -> SoupLoginDecision.accept(feed[0]), new SoupBinTcpServerHandler() {
                @Override
                public void onUnsequencedData(final long id, final SoupBinTcpSession session, final MemorySegment buffer,
                    final long offset, final int length) {
                }

                @Override
                public void onClosed(final long id, final CloseReason reason, final String detail) {
                    closes.add(reason + " " + detail);
                }
            });
    }

    private static long append(final SoupBinTcpSession session, final long sequence) {
        final String text = "m" + sequence;
        return session.append(Arena.ofAuto().allocateFrom(text, StandardCharsets.ISO_8859_1), 0, text.length());
    }

    /** Claims {@code count} messages "m1" to "m9" from {@code sequence}, writes them in place, commits. */
    private static long claim(final SoupBinTcpSession session, final long sequence, final int count) {
        final long offset = session.claim(2, count);
        assertThat(session.claimCount()).isEqualTo(count);
        for (int i = 0; i < count; i++) {
            final String text = "m" + (sequence + i);
            MemorySegment.copy(Arena.ofAuto().allocateFrom(text, StandardCharsets.ISO_8859_1), 0, session.claimBuffer(),
                offset + i * 5L, 2);
        }
        return session.commit();
    }

    private static void assertExactlyOnceInOrder(final List<String> events, final long from, final long to) {
        assertThat(events).hasSize((int)(to - from + 2));
        for (long sequence = from; sequence <= to; sequence++) {
            assertThat(events.get((int)(sequence - from + 1))).isEqualTo("S " + sequence + " m" + sequence);
        }
    }

    @Test
    void shouldSendWhatWasAppendedAtTheFlushExactlyOnceInOrder() throws Exception {
        try (Reactor reactor = SoupFixture.reactor(new SoupFixture.ManualClock());
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 10, 1 << 20)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = server(reactor, feed, new TcpOptions());
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            try (SoupFixture.RawClient client = new SoupFixture.RawClient(address)) {
                client.send(login("alice", "pw", "FEED", "1"));
                pump(reactor, () -> client.poll().size() == 1);
                for (long sequence = 1; sequence <= 3; sequence++) {
                    assertThat(append(feed[0], sequence)).isEqualTo(sequence);
                }
                assertThat(feed[0].flush()).as("the three messages sent by the flush, no duty cycle between").isEqualTo(3);
                assertThat(feed[0].flush()).as("nothing appended since").isZero();
                pump(reactor, () -> client.poll().size() == 4);
                assertThat(client.events.getFirst()).isEqualTo("A FEED 1");
                assertExactlyOnceInOrder(client.events, 1, 3);
                // publish after appends sends them all, in order
                append(feed[0], 4);
                final String text = "m5";
                assertThat(feed[0].publish(Arena.ofAuto().allocateFrom(text, StandardCharsets.ISO_8859_1), 0, 2)).isEqualTo(5);
                pump(reactor, () -> client.poll().size() == 6);
                assertExactlyOnceInOrder(client.events, 1, 5);
            }
            server.close();
        }
    }

    @Test
    void shouldSendAClaimedRunWithWhatWasAppendedBeforeItAtTheFlushExactlyOnceInOrder() throws Exception {
        try (Reactor reactor = SoupFixture.reactor(new SoupFixture.ManualClock());
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 10, 1 << 20)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = server(reactor, feed, new TcpOptions());
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            try (SoupFixture.RawClient client = new SoupFixture.RawClient(address)) {
                client.send(login("alice", "pw", "FEED", "1"));
                pump(reactor, () -> client.poll().size() == 1);
                assertThat(claim(feed[0], 1, 3)).isEqualTo(1);
                assertThat(feed[0].flush()).as("the claimed run, no duty cycle between").isEqualTo(3);
                append(feed[0], 4);
                assertThat(claim(feed[0], 5, 2)).isEqualTo(5);
                assertThat(feed[0].flush()).as("the appended and the claimed").isEqualTo(3);
                pump(reactor, () -> client.poll().size() == 7);
                assertExactlyOnceInOrder(client.events, 1, 6);
                feed[0].end();
                assertThatThrownBy(() -> feed[0].claim(2, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("session=FEED has ended");
            }
            server.close();
        }
    }

    @Test
    void shouldServeRunsLongerThanOneClaimAcrossBackPressureExactlyOnceInOrder() throws Exception {
        try (Reactor reactor = SoupFixture.reactor(new SoupFixture.ManualClock());
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 22)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            // a claim of at most 1 KiB, a buffer of 4 KiB: 20 000 messages are many runs and many refusals
            final SoupBinTcpServer server = server(reactor, feed, new TcpOptions().outboundBufferSize(4096)
                .socketSendBufferSize(4096));
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            try (SoupFixture.RawClient client = new SoupFixture.RawClient(address, 4096)) {
                client.send(login("alice", "pw", "FEED", "0"));
                pump(reactor, () -> client.poll().size() == 1);
                for (long sequence = 1; sequence <= 20_000; sequence++) {
                    append(feed[0], sequence);
                }
                assertThat(feed[0].flush()).as("as much as the buffer takes, in more than one run").isBetween(2, 19_999);
                pump(reactor, () -> client.poll().size() == 20_001);
                assertExactlyOnceInOrder(client.events, 1, 20_000);
                assertThat(closes).isEmpty();
            }
            server.close();
        }
    }

    @Test
    void shouldEndARunBeforeAMessageTooLongForSequencedDataAndCloseTheClientWithTheReason() throws Exception {
        try (Reactor reactor = SoupFixture.reactor(new SoupFixture.ManualClock());
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 10, 1 << 20)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = server(reactor, feed, new TcpOptions());
            feed[0] = server.addSession("FEED", store);
            final SocketAddress address = SoupFixture.listen(reactor, server);
            append(feed[0], 1);
            append(feed[0], 2);
            // a store shared with MoldUDP64 may hold 65 535 bytes, one more than Sequenced Data carries
            assertThat(store.append(Arena.ofAuto().allocate(65_535), 0, 65_535)).isEqualTo(3);
            try (SoupFixture.RawClient client = new SoupFixture.RawClient(address)) {
                client.send(login("alice", "pw", "FEED", "1"));
                pump(reactor, () -> client.poll().contains("closed"));
                assertThat(client.events).containsExactly("A FEED 1", "S 1 m1", "S 2 m2", "closed");
                assertThat(closes).containsExactly("ERROR message 3 of 65535 bytes does not fit a Sequenced Data packet");
                assertThat(server.protocolErrors()).isEqualTo(1);
            }
            server.close();
        }
    }
}
