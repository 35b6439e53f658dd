package dev.peregrine.mold;

import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static dev.peregrine.mold.MoldFixture.receive;
import static dev.peregrine.mold.MoldFixture.unhex;
import static org.assertj.core.api.Assertions.assertThat;

/** The MoldUDP64 counters, read from the counters file, after a scripted run whose every packet is known. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64CountersTest {
    private static final String SESSION = "S1";
    private static final String FEED_HEX = "46454544202020202020"; // "FEED"
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();

    @TempDir
    Path dir;

    @Test
    void shouldCountGapRequestRecoveryDuplicatesMalformedAndStateOfAScriptedFeed() throws Exception {
        final List<Long> delivered = new ArrayList<>();
        try (CountersManager counters = CountersManager.create(dir.resolve("mold.counters"), 64, 0);
             Reactor reactor = MoldFixture.reactor(clock, counters);
             CountersReader reader = CountersReader.open(counters.file());
             DatagramChannel requestServer = capture()) {
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(address(requestServer))
                .requestTimeoutNs(50_000_000L), new MoldUDP64Listener() {
                    @Override
                    public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                        delivered.add(sequence);
                    }
                });
            final byte[] answer = packet(SESSION, 3, 2, numbered(3, 2));
            final byte[] malformed = Arrays.copyOf(answer, answer.length - 1);

            feed(subscriber, packet(SESSION, 1, 2, numbered(1, 2)), false);
            feed(subscriber, packet(SESSION, 5, 2, numbered(5, 2)), false); // 3 and 4 lost: one gap, one request
            assertThat(hex(receive(reactor, requestServer))).endsWith(String.format("%016x%04x", 3, 2));
            reactor.doWork();
            assertThat(moldCounters(reader)).isEqualTo(expected(3, 1, 1, 0, 0, 0, MoldUDP64SubscriberState.RECOVERING));

            feed(subscriber, packet(SESSION, 1, 1, numbered(1, 1)), false); // 1 again: one duplicate
            feed(subscriber, malformed, true);
            feed(subscriber, answer, true); // 3 and 4 recovered, 5 and 6 come out of the reorder buffer
            feed(subscriber, answer, true); // answered twice: two duplicates
            reactor.doWork();

            assertThat(delivered).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
            assertThat(moldCounters(reader)).isEqualTo(
                expected(delivered.getLast() + 1, 1, 1, 2, 3, 1, MoldUDP64SubscriberState.SYNCHRONISED));
        }
    }

    @Test
    void shouldCountRequestsRateLimitedAndRetransmittedOfAScriptedRequestRun() throws IOException {
        try (CountersManager counters = CountersManager.create(dir.resolve("mold-server.counters"), 64, 0);
             Reactor reactor = MoldFixture.reactor(clock, counters);
             CountersReader reader = CountersReader.open(counters.file());
             DatagramChannel client = capture();
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 20)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100, 5);
            for (int i = 0; i < 3; i++) {
                store.append(MemorySegment.ofArray(new byte[] {(byte)i}), 0, 1);
            }
            for (int i = 0; i < 20; i++) { // a burst of 5 is answered, one message each; 1 waits, 14 merge into it
                client.send(ByteBuffer.wrap(unhex(FEED_HEX + "0000000000000001" + "0001")), server.localAddress());
            }
            client.send(ByteBuffer.wrap(unhex(FEED_HEX + "0000000000000001")), server.localAddress()); // malformed
            MoldFixture.spinUntil(reactor, () -> server.requests() == 21, 5);
            // the same range asked for 3 now: merged into the waiting one, which then asks for 3
            client.send(ByteBuffer.wrap(unhex(FEED_HEX + "0000000000000001" + "0003")), server.localAddress());
            MoldFixture.spinUntil(reactor, () -> server.requests() == 22, 5);
            clock.now += 10_000_000L; // one emission interval at 100 per second: one more answer, of 3 messages
            MoldFixture.spinUntil(reactor, () -> server.answers() == 6, 5);

            final Map<String, Long> expected = new TreeMap<>();
            expected.put("peregrine_mold_server_requests_total", 22L);
            expected.put("peregrine_mold_server_rate_limited_total", 0L);
            expected.put("peregrine_mold_server_retransmitted_total", 5L + 3L);
            assertThat(moldCounters(reader)).isEqualTo(expected);
            assertThat(server.answers()).isEqualTo(6);
        }
    }

    @Test
    void shouldReleaseTheCounterSlotsOfASubscriberThatFailedWithoutClose() throws IOException {
        final List<Throwable> errors = new ArrayList<>();
        try (CountersManager counters = CountersManager.create(dir.resolve("mold-failed.counters"), 64, 0);
             Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
                 .counters(counters).errorHandler(errors::add));
             CountersReader reader = CountersReader.open(counters.file());
             DatagramChannel requestServer = capture()) {
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(address(requestServer)),
                (sequence, buffer, offset, length) -> {
                    throw new IllegalStateException("listener refuses message " + sequence);
                });
            reactor.doWork();
            assertThat(moldCounters(reader)).hasSize(8);

            feed(subscriber, packet(SESSION, 1, 1, numbered(1, 1)), false); // the listener throws: FAILED, never closed

            assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.FAILED);
            assertThat(moldCounters(reader)).as("a failed subscriber holds no slot of the shared file").isEmpty();
            assertThat(errors).hasSize(1);
        }
    }

    private void feed(final MoldUDP64Subscriber subscriber, final byte[] packet, final boolean answer) {
        subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, answer, clock.now);
    }

    private static Map<String, Long> expected(final long nextExpected, final long gaps, final long requests,
        final long recovered, final long duplicates, final long malformed, final MoldUDP64SubscriberState state) {
        final Map<String, Long> expected = new TreeMap<>();
        expected.put("peregrine_mold_next_expected_sequence", nextExpected);
        expected.put("peregrine_mold_gaps_total", gaps);
        expected.put("peregrine_mold_requests_total", requests);
        expected.put("peregrine_mold_recovered_total", recovered);
        expected.put("peregrine_mold_duplicates_total", duplicates);
        expected.put("peregrine_mold_malformed_total", malformed);
        expected.put("peregrine_mold_state", (long)state.ordinal());
        expected.put("peregrine_mold_answers_from_strangers_total", 0L);
        return expected;
    }

    /** Every MoldUDP64 counter by name, for a file with at most one subscriber and one request server. */
    static Map<String, Long> moldCounters(final CountersReader reader) {
        final Map<String, Long> counters = new TreeMap<>();
        reader.forEach((id, typeId, label, value) -> {
            final String name = CounterTypes.name(typeId);
            if (name.startsWith("peregrine_mold_")) {
                assertThat(counters.put(name, value)).as("one counter of each name").isNull();
            }
        });
        return counters;
    }
}
