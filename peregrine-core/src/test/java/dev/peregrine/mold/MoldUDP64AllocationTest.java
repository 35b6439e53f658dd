package dev.peregrine.mold;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Publisher, re-request server and subscriber allocate nothing per message in steady state, recovery, the
 * flush timer and heartbeats included: every tenth data packet is dropped at the publisher, so the request
 * path runs all the time; every packet leaves on the flush timer (a delay on the reactor's wheel, driven by a
 * manual clock); and every tenth message is followed by an idle heartbeat interval, so a heartbeat goes out
 * and is received in every measured window, hundreds of times. A stranger's datagrams on the request socket are
 * dropped without allocating either.
 *
 * <p>Zero tolerance, after a warm-up that waits for the JIT: every test measures sets of windows until one whole set
 * allocates nothing, at most {@link #MAX_SETS} ({@link AllocationMeter#firstCleanSet}). What an earlier set may show
 * is a JIT event, as traced in docs/proof-notes.md with {@code -XX:TieredStopAtLevel=1} (no escape analysis, so
 * every object the source makes is allocated), {@code -XX:-UseTLAB} and JFR's ObjectAllocationOutsideTLAB: under C1
 * the recovery path allocates nothing of its own per gap (only the JFR gap events, made while a recording runs), so
 * the rare windows seen under C2 are code not yet compiled or a deoptimisation re-materialising objects. The bound: an
 * allocation at least once per set (50 000 to 100 000 messages, 20 000 cycles) shows in every set and fails, and so
 * does any allocation while no set of {@link #MAX_SETS} is clean.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // up to five sets after the warm-up, on a loaded machine
class MoldUDP64AllocationTest {
    private static final boolean BUSY_POLL = Boolean.parseBoolean(System.getProperty("busyPoll", "true"));
    private static final long FLUSH_DELAY_NS = 20_000;
    private static final long HEARTBEAT_NS = 1_000_000;
    private static final int WARMUP = 50_000;
    private static final int WINDOW = 2_500;
    private static final int WINDOWS = 20;
    /** Sets of windows measured, at most, until one allocates nothing at all: see the class comment. */
    private static final int MAX_SETS = 5;

    @Test
    void shouldAllocateNothingPerMessageOnPublisherSubscriberAndRequestServer(@TempDir final Path dir) {
        final long[] dataPackets = new long[1];
        final long[] dropped = new long[1];
        final boolean[] droppedLast = new boolean[1];
        final long[] delivered = new long[1];
        final long[] outOfOrder = new long[1];
        final long[] iterations = new long[1];
        final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
        try (CountersManager counters = CountersManager.create(dir.resolve("alloc.counters"), 64, 0);
             Reactor reactor = MoldFixture.reactor(clock, counters);
             CountersReader reader = CountersReader.of(counters);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("ALLOC", 1 << 17, 1 << 23)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000_000, 1000);
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL)).requestServer(server.localAddress())
                .acceptAnswersOnlyFromRequestServer(true) // every answer's sender is compared with the server's
                .requestTimeoutNs(1_000_000_000L), (sequence, buffer, offset, length) -> {
                    if (sequence != delivered[0] + 1 || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != sequence) {
                        outOfOrder[0]++;
                    }
                    delivered[0]++;
                });
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(subscriber.feedEndpoint().localAddress()).flushDelayNs(FLUSH_DELAY_NS)
                .heartbeatIntervalNs(HEARTBEAT_NS)
                .filter((sequence, count) -> {
                    droppedLast[0] = count != 0 && ++dataPackets[0] % 10 == 0;
                    if (droppedLast[0]) {
                        dropped[0]++;
                    }
                    return !droppedLast[0];
                }));
            final MemorySegment message = Arena.ofAuto().allocate(32);

            final Runnable oneMessage = () -> {
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, publisher.nextSequence());
                publisher.offer(message, 0, 32);
                clock.now += FLUSH_DELAY_NS; // the flush timer is due: the packet leaves from the timer wheel
                final long target = publisher.nextSequence() - 1;
                for (int i = 0; i < 1_000_000 && dataPackets[0] < target; i++) {
                    reactor.doWork();
                }
                // a drop shows with the next packet: the one after it, or the heartbeat below
                final long delivers = droppedLast[0] ? target - 1 : target;
                for (int i = 0; i < 1_000_000 && subscriber.nextExpected() <= delivers; i++) {
                    reactor.doWork();
                }
                if (++iterations[0] % 10 == 5) {
                    final long heartbeats = publisher.heartbeatsSent();
                    clock.now += HEARTBEAT_NS;
                    for (int i = 0; i < 1_000_000 && publisher.heartbeatsSent() == heartbeats; i++) {
                        reactor.doWork();
                    }
                }
            };
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(WARMUP, WINDOW, WINDOWS, MAX_SETS, oneMessage);
            final long allocated = measured.totalBytes();

            // the last drop, if any, is revealed by one more heartbeat and recovered
            clock.now += HEARTBEAT_NS;
            for (int i = 0; i < 1_000_000 && subscriber.nextExpected() < publisher.nextSequence(); i++) {
                reactor.doWork();
            }
            final long messages = WARMUP + (long)WINDOW * WINDOWS * measured.sets();
            assertThat(publisher.nextSequence()).isEqualTo(messages + 1);
            assertThat(dataPackets[0]).as("one message per data packet").isEqualTo(messages);
            assertThat(delivered[0]).isEqualTo(messages);
            assertThat(subscriber.delivered()).isEqualTo(messages);
            assertThat(outOfOrder[0]).isZero();
            assertThat(dropped[0]).isEqualTo(messages / 10);
            assertThat(subscriber.gaps()).isEqualTo(dropped[0]);
            assertThat(subscriber.requests()).isEqualTo(dropped[0]);
            // the packet that revealed a gap waits in the reorder buffer: only the dropped message is asked for again
            assertThat(subscriber.recovered()).isEqualTo(dropped[0]);
            assertThat(subscriber.duplicates()).isZero();
            assertThat(server.answers()).isEqualTo(dropped[0]);
            assertThat(publisher.heartbeatsSent()).as("one per ten messages, and the last one").isEqualTo(messages / 10 + 1);
            assertThat(allocated).as("counters on, in a file").isZero();
            reactor.doWork(); // the subscriber publishes its counters once per cycle
            final Map<String, Long> expected = new TreeMap<>();
            expected.put("peregrine_mold_next_expected_sequence", messages + 1);
            expected.put("peregrine_mold_gaps_total", dropped[0]);
            expected.put("peregrine_mold_requests_total", dropped[0]);
            expected.put("peregrine_mold_recovered_total", dropped[0]);
            expected.put("peregrine_mold_duplicates_total", 0L);
            expected.put("peregrine_mold_malformed_total", 0L);
            expected.put("peregrine_mold_state", (long)MoldUDP64SubscriberState.SYNCHRONISED.ordinal());
            expected.put("peregrine_mold_answers_from_strangers_total", 0L);
            expected.put("peregrine_mold_server_requests_total", dropped[0]);
            expected.put("peregrine_mold_server_rate_limited_total", 0L);
            expected.put("peregrine_mold_server_retransmitted_total", dropped[0]);
            assertThat(MoldUDP64CountersTest.moldCounters(reader)).isEqualTo(expected);
        }
    }

    @Test
    void shouldAllocateNothingWhileBurstsOfLossAreRecoveredThroughTheReorderBuffer() {
        final long[] packets = new long[1];
        final boolean[] droppedLast = new boolean[1];
        final long[] delivered = new long[1];
        // a clock of the test's own, one microsecond a message: with the real one a preempted thread made an answer
        // late past the adaptive timeout (the round trip smoothed, 100 us at the least, not the 1 s configured),
        // and the request went again now and then; that path has a test of its own below
        final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
        try (Reactor reactor = MoldFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("ALLOC2", 1 << 16, 1 << 22)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000_000, 1000);
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL)).requestServer(server.localAddress())
                // the request socket connected to the server and read with read(2): unconnected, the JDK's
                // DatagramChannel.receive was seen to allocate the sender's address now and then on this path
                // (0.6-2.6 KB over 50 000 messages in 4 runs of 5), which the stricter meter reports
                .request(new UdpOptions().localAddress(MoldFixture.loopback(0)).remoteAddress(server.localAddress())
                    .connectedReadWrite(true).busyPoll(BUSY_POLL))
                .requestTimeoutNs(1_000_000_000L).maxRequestsInFlight(4), (sequence, buffer, offset, length) -> delivered[0]++);
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(subscriber.feedEndpoint().localAddress())
                .filter((sequence, count) -> {
                    droppedLast[0] = count != 0 && ++packets[0] % 20 >= 17; // three in a row of every twenty
                    return !droppedLast[0];
                }));
            final MemorySegment message = Arena.ofAuto().allocate(32);

            final Runnable oneMessage = () -> {
                clock.now += 1_000L;
                final long sequence = publisher.nextSequence();
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, sequence);
                publisher.offer(message, 0, 32);
                publisher.flush();
                if (!droppedLast[0]) { // a burst shows with the next packet that goes out: everything up to it arrives
                    for (int i = 0; i < 1_000_000 && subscriber.nextExpected() <= sequence; i++) {
                        reactor.doWork();
                    }
                }
            };
            final long allocated = AllocationMeter.firstCleanSet(60_000, 5_000, 20, MAX_SETS, oneMessage).totalBytes();

            assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
            assertThat(subscriber.gaps()).isGreaterThanOrEqualTo(delivered[0] / 20 - 1);
            assertThat(subscriber.recovered()).isGreaterThanOrEqualTo(3 * (delivered[0] / 20 - 1));
            assertThat(subscriber.reorderBufferBytesPeak()).isPositive();
            assertThat(subscriber.unrecoverable()).isZero();
            assertThat(subscriber.retries()).as("no request timed out: each burst asked for once").isZero();
            assertThat(subscriber.requests()).isEqualTo(subscriber.gaps());
            assertThat(subscriber.duplicates()).isZero();
            assertThat(allocated).isZero();
        }
    }

    @Test
    void shouldAllocateNothingWhileRequestsTimeOutAreSentAgainAndALongGapIsAskedForInParts() throws Exception {
        final long[] delivered = new long[1];
        final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
        final int perAnswer = 10;
        try (Reactor reactor = MoldFixture.reactor(clock);
             java.nio.channels.DatagramChannel silent = MoldFixture.capture()) { // a server that never answers
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL))
                .requestServer(MoldFixture.address(silent)).requestTimeoutNs(100_000L).maxRequestTimeoutNs(100_000L)
                .requestAttempts(Integer.MAX_VALUE).maxRequestsInFlight(8),
                (sequence, buffer, offset, length) -> delivered[0]++);
            final MemorySegment session = MoldUDP64Layout.session("RETRY");
            final MemorySegment answer = Arena.ofAuto().allocate(MoldUDP64Layout.HEADER_LENGTH
                + perAnswer * (MoldUDP64Layout.BLOCK_HEADER_LENGTH + 8L));
            for (int i = 0; i < perAnswer; i++) {
                MoldUDP64Layout.putMessageLength(answer, MoldUDP64Layout.HEADER_LENGTH + i * (MoldUDP64Layout.BLOCK_HEADER_LENGTH + 8L), 8);
            }
            final MemorySegment heartbeat = Arena.ofAuto().allocate(MoldUDP64Layout.HEADER_LENGTH);
            final long[] highest = {1};
            final long[] iterations = new long[1];
            MoldUDP64Layout.putHeader(answer, 0, session, 1, 1);
            subscriber.onPacket(answer, 0, MoldUDP64Layout.HEADER_LENGTH + MoldUDP64Layout.BLOCK_HEADER_LENGTH + 8, false, clock.now);

            final Runnable oneCycle = () -> {
                if (iterations[0]++ % 10 == 0) {
                    // the feed goes on past a long gap (a heartbeat ahead), and the lowest part is answered: a
                    // round trip is measured, and the next part is cut and asked for
                    highest[0] += perAnswer;
                    MoldUDP64Layout.putHeader(heartbeat, 0, session, highest[0] + 1000, 0);
                    subscriber.onPacket(heartbeat, 0, MoldUDP64Layout.HEADER_LENGTH, false, clock.now);
                    MoldUDP64Layout.putHeader(answer, 0, session, subscriber.nextExpected(), perAnswer);
                    subscriber.onPacket(answer, 0, (int)answer.byteSize(), true, clock.now);
                }
                clock.now += 100_000L; // every request in flight times out, and is sent again
                reactor.doWork();
            };
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 2_000, 10, MAX_SETS, oneCycle);
            final long allocated = measured.totalBytes();

            assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
            assertThat(subscriber.retries()).as("eight requests in flight, each sent again every cycle")
                .isGreaterThanOrEqualTo(7L * 40_000);
            assertThat(delivered[0]).isEqualTo(1 + perAnswer * (2_000L + 2_000L * measured.sets()));
            assertThat(subscriber.requestsInFlight()).isEqualTo(8);
            assertThat(allocated).isZero();
        }
    }

    /**
     * A stranger sends into an open gap, datagram after datagram, to a subscriber that takes answers from its
     * request server only: each is compared, counted and dropped, and nothing is allocated (but the first one's report).
     */
    @Test
    void shouldAllocateNothingWhileDroppingAStrangersDatagramsOnTheRequestSocket() throws Exception {
        final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
        final List<Throwable> errors = new ArrayList<>();
        try (Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
                 .errorHandler(errors::add));
             java.nio.channels.DatagramChannel silent = MoldFixture.capture()) { // the server, which never answers
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL))
                .requestServer(MoldFixture.address(silent)).acceptAnswersOnlyFromRequestServer(true),
                (sequence, buffer, offset, length) -> { });
            final UdpEndpoint stranger = UdpEndpoint.open(reactor, new UdpOptions()
                .localAddress(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0)), (e, b, o, l, s, n) -> { });
            final InetSocketAddress requestSocket = MoldFixture.loopback(subscriber.requestEndpoint().localAddress().getPort());
            final byte[] first = MoldFixture.packet("STRANGE", 1, 1, MoldFixture.numbered(1, 1));
            final byte[] ahead = MoldFixture.packet("STRANGE", 100, 0);
            subscriber.onPacket(MemorySegment.ofArray(first), 0, first.length, false, clock.now);
            subscriber.onPacket(MemorySegment.ofArray(ahead), 0, ahead.length, false, clock.now); // 2 to 99 asked for
            final MemorySegment inside = Arena.ofAuto().allocate(MoldUDP64Layout.HEADER_LENGTH + MoldUDP64Layout.BLOCK_HEADER_LENGTH + 8);
            MemorySegment.copy(MemorySegment.ofArray(MoldFixture.packet("STRANGE", 50, 1, MoldFixture.numbered(50, 1))), 0,
                inside, 0, inside.byteSize());

            final Runnable oneDatagram = () -> {
                final long dropped = subscriber.answersFromStrangers();
                stranger.sendTo(inside, 0, (int)inside.byteSize(), requestSocket);
                for (int i = 0; i < 1_000_000 && subscriber.answersFromStrangers() == dropped; i++) {
                    reactor.doWork();
                }
            };
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 2_000, 10, MAX_SETS, oneDatagram);
            final long allocated = measured.totalBytes();

            assertThat(subscriber.answersFromStrangers()).isEqualTo(20_000 + 2_000 * 10 * measured.sets());
            assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
            assertThat(subscriber.requests()).isEqualTo(1);
            assertThat(errors).as("the first stranger is reported, the rest counted").hasSize(1);
            assertThat(allocated).isZero();
        }
    }

    /** Over-budget requests queued, merged and answered late from the server's duty cycle allocate nothing. */
    @Test
    void shouldAllocateNothingWhileRequestsOverTheBudgetAreDeferredMergedAndAnsweredLate() {
        final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
        try (Reactor reactor = MoldFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("DEFER", 1024, 1 << 20)) {
            for (int i = 1; i <= 10; i++) {
                store.append(MemorySegment.ofArray(new byte[] {(byte)i}), 0, 1);
            }
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000, 1);
            final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().localAddress(MoldFixture.loopback(0)),
                (e, b, o, l, s, n) -> { });
            final InetSocketAddress source = client.localAddress();
            final MemorySegment first = MemorySegment.ofArray(MoldFixture.unhex("44454645522020202020" + "0000000000000001" + "0001"));
            final MemorySegment second = MemorySegment.ofArray(MoldFixture.unhex("44454645522020202020" + "0000000000000002" + "0003"));
            final long[] answers = {0};

            final Runnable oneRound = () -> {
                server.onRequest(first, 0, MoldUDP64Layout.REQUEST_LENGTH, source, clock.now); // within the budget
                server.onRequest(second, 0, MoldUDP64Layout.REQUEST_LENGTH, source, clock.now); // over it: waits
                server.onRequest(second, 0, MoldUDP64Layout.REQUEST_LENGTH, source, clock.now); // merged
                clock.now += 1_000_000L; // one interval at 1 000 a second: the waiting one is answered
                answers[0] += 2;
                for (int i = 0; i < 1_000_000 && (server.answers() != answers[0] || client.datagramsReceived() != answers[0]); i++) {
                    reactor.doWork();
                }
                clock.now += 1_000_000L; // and another: the next round's first request is within the budget
            };
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 2_000, 10, MAX_SETS, oneRound);
            final long allocated = measured.totalBytes();

            final long rounds = 20_000 + 2_000 * 10 * measured.sets();
            assertThat(server.answers()).isEqualTo(2 * rounds);
            assertThat(server.deferred()).isEqualTo(rounds);
            assertThat(server.merged()).isEqualTo(rounds);
            assertThat(server.rateLimited()).isZero();
            assertThat(allocated).isZero();
        }
    }
}
