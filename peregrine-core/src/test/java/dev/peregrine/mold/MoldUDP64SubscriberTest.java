package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.nothingReceived;
import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static dev.peregrine.mold.MoldFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** The listener's flow chart, packet by packet, with a capture socket standing in for the re-request server. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64SubscriberTest {
    private static final String SESSION = "S1";
    private static final String SESSION_HEX = "53312020202020202020";
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final Reactor reactor = MoldFixture.reactor(clock);
    private final DatagramChannel requestServer = capture();
    private final List<String> events = new ArrayList<>();
    private MoldUDP64Subscriber subscriber;
    private LongConsumer afterMessage = sequence -> { };

    @AfterEach
    void close() throws Exception {
        reactor.close();
        requestServer.close();
    }

    private MoldUDP64Subscriber subscriber(final MoldUDP64SubscriberOptions options) {
        subscriber = new MoldUDP64Subscriber(reactor, options.feed(new UdpOptions().localAddress(MoldFixture.loopback(0)))
            .requestServer(address(requestServer)).requestTimeoutNs(50_000_000L), new MoldUDP64Listener() {
                @Override
                public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                    events.add("message " + sequence + " len " + length);
                    afterMessage.accept(sequence);
                }

                @Override
                public void onStateChange(final MoldUDP64SubscriberState state, final long nextExpected) {
                    events.add(state + " at " + nextExpected);
                }

                @Override
                public void onGapFilled(final long fromSequence, final long count, final long nanos) {
                    events.add("gap filled " + fromSequence + "+" + count);
                }

                @Override
                public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
                    events.add("unrecoverable " + fromSequence + "+" + count + " " + reason);
                }
            });
        return subscriber;
    }

    private int feed(final byte[] packet) {
        return subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, clock.now);
    }

    private int answer(final byte[] packet) {
        return subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, true, clock.now);
    }

    private String request(final long sequence, final int count) {
        return SESSION_HEX + String.format("%016x%04x", sequence, count);
    }

    @Test
    void shouldDeliverInOrderAndSkipDuplicates() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 2, numbered(1, 2)));
        feed(packet(SESSION, 2, 2, numbered(2, 2)));
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 4, 1, new byte[0]));

        assertThat(events).containsExactly("message 1 len 8", "message 2 len 8", "message 3 len 8", "message 4 len 0");
        assertThat(subscriber.duplicates()).isEqualTo(2);
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.session()).isEqualTo(SESSION);
    }

    /**
     * A server that stalled (a time slice, say) answers together everything it was asked meanwhile, the
     * subscriber's retries included. Here: 300 full-packet answers for a range already delivered, then the
     * answer that fills the gap, all sent before the subscriber reads any. With the system's default receive
     * buffer (about 200 KiB) the kernel dropped every answer that came once the buffer was full; had the
     * filling one been among them, the gap would have waited for a timeout, which then doubles.
     */
    @Test
    void shouldTakeABurstOfAnswersFromAServerThatStalled() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));

        // the burst is sized to the buffer the kernel granted: net.core.rmem_max may cap the 1 MiB asked for, and
        // Linux reports twice what it was asked (the other half is its bookkeeping)
        final long granted = subscriber.requestEndpoint().channel().getOption(StandardSocketOptions.SO_RCVBUF);
        final long asked = 2L * MoldUDP64SubscriberOptions.DEFAULT_REQUEST_RECEIVE_BUFFER;
        final int stales = (int)Math.min(300, 300 * granted / asked);
        if (stales < 300) {
            System.out.println("the kernel granted the request socket " + granted + " bytes of the " + asked
                + " asked for (net.core.rmem_max): a burst of " + stales + " answers instead of 300");
        }
        final InetSocketAddress answers = MoldFixture.loopback(subscriber.requestEndpoint().localAddress().getPort());
        final ByteBuffer stale = ByteBuffer.wrap(packet(SESSION, 1, 1, new byte[MoldUDP64Layout.DEFAULT_MAX_PAYLOAD - 2]));
        for (int i = 0; i < stales; i++) {
            requestServer.send(stale.rewind(), answers);
        }
        requestServer.send(ByteBuffer.wrap(packet(SESSION, 2, 1, numbered(2, 1))), answers);
        final long deadline = System.nanoTime() + 20_000_000_000L; // fails a loop that hung only (~ms expected)
        while (subscriber.nextExpected() != 4 && System.nanoTime() < deadline) {
            reactor.doWork();
        }

        assertThat(subscriber.requestEndpoint().datagramsReceived()).as("answers read, of %d sent", stales + 1)
            .isEqualTo(stales + 1);
        assertThat(subscriber.nextExpected()).isEqualTo(4);
        assertThat(subscriber.requests()).isEqualTo(1);
        assertThat(subscriber.duplicates()).isEqualTo(stales);
    }

    @Test
    void shouldKeepPacketsPastGapRequestOnlyTheMissingRangeAndFollowOnWhenAnswerIsCutShort() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 2, numbered(1, 2)));
        assertThat(feed(packet(SESSION, 5, 2, numbered(5, 2)))).isZero();

        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(3, 2));
        assertThat(subscriber.reorderBufferMessages()).isEqualTo(2);
        assertThat(answer(packet(SESSION, 3, 1, numbered(3, 1)))).isEqualTo(1);
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(4, 1));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(answer(packet(SESSION, 4, 1, numbered(4, 1)))).as("the answer, then the buffered packet").isEqualTo(3);

        assertThat(events).containsExactly("message 1 len 8", "message 2 len 8", "RECOVERING at 3",
            "message 3 len 8", "message 4 len 8", "message 5 len 8", "message 6 len 8", "gap filled 3+2", "SYNCHRONISED at 7");
        assertThat(subscriber.gaps()).isEqualTo(1);
        assertThat(subscriber.requests()).isEqualTo(2);
        assertThat(subscriber.recovered()).isEqualTo(2);
        assertThat(subscriber.reorderBufferMessages()).isZero();
        assertThat(subscriber.reorderBufferBytesUsed()).isZero();
        assertThat(subscriber.reorderBufferBytesPeak()).isEqualTo(packet(SESSION, 5, 2, numbered(5, 2)).length);
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
    }

    @Test
    void shouldAskForEachGapAtOnceAndResendAfterTimeoutsThatDouble() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        feed(packet(SESSION, 4, 1, numbered(4, 1)));
        feed(packet(SESSION, 6, 0));
        assertThat(hex(receive(reactor, requestServer))).as("a second gap in flight with the first").isEqualTo(request(5, 1));
        assertThat(subscriber.requestsInFlight()).isEqualTo(2);
        assertThat(nothingReceived(reactor, requestServer)).as("nothing more before the timeout").isTrue();

        clock.now += 50_000_000L;
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(5, 1));
        clock.now += 50_000_000L;
        assertThat(nothingReceived(reactor, requestServer)).as("the second wait is twice as long").isTrue();
        clock.now += 50_000_000L;
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(5, 1));

        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2");
        assertThat(subscriber.requests()).isEqualTo(6);
        assertThat(subscriber.retries()).isEqualTo(4);
        assertThat(subscriber.gaps()).isEqualTo(2);
        assertThat(subscriber.openGaps()).isEqualTo(2);
    }

    @Test
    void shouldNotReturnToSynchronisedBeforeHighestSeenIsReached() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 11, 0));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 9));
        answer(packet(SESSION, 2, 8, numbered(2, 8)));

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(10, 1));
        answer(packet(SESSION, 10, 1, numbered(10, 1)));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.delivered()).isEqualTo(10);
    }

    @Test
    void shouldDeliverReorderedPacketsInOrderFromTheBufferWithOneRequest() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 5, 2, numbered(5, 2)));
        feed(packet(SESSION, 3, 2, numbered(3, 2)));
        feed(packet(SESSION, 4, 1, numbered(4, 1)));
        assertThat(feed(packet(SESSION, 2, 1, numbered(2, 1)))).isEqualTo(5);

        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2", "message 2 len 8", "message 3 len 8",
            "message 4 len 8", "message 5 len 8", "message 6 len 8", "gap filled 2+3", "SYNCHRONISED at 7");
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 3));
        assertThat(subscriber.duplicates()).isEqualTo(1);
        assertThat(subscriber.recovered()).isZero();
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
        assertThat(subscriber.requests()).isEqualTo(1);
    }

    @Test
    void shouldDropAndRequestPacketsWhenReorderBufferIsFullAndStillDeliverExactlyOnceInOrder() {
        subscriber(new MoldUDP64SubscriberOptions().reorderBuffer(2 * 100, 100));
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        for (int sequence = 3; sequence <= 6; sequence++) {
            feed(packet(SESSION, sequence, 1, numbered(sequence, 1)));
        }
        assertThat(subscriber.bufferOverflows()).isEqualTo(2);
        assertThat(subscriber.reorderBufferMessages()).isEqualTo(2);
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        assertThat(hex(receive(reactor, requestServer))).as("the first dropped packet").isEqualTo(request(5, 1));
        assertThat(subscriber.openGaps()).as("the second dropped packet joins the adjacent gap").isEqualTo(2);
        answer(packet(SESSION, 2, 1, numbered(2, 1)));
        answer(packet(SESSION, 5, 1, numbered(5, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(6, 1));
        answer(packet(SESSION, 6, 1, numbered(6, 1)));

        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2", "message 2 len 8", "message 3 len 8",
            "message 4 len 8", "gap filled 2+1", "message 5 len 8", "message 6 len 8", "gap filled 5+2", "SYNCHRONISED at 7");
        assertThat(subscriber.requests()).isEqualTo(3);
        assertThat(subscriber.delivered()).isEqualTo(6);
        assertThat(subscriber.reorderBufferMessages()).isZero();
    }

    /**
     * The live feed may not take the last slots of the reorder buffer: they are kept for answers, so that while live
     * packets overflow, an answer to a gap past the lowest is still kept rather than dropped and asked for again
     * (without the reserve, recovery behind a full buffer fills one gap per round trip).
     */
    @Test
    void shouldKeepAnswersInTheirReserveWhenLivePacketsHaveFilledTheReorderBuffer() {
        subscriber(new MoldUDP64SubscriberOptions().reorderBuffer(16 * 100, 100)); // 16 slots, 2 kept for answers
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        for (int sequence = 3; sequence <= 30; sequence++) {
            if (sequence != 5) { // two gaps, 2 and 5, before the buffer fills
                feed(packet(SESSION, sequence, 1, numbered(sequence, 1)));
            }
        }
        assertThat(subscriber.reorderBufferMessages()).as("live packets stop short of the answers' reserve").isEqualTo(14);
        final long overflows = subscriber.bufferOverflows();

        answer(packet(SESSION, 5, 1, numbered(5, 1))); // a gap past the lowest: kept in the reserve
        assertThat(subscriber.bufferOverflows()).isEqualTo(overflows);
        assertThat(subscriber.reorderBufferMessages()).isEqualTo(15);
        answer(packet(SESSION, 2, 1, numbered(2, 1))); // the lowest: 2 to 17 go out, the buffer drains
        for (int sequence = 18; sequence <= 30; sequence++) {
            answer(packet(SESSION, sequence, 1, numbered(sequence, 1)));
        }

        final List<String> messages = events.stream().filter(event -> event.startsWith("message")).toList();
        assertThat(messages).containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, 30)
            .mapToObj(sequence -> "message " + sequence + " len 8").toList());
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.reorderBufferMessages()).isZero();
    }

    @Test
    void shouldIgnoreStaleDuplicateAndForeignAnswersAndRejectTruncatedOnes() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 4, 1, numbered(4, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 2));
        final byte[] good = packet(SESSION, 2, 2, numbered(2, 2));
        assertThat(answer(java.util.Arrays.copyOf(good, good.length - 3))).isZero();
        assertThat(answer(packet("OTHER", 2, 2, numbered(2, 2)))).isZero();
        assertThat(answer(packet(SESSION, 1, 1, numbered(1, 1)))).as("stale").isZero();
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(answer(good)).isEqualTo(3);
        assertThat(answer(good)).as("answered twice").isZero();

        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2", "message 2 len 8", "message 3 len 8",
            "message 4 len 8", "gap filled 2+2", "SYNCHRONISED at 5");
        assertThat(subscriber.malformed()).isEqualTo(1);
        assertThat(subscriber.otherSession()).isEqualTo(1);
        assertThat(subscriber.duplicates()).isEqualTo(3);
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
    }

    @Test
    void shouldDeliverALateAnswerOnceAndSkipTheAnswerToTheRetry() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        clock.now += 50_000_000L;
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        answer(packet(SESSION, 2, 1, numbered(2, 1)));
        answer(packet(SESSION, 2, 1, numbered(2, 1)));

        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2", "message 2 len 8", "message 3 len 8",
            "gap filled 2+1", "SYNCHRONISED at 4");
        assertThat(subscriber.retries()).isEqualTo(1);
        assertThat(subscriber.duplicates()).isEqualTo(1);
        assertThat(subscriber.lastRecoveryNs()).isEqualTo(50_000_000L);
    }

    @Test
    void shouldGiveUpWithReasonWhenNoAnswerComesThroughAllAttempts() {
        subscriber(new MoldUDP64SubscriberOptions().requestAttempts(3).maxRequestTimeoutNs(60_000_000L));
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        receive(reactor, requestServer);
        for (int i = 0; i < 2; i++) {
            clock.now += 60_000_000L;
            receive(reactor, requestServer);
        }
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        clock.now += 60_000_000L;
        reactor.doWork();
        feed(packet(SESSION, 2, 1, numbered(2, 1)));

        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2", "unrecoverable 2+1 NO_ANSWER", "UNRECOVERABLE at 2");
        assertThat(subscriber.unrecoverableReason()).isEqualTo(MoldUDP64GapReason.NO_ANSWER);
        assertThat(subscriber.unrecoverable()).isEqualTo(1);
        assertThat(subscriber.requests()).isEqualTo(3);
        clock.now += 1_000_000_000L;
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
    }

    /**
     * One answer 50 us after its request makes the waits between repeats 150 us (50 + 4 * 25), doubling: the ten
     * attempts used to be spent in 153 ms, and a server silent for longer (a collection, its rate limit, a restart)
     * left the gap unrecoverable although the configured timeouts (here 50 ms, doubling up to 1 s) had not nearly
     * passed.
     */
    @Test
    void shouldNotGiveUpAGapBeforeTheConfiguredTimeoutsHavePassedWhenTheRoundTripWasFast() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions()); // a first wait of 50 ms, up to 1 s, 10 attempts
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        clock.now += 50_000L;
        answer(packet(SESSION, 2, 1, numbered(2, 1))); // a round trip of 50 us: a first wait of 150 us
        feed(packet(SESSION, 5, 1, numbered(5, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(4, 1));

        final int repeats = silence(clock.now + 300_000_000L);

        assertThat(repeats).as("the fast waits still repeat the request").isGreaterThanOrEqualTo(9);
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        answer(packet(SESSION, 4, 1, numbered(4, 1))); // the server is back
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.unrecoverable()).isZero();
        assertThat(events).doesNotContain("unrecoverable 4+1 NO_ANSWER");
    }

    @Test
    void shouldGiveUpASilentGapOnceTheConfiguredTimeoutsHavePassedHoweverFastTheRoundTrip() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions()); // 50 + 100 + 200 + 400 + 800 + 5 * 1000 ms = 6.55 s unmeasured
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        receive(reactor, requestServer);
        clock.now += 50_000L;
        answer(packet(SESSION, 2, 1, numbered(2, 1)));
        feed(packet(SESSION, 5, 1, numbered(5, 1)));
        receive(reactor, requestServer);
        final long firstRequestNs = clock.now;

        silence(firstRequestNs + 6_550_000_000L - 1_000_000L);
        assertThat(subscriber.state()).as("a millisecond short of the configured timeouts").isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        silence(firstRequestNs + 6_550_000_000L + 1_000_000_000L); // at the latest one capped wait later

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.UNRECOVERABLE);
        assertThat(events).endsWith("unrecoverable 4+1 NO_ANSWER", "UNRECOVERABLE at 4");
        assertThat(subscriber.requests()).as("the 10 attempts and a few capped ones, not one per millisecond").isLessThan(25);
    }

    /** Moves the clock a millisecond at a time to {@code untilNs} while the gap is being recovered; counts the requests. */
    private int silence(final long untilNs) throws IOException {
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        int requests = 0;
        while (clock.now < untilNs && subscriber.state() == MoldUDP64SubscriberState.RECOVERING) {
            clock.now = Math.min(untilNs, clock.now + 1_000_000L);
            reactor.doWork();
            while (requestServer.receive(buffer.clear()) != null) {
                requests++;
            }
        }
        return requests;
    }

    /**
     * With the gap list full, new ground is merged into the last gap, which then covers messages already held: a late
     * second copy of an answer that filled one of them landed inside that gap and read as a server that lacks the
     * gap's start (a false STORE_TRUNCATED).
     */
    @Test
    void shouldNotTakeALateCopyOfAnAnswerInsideAGapMergedOverHeldMessagesForATruncatedStore() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 1001, 1, numbered(1001, 1)));
        feed(packet(SESSION, 1003, 1, numbered(1003, 1)));
        answer(packet(SESSION, 1002, 1, numbered(1002, 1))); // fills [1002, 1003); a second copy is on its way
        for (long sequence = 10; sequence < 10 + 2 * 63; sequence += 2) { // late live packets cut [2, 1001) in 64 gaps
            feed(packet(SESSION, sequence, 1, numbered(sequence, 1)));
        }
        assertThat(subscriber.openGaps()).as("the gap list is full").isEqualTo(64);
        feed(packet(SESSION, 1100, 1, numbered(1100, 1))); // [1004, 1100) merged into [136, 1001): over 1001 to 1003

        answer(packet(SESSION, 1002, 1, numbered(1002, 1)));

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(events).noneMatch(event -> event.startsWith("unrecoverable"));
        for (int round = 0; round < 100 && subscriber.state() == MoldUDP64SubscriberState.RECOVERING; round++) {
            serve(0);
        }
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(events.stream().filter(event -> event.startsWith("message")).toList()).containsExactlyElementsOf(
            java.util.stream.LongStream.rangeClosed(1, 1100).mapToObj(sequence -> "message " + sequence + " len 8").toList());
    }

    /**
     * A gap merged over a held message used to keep it when an answer filled the rest: a gap of that held message
     * alone, whose answers were skipped as duplicates and so never took it out, asked for every round trip.
     */
    @Test
    void shouldNotAskAgainForAHeldMessageThatAFullGapListMergedIntoAGap() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        for (long sequence = 3; sequence <= 129; sequence += 2) { // gaps 2, 4, ..., 128: the list is full
            feed(packet(SESSION, sequence, 1, numbered(sequence, 1)));
        }
        feed(packet(SESSION, 140, 1, numbered(140, 1))); // [130, 140) merged into [128, 129): over the held 129
        answer(packet(SESSION, 128, 12, numbered(128, 12))); // the merged gap whole

        final List<String> asked = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            asked.addAll(serve(2)); // everything but the lowest gap is answered
        }

        final String from129 = SESSION_HEX + String.format("%016x", 129);
        assertThat(asked).as("a held message is never asked for").noneMatch(request -> request.startsWith(from129));
        assertThat(subscriber.openGaps()).as("only the withheld one").isEqualTo(1);
        answer(packet(SESSION, 2, 1, numbered(2, 1)));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.delivered()).isEqualTo(140);
    }

    /**
     * Answers the requests waiting on the capture socket, and those the answers bring, with as many 8-byte messages
     * as fit an Ethernet packet, except those from {@code withheld}; at most 1000, as a subscriber that asks again
     * at once for what an answer brought would never stop.
     *
     * @return the requests, as hex
     */
    private List<String> serve(final long withheld) throws IOException {
        final List<String> asked = new ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        reactor.doWork();
        while (asked.size() < 1000 && requestServer.receive(buffer.clear()) != null) {
            final long from = buffer.getLong(10);
            final int count = Short.toUnsignedInt(buffer.getShort(18));
            asked.add(request(from, count));
            if (from != withheld) {
                final int answered = Math.min(count, MoldUDP64Layout.DEFAULT_MAX_PAYLOAD / 10);
                answer(packet(SESSION, from, answered, numbered(from, answered)));
            }
        }
        return asked;
    }

    @Test
    void shouldGiveUpWhenTheAnswerSkipsTheStartOfTheGap() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 10, 1, numbered(10, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 8));
        answer(packet(SESSION, 5, 2, numbered(5, 2)));
        assertThat(events).as("one answer is no evidence").containsExactly("message 1 len 8", "RECOVERING at 2");
        assertThat(hex(receive(reactor, requestServer))).as("asked again at once").isEqualTo(request(2, 8));
        answer(packet(SESSION, 5, 2, numbered(5, 2))); // the answer to the fresh request confirms it

        assertThat(subscriber.truncationSuspicions()).isEqualTo(1);
        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2", "unrecoverable 2+3 STORE_TRUNCATED",
            "UNRECOVERABLE at 2");
        assertThat(subscriber.unrecoverableReason()).isEqualTo(MoldUDP64GapReason.STORE_TRUNCATED);
    }

    @Test
    void shouldRecoverABurstOfFiftyLostPacketsWithAFewRequestsWhileTheFeedGoesOn() throws Exception {
        final int perPacket = 10;
        final int packets = 1_100;
        final long[] next = {1};
        final long[] wrong = {0};
        subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(address(requestServer)),
            (sequence, buffer, offset, length) -> {
                if (sequence != next[0] || buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(
                    java.nio.ByteOrder.BIG_ENDIAN), offset) != sequence) {
                    wrong[0]++;
                }
                next[0] = sequence + 1;
            });
        for (int p = 0; p < packets; p++) {
            if (p < 10 || p >= 60) { // packets 10 to 59 lost
                feed(packet(SESSION, 1 + (long)p * perPacket, perPacket, numbered(1 + (long)p * perPacket, perPacket)));
            }
        }
        for (int i = 0; i < 20 && subscriber.state() != MoldUDP64SubscriberState.SYNCHRONISED; i++) {
            final byte[] request = receive(reactor, requestServer);
            final java.nio.ByteBuffer parsed = java.nio.ByteBuffer.wrap(request);
            final long from = parsed.getLong(10);
            final int count = Math.min(Short.toUnsignedInt(parsed.getShort(18)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD / 10);
            answer(packet(SESSION, from, count, numbered(from, count))); // as many 8-byte messages as fit 1452 bytes
        }

        assertThat(next[0]).isEqualTo(packets * perPacket + 1);
        assertThat(wrong[0]).isZero();
        assertThat(subscriber.delivered()).isEqualTo(packets * perPacket);
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.recovered()).isEqualTo(500);
        assertThat(subscriber.requests()).as("500 messages, 145 per answer").isEqualTo(4);
        assertThat(subscriber.reorderBufferBytesPeak()).isPositive();
        assertThat(subscriber.bufferOverflows()).isZero();
    }

    @Test
    void shouldAskForALongGapInPartsOfOneAnswerEachAllInFlightAndReportItFilledOnce() {
        subscriber(new MoldUDP64SubscriberOptions().maxRequestsInFlight(8));
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 101, 1, numbered(101, 1)));
        assertThat(hex(receive(reactor, requestServer))).as("how much an answer holds is not known yet")
            .isEqualTo(request(2, 99));
        answer(packet(SESSION, 2, 10, numbered(2, 10)));

        final List<String> parts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            parts.add(hex(receive(reactor, requestServer)));
        }
        assertThat(parts).as("ten messages per answer: eight parts of ten, one request each, at once").containsExactly(
            request(12, 10), request(22, 10), request(32, 10), request(42, 10), request(52, 10), request(62, 10),
            request(72, 10), request(82, 10));
        assertThat(nothingReceived(reactor, requestServer)).as("the in-flight bound holds the rest back").isTrue();
        assertThat(subscriber.requestsInFlight()).isEqualTo(8);

        answer(packet(SESSION, 82, 10, numbered(82, 10))); // a later part first: kept, and its request slot reused
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(92, 9));
        for (long from = 12; from < 82; from += 10) {
            answer(packet(SESSION, from, 10, numbered(from, 10)));
        }
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        answer(packet(SESSION, 92, 9, numbered(92, 9)));

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.delivered()).isEqualTo(101);
        assertThat(subscriber.recovered()).isEqualTo(99);
        assertThat(subscriber.duplicates()).isZero();
        assertThat(subscriber.requests()).isEqualTo(10);
        assertThat(subscriber.gapsFilled()).isEqualTo(1);
        assertThat(events.stream().filter(e -> e.startsWith("gap filled")).toList()).containsExactly("gap filled 2+99");
        assertThat(events.getLast()).isEqualTo("SYNCHRONISED at 102");
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
    }

    /**
     * An answer that held all it was asked for says nothing of how many messages a packet holds: a one-message gap
     * answered whole once made every later gap asked for one message per request (a 2000-message gap took 1992
     * requests, and the server's rate limit then left it unrecoverable).
     */
    @Test
    void shouldNotCapALongGapsRequestsAtTheCountOfAShortGapsWholeAnswer() {
        subscriber(new MoldUDP64SubscriberOptions().maxRequestsInFlight(8));
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        answer(packet(SESSION, 2, 1, numbered(2, 1))); // all it asked for: not cut short

        feed(packet(SESSION, 105, 1, numbered(105, 1)));
        assertThat(hex(receive(reactor, requestServer))).as("the long gap whole, not one message of it")
            .isEqualTo(request(4, 101));
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
        answer(packet(SESSION, 4, 10, numbered(4, 10))); // cut short: a packet holds ten

        final List<String> parts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            parts.add(hex(receive(reactor, requestServer)));
        }
        assertThat(parts).as("parts of what the answer cut short held").containsExactly(request(14, 10), request(24, 10),
            request(34, 10), request(44, 10), request(54, 10), request(64, 10), request(74, 10), request(84, 10));
        assertThat(subscriber.requests()).isEqualTo(10);
    }

    @Test
    void shouldLearnAgainHowManyMessagesAnAnswerHoldsInANewSession() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 22, 1, numbered(22, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 20));
        answer(packet(SESSION, 2, 10, numbered(2, 10))); // cut short: ten per packet, in this session
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(12, 10));
        answer(packet(SESSION, 12, 10, numbered(12, 10)));
        feed(packet(SESSION, 23, MoldUDP64Layout.END_OF_SESSION));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);

        feed(packet("S2", 50, 1, numbered(50, 1))); // a new session, perhaps another server: followed from 1

        assertThat(hex(receive(reactor, requestServer))).as("the new session's gap whole")
            .isEqualTo("53322020202020202020" + String.format("%016x%04x", 1, 49));
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
    }

    @Test
    void shouldTimeRequestsOutAfterTheMeasuredRoundTripAndNotTimeRepeatedOnes() {
        subscriber(new MoldUDP64SubscriberOptions()); // a first wait of 50 ms until a round trip is measured
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        clock.now += 300_000L;
        answer(packet(SESSION, 2, 1, numbered(2, 1))); // a round trip of 300 us: wait 300 + 4 * 150 = 900 us

        feed(packet(SESSION, 5, 1, numbered(5, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(4, 1));
        clock.now += 899_000L;
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
        clock.now += 1_000L;
        assertThat(hex(receive(reactor, requestServer))).as("sent again after 900 us, not 50 ms").isEqualTo(request(4, 1));
        clock.now += 1_799_000L;
        assertThat(nothingReceived(reactor, requestServer)).as("then twice as long").isTrue();
        clock.now += 1_000L;
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(4, 1));
        clock.now += 10_000_000L;
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(4, 1));
        answer(packet(SESSION, 4, 1, numbered(4, 1))); // 10 ms after a repeat: not a round trip of anything

        feed(packet(SESSION, 7, 1, numbered(7, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(6, 1));
        clock.now += 900_000L;
        assertThat(hex(receive(reactor, requestServer))).as("the estimate did not take the 10 ms").isEqualTo(request(6, 1));
        assertThat(subscriber.retries()).isEqualTo(4);
    }

    @Test
    void shouldTimeRecoveryAndRoundTripsFromThePacketAtHandNotFromTheStartOfALongCycle() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        final long cycleStartNs = clock.now;
        clock.now += 400_000L; // the cycle has handed on a receive batch of packets since it read the clock
        final byte[] pastGap = packet(SESSION, 3, 1, numbered(3, 1));
        subscriber.onPacket(MemorySegment.ofArray(pastGap), 0, pastGap.length, false, cycleStartNs);
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 1));
        clock.now += 100_000L;
        answer(packet(SESSION, 2, 1, numbered(2, 1)));

        assertThat(subscriber.lastRecoveryNs()).as("from the packet that showed the gap to its answer, not from the cycle's start")
            .isEqualTo(100_000L);
        feed(packet(SESSION, 5, 1, numbered(5, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(4, 1));
        clock.now += 299_000L; // a round trip of 100 us: wait 100 + 4 * 50 = 300 us (from the cycle's start: 1.5 ms)
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
        clock.now += 1_000L;
        assertThat(hex(receive(reactor, requestServer))).as("sent again after the round trip measured").isEqualTo(request(4, 1));
        assertThat(subscriber.retries()).isEqualTo(1);
    }

    @Test
    void shouldStartFromGivenSequenceAndRequestEarlierMessages() {
        subscriber(new MoldUDP64SubscriberOptions().startSequence(1));
        feed(packet(SESSION, 100, 0));

        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(1, 99));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
    }

    @Test
    void shouldStartFromNextMessageByDefault() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 100, 1, numbered(100, 1)));

        assertThat(events).containsExactly("message 100 len 8");
        assertThat(subscriber.requests()).isZero();
    }

    @Test
    void shouldDropOtherSessionUntilEndOfSessionThenFollowNewSessionFromOne() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 2, numbered(1, 2)));
        feed(packet("S2", 1, 1, numbered(1, 1)));
        assertThat(subscriber.otherSession()).isEqualTo(1);
        feed(packet(SESSION, 3, MoldUDP64Layout.END_OF_SESSION));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);

        feed(packet("S2", 1, 1, numbered(1, 1)));

        assertThat(events).containsExactly("message 1 len 8", "message 2 len 8", "END_OF_SESSION at 3",
            "SYNCHRONISED at 1", "message 1 len 8");
        assertThat(events).hasSize(5);
        assertThat(subscriber.session()).isEqualTo("S2");
        assertThat(subscriber.duplicates()).isZero();
    }

    @Test
    void shouldRecoverTheOldSessionsGapBeforeFollowingTheNextSession() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 2, numbered(1, 2)));
        feed(packet(SESSION, 4, MoldUDP64Layout.END_OF_SESSION)); // it overtook message 3
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(3, 1));

        feed(packet("S2", 1, 1, numbered(1, 1))); // the next session starts while 3 is being recovered
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(subscriber.otherSession()).isEqualTo(1);
        answer(packet(SESSION, 3, 1, numbered(3, 1)));
        feed(packet("S2", 2, 1, numbered(2, 1)));

        assertThat(events).containsExactly("message 1 len 8", "message 2 len 8", "RECOVERING at 3", "message 3 len 8",
            "gap filled 3+1", "END_OF_SESSION at 4", "SYNCHRONISED at 1", "RECOVERING at 1");
        assertThat(subscriber.session()).isEqualTo("S2");
        assertThat(hex(receive(reactor, requestServer))).as("the new session's first message, asked of its server")
            .isEqualTo("53322020202020202020" + String.format("%016x%04x", 1, 1));
    }

    @Test
    void shouldDeliverNothingMoreOnceTheListenerClosedTheSubscriberInsideAPacket() {
        subscriber(new MoldUDP64SubscriberOptions());
        afterMessage = sequence -> subscriber.close();

        feed(packet(SESSION, 1, 3, numbered(1, 3)));
        feed(packet(SESSION, 4, 1, numbered(4, 1)));

        assertThat(events).containsExactly("message 1 len 8");
        assertThat(subscriber.delivered()).isEqualTo(1);
    }

    @Test
    void shouldDeliverNothingMoreOnceTheListenerClosedTheSubscriberWhileTheReorderBufferDrains() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 3, numbered(3, 3))); // kept past the gap at 2
        receive(reactor, requestServer);
        afterMessage = sequence -> {
            if (sequence == 3) {
                subscriber.close(); // the buffer's memory is still read by the drain that called this
            }
        };

        assertThatCode(() -> answer(packet(SESSION, 2, 1, numbered(2, 1)))).doesNotThrowAnyException();

        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2", "message 2 len 8", "message 3 len 8");
        assertThat(feed(packet(SESSION, 6, 1, numbered(6, 1)))).isZero();
    }

    @Test
    void shouldNotTakeAnEmptyAnswerForAnAnswerAndGiveUpAfterTheAttempts() {
        subscriber(new MoldUDP64SubscriberOptions().requestAttempts(3).maxRequestTimeoutNs(60_000_000L));
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        receive(reactor, requestServer);
        for (int i = 0; i < 20; i++) {
            answer(packet(SESSION, 2, 0)); // a broken server: a heartbeat where the answer should be
            clock.now += 60_000_000L;
            reactor.doWork();
        }

        assertThat(subscriber.requests()).isEqualTo(3);
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.UNRECOVERABLE);
        assertThat(events).contains("unrecoverable 2+1 NO_ANSWER");
    }

    @Test
    void shouldKeepPacketsPastAGapNearTheTopOfTheSequenceSpace() {
        final long base = Long.MAX_VALUE - 100_000; // within a reorder window of the top: the window's end would wrap
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, base, 1, numbered(base, 1)));
        feed(packet(SESSION, base + 2, 1, numbered(base + 2, 1)));

        assertThat(subscriber.bufferOverflows()).isZero();
        assertThat(subscriber.reorderBufferMessages()).isEqualTo(1);
        answer(packet(SESSION, base + 1, 1, numbered(base + 1, 1)));
        assertThat(events).endsWith("message " + (base + 1) + " len 8", "message " + (base + 2) + " len 8",
            "gap filled " + (base + 1) + "+1", "SYNCHRONISED at " + (base + 3));
        assertThat(subscriber.requests()).isEqualTo(1);
    }

    @Test
    void shouldRefuseOtherSessionWhenSessionIsConfigured() {
        subscriber(new MoldUDP64SubscriberOptions().session(SESSION));
        feed(packet("OTHER", 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 1, 1, numbered(1, 1)));

        assertThat(events).containsExactly("message 1 len 8");
        assertThat(subscriber.otherSession()).isEqualTo(1);
    }

    @Test
    void shouldRecoverBeforeReportingEndOfSession() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, MoldUDP64Layout.END_OF_SESSION));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        answer(packet(SESSION, 2, 1, numbered(2, 1)));

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
        assertThat(events).endsWith("message 2 len 8", "gap filled 2+1", "END_OF_SESSION at 3");
    }

    @Test
    void shouldCountAndDropMalformedPacketsWhole() {
        subscriber(new MoldUDP64SubscriberOptions());
        final byte[] good = packet(SESSION, 1, 2, numbered(1, 2));
        final byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        final byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
        final byte[] overCount = packet(SESSION, 1, 3, numbered(1, 2));
        final byte[] zeroSequence = packet(SESSION, 0, 1, numbered(1, 1));
        final byte[] heartbeatWithBody = packet(SESSION, 1, 0, numbered(1, 1));

        for (final byte[] bad : new byte[][] {new byte[0], new byte[19], truncated, trailing, overCount, zeroSequence, heartbeatWithBody}) {
            assertThat(feed(bad)).isZero();
        }
        feed(good);

        assertThat(subscriber.malformed()).isEqualTo(7);
        assertThat(events).containsExactly("message 1 len 8", "message 2 len 8");
    }
}
