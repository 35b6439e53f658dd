package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.nothingReceived;
import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static dev.peregrine.mold.MoldFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;

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
                }

                @Override
                public void onStateChange(final MoldUDP64SubscriberState state, final long nextExpected) {
                    events.add(state + " at " + nextExpected);
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

    @Test
    void shouldRequestExactlyTheMissingRangeAndFollowOnWhenAnswerIsCutShort() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 2, numbered(1, 2)));
        assertThat(feed(packet(SESSION, 5, 2, numbered(5, 2)))).isZero();

        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(3, 4));
        assertThat(answer(packet(SESSION, 3, 2, numbered(3, 2)))).isEqualTo(2);
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(5, 2));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        answer(packet(SESSION, 5, 2, numbered(5, 2)));

        assertThat(events).containsExactly("message 1 len 8", "message 2 len 8", "RECOVERING at 3",
            "message 3 len 8", "message 4 len 8", "message 5 len 8", "message 6 len 8", "SYNCHRONISED at 7");
        assertThat(subscriber.gaps()).isEqualTo(1);
        assertThat(subscriber.requests()).isEqualTo(2);
        assertThat(subscriber.recovered()).isEqualTo(4);
        assertThat(nothingReceived(reactor, requestServer)).isTrue();
    }

    @Test
    void shouldKeepOneRequestOutstandingAndResendAfterTimeout() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 3, 1, numbered(3, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(2, 2));
        feed(packet(SESSION, 4, 1, numbered(4, 1)));
        feed(packet(SESSION, 6, 0));
        assertThat(nothingReceived(reactor, requestServer)).as("no second request while one is outstanding").isTrue();

        clock.now += 50_000_000L;
        assertThat(hex(receive(reactor, requestServer))).as("re-sent, covering everything seen since").isEqualTo(request(2, 4));
        assertThat(events).containsExactly("message 1 len 8", "RECOVERING at 2");
        assertThat(subscriber.requests()).isEqualTo(2);
        assertThat(subscriber.gaps()).isEqualTo(2);
    }

    @Test
    void shouldNotReturnToSynchronisedBeforeHighestSeenIsReached() {
        subscriber(new MoldUDP64SubscriberOptions());
        feed(packet(SESSION, 1, 1, numbered(1, 1)));
        feed(packet(SESSION, 10, 1, numbered(10, 1)));
        receive(reactor, requestServer);
        answer(packet(SESSION, 2, 8, numbered(2, 8)));

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(request(10, 1));
        answer(packet(SESSION, 10, 1, numbered(10, 1)));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.delivered()).isEqualTo(10);
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
        assertThat(events).endsWith("message 2 len 8", "END_OF_SESSION at 3");
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

    @Test
    void shouldGoOnWhenListenerThrows() {
        final List<Throwable> errors = new ArrayList<>();
        try (Reactor lenient = new Reactor(new dev.peregrine.reactor.ReactorOptions().clock(clock).errorHandler(errors::add))) {
            final MoldUDP64Subscriber throwing = new MoldUDP64Subscriber(lenient, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))), (sequence, buffer, offset, length) -> {
                    throw new IllegalStateException("application bug at " + sequence);
                });
            final byte[] packet = packet(SESSION, 1, 2, numbered(1, 2));
            throwing.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, clock.now);

            assertThat(throwing.delivered()).isEqualTo(2);
            assertThat(throwing.nextExpected()).isEqualTo(3);
            assertThat(errors).hasSize(2);
        }
    }
}
