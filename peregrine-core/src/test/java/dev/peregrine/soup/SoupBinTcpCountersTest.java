package dev.peregrine.soup;

import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.packet;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's counters, read back from the counters file (what {@code ./peregrine stat} reads) after a scripted run
 * whose every event is known: raw clients written by hand, a manual clock.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoupBinTcpCountersTest {
    @TempDir
    Path dir;

    @Test
    void shouldPublishLoginsClosesMessagesHeartbeatsAndTimeoutsToTheCountersFile() throws Exception {
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final long[] unsequenced = new long[1];
        try (CountersManager counters = CountersManager.create(dir.resolve("soup.counters"), 128, 0);
             Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
                 .counters(counters).errorHandler(error -> { }));
             CountersReader reader = CountersReader.open(counters.file());
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 64, 1 << 16)) {
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions(),
                (user, password, session) -> password.equals("secret") ? SoupLoginDecision.accept(feed[0])
                    : SoupLoginDecision.NOT_AUTHORIZED, (id, session, buffer, offset, length) -> unsequenced[0]++);
            feed[0] = server.addSession("FEED", store);
            final MemorySegment message = MemorySegment.ofArray(new byte[] {1, 2, 3});
            for (int i = 0; i < 3; i++) {
                feed[0].publish(message, 0, 3);
            }
            final SocketAddress address = SoupFixture.listen(reactor, server);

            try (SoupFixture.RawClient alice = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient intruder = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient ahead = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient garbage = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient silent = new SoupFixture.RawClient(address);
                 SoupFixture.RawClient quiet = new SoupFixture.RawClient(address)) {
                alice.send(login("alice", "secret", "", "1"));
                pump(reactor, () -> alice.poll().stream().filter(e -> e.startsWith("S ")).count() == 3); // 3 replayed
                feed[0].publish(message, 0, 3);
                feed[0].publish(message, 0, 3);
                pump(reactor, () -> alice.poll().stream().filter(e -> e.startsWith("S ")).count() == 5); // 2 live
                alice.send(packet('R', "")); // before the data: seen once both Unsequenced Data are
                alice.send(packet('U', "a"));
                alice.send(packet('U', "b"));
                pump(reactor, () -> unsequenced[0] == 2);

                intruder.send(login("eve", "guess", "", "1"));
                pump(reactor, () -> intruder.poll().contains("closed"));
                ahead.send(login("alice", "secret", "", "100"));
                pump(reactor, () -> ahead.poll().contains("closed"));
                garbage.send(packet('X', ""));
                pump(reactor, () -> garbage.poll().contains("closed"));
                assertThat(intruder.events).containsExactly("J A", "closed");
                assertThat(ahead.events).containsExactly("J S", "closed");

                pump(reactor, () -> server.connectionCount() == 3); // alice, silent, quiet: all accepted, neither of the two logs in
                clock.advanceMillis(5_100); // past the login timeout (silent, quiet); alice gets one heartbeat
                pump(reactor, () -> silent.poll().contains("closed") && quiet.poll().contains("closed")
                    && alice.poll().contains("H"));
                assertThat(alice.count("H")).isEqualTo(1);

                try (SoupFixture.RawClient bob = new SoupFixture.RawClient(address)) {
                    bob.send(login("bob", "secret", "", "0"));
                    pump(reactor, () -> bob.poll().contains("A FEED 6"));
                    pump(reactor, () -> server.connectionCount() == 2);
                    assertThat(values(reader).get("peregrine_soup_clients")).isEqualTo(2);
                }
                pump(reactor, () -> server.connectionCount() == 1); // bob closed his side, nothing unread: by peer
                alice.send(packet('O', ""));
                pump(reactor, () -> server.connectionCount() == 0);
            }

            final Map<String, Long> expected = new TreeMap<>();
            expected.put("peregrine_soup_logins_accepted_total", 2L);
            expected.put("peregrine_soup_logins_rejected_total code=A", 1L);
            expected.put("peregrine_soup_logins_rejected_total code=S", 1L);
            expected.put("peregrine_soup_connections_closed_total reason=logout", 1L);
            expected.put("peregrine_soup_connections_closed_total reason=login-rejected", 2L);
            expected.put("peregrine_soup_connections_closed_total reason=protocol-error", 1L);
            expected.put("peregrine_soup_connections_closed_total reason=timeout", 2L);
            expected.put("peregrine_soup_connections_closed_total reason=fell-behind", 0L);
            expected.put("peregrine_soup_connections_closed_total reason=by-peer", 1L);
            expected.put("peregrine_soup_connections_closed_total reason=reset", 0L);
            expected.put("peregrine_soup_connections_closed_total reason=local", 0L);
            expected.put("peregrine_soup_sequenced_live_total", 2L);
            expected.put("peregrine_soup_sequenced_replayed_total", 3L);
            expected.put("peregrine_soup_unsequenced_received_total", 2L);
            expected.put("peregrine_soup_heartbeats_sent_total", 1L);
            expected.put("peregrine_soup_heartbeats_received_total", 1L);
            expected.put("peregrine_soup_timeouts_total kind=login", 2L);
            expected.put("peregrine_soup_timeouts_total kind=receive", 0L);
            expected.put("peregrine_soup_clients", 0L);
            assertThat(values(reader)).isEqualTo(expected);
            assertThat(server.acceptedLogins()).isEqualTo(2);
            assertThat(server.rejectedLogins()).isEqualTo(2);
            assertThat(server.timeouts()).isEqualTo(2);

            server.close();
            assertThat(values(reader)).as("close frees the slots").isEmpty();
        }
    }

    /** The soup counters in the file: the type's name, then the label past the server's own part. */
    private static Map<String, Long> values(final CountersReader reader) {
        final Map<String, Long> values = new TreeMap<>();
        reader.forEach((id, typeId, label, value) -> {
            final String name = CounterTypes.name(typeId);
            if (name.startsWith("peregrine_soup_")) {
                assertThat(label).startsWith("soup-server-");
                final int space = label.indexOf(' ');
                final String key = space < 0 ? name : name + label.substring(space);
                assertThat(values.put(key, value)).as("one counter of each name and label").isNull();
            }
        });
        return values;
    }
}
