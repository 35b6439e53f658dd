package dev.peregrine.mold;

import dev.peregrine.internal.jfr.FlightRecording;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpOptions;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JFR events of a MoldUDP64 subscriber, packet by packet on an injected clock: a dropped packet makes a
 * gap that is detected and then filled (with its exact recovery time), an answer that skips the gap's start
 * makes it unrecoverable, and a malformed packet, or a stranger's datagram on the request socket, is rejected.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64JfrEventsTest {
    private static final String SESSION = "S1";
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final Reactor reactor = MoldFixture.reactor(clock);
    private final DatagramChannel requestServer = capture();
    private MoldUDP64Subscriber subscriber;
    private String feed;

    @AfterEach
    void close() throws Exception {
        reactor.close();
        requestServer.close();
    }

    private void subscriber() {
        subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(address(requestServer)),
            (sequence, buffer, offset, length) -> { });
        feed = subscriber.feedEndpoint().localAddress().toString();
    }

    private void feed(final byte[] packet) {
        subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, clock.now);
    }

    private void answer(final byte[] packet) {
        subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, true, clock.now);
    }

    /** This test's events of one name: another test's subscriber has another feed address. */
    private List<RecordedEvent> of(final FlightRecording recording, final String name) {
        return recording.named(name).stream().filter(event -> feed.equals(event.getString(
            name.equals("FrameRejected") ? "localAddress" : "feed"))).toList();
    }

    @Test
    void shouldRecordAGapDetectedAndFilledWithItsRecoveryTime() {
        try (FlightRecording recording = new FlightRecording()) {
            subscriber();
            feed(packet(SESSION, 1, 1, numbered(1, 1)));
            feed(packet(SESSION, 4, 1, numbered(4, 1))); // 2 and 3 dropped
            clock.now += 5_000_000L;
            answer(packet(SESSION, 2, 2, numbered(2, 2)));

            assertThat(of(recording, "MoldGapDetected")).singleElement().satisfies(gap -> {
                assertThat(gap.getLong("fromSequence")).isEqualTo(2);
                assertThat(gap.getLong("count")).isEqualTo(2);
            });
            assertThat(of(recording, "MoldGapFilled")).singleElement().satisfies(gap -> {
                assertThat(gap.getLong("fromSequence")).isEqualTo(2);
                assertThat(gap.getLong("count")).isEqualTo(2);
                assertThat(gap.getLong("recoveryNanos")).isEqualTo(5_000_000L);
                assertThat(gap.getEventType().getCategoryNames()).containsExactly("Peregrine", "MoldUDP64");
                assertThat(gap.getStackTrace()).isNull();
            });
            assertThat(of(recording, "MoldGapUnrecoverable")).isEmpty();
            assertThat(subscriber.nextExpected()).isEqualTo(5);
        }
    }

    @Test
    void shouldRecordAGapGivenUpWithItsReason() {
        try (FlightRecording recording = new FlightRecording()) {
            subscriber();
            feed(packet(SESSION, 1, 1, numbered(1, 1)));
            feed(packet(SESSION, 10, 1, numbered(10, 1)));
            answer(packet(SESSION, 5, 2, numbered(5, 2))); // the server lacks 2 to 4: asked again
            answer(packet(SESSION, 5, 2, numbered(5, 2))); // and confirmed

            assertThat(of(recording, "MoldGapDetected")).singleElement().satisfies(gap -> {
                assertThat(gap.getLong("fromSequence")).isEqualTo(2);
                assertThat(gap.getLong("count")).isEqualTo(8);
            });
            assertThat(of(recording, "MoldGapUnrecoverable")).singleElement().satisfies(gap -> {
                assertThat(gap.getLong("fromSequence")).isEqualTo(2);
                assertThat(gap.getLong("count")).isEqualTo(3);
                assertThat(gap.getString("reason")).isEqualTo("STORE_TRUNCATED");
            });
            assertThat(of(recording, "MoldGapFilled")).isEmpty();
        }
    }

    @Test
    void shouldRecordAMalformedPacketAsARejectedFrame() {
        try (FlightRecording recording = new FlightRecording()) {
            subscriber();
            feed(new byte[5]);
            final byte[] trailing = packet(SESSION, 1, 1, numbered(1, 1));
            feed(java.util.Arrays.copyOf(trailing, trailing.length + 2));

            assertThat(of(recording, "FrameRejected")).extracting(event -> event.getString("transport") + ": "
                + event.getLong("channelId") + ": " + event.getString("remoteAddress") + ": " + event.getString("reason"))
                .containsExactly("moldudp64: 0: null: packet of 5 bytes is shorter than the header",
                    "moldudp64: 0: null: packet of " + (trailing.length + 2) + " bytes has bytes after its last message block");
            assertThat(subscriber.malformed()).isEqualTo(2);
        }
    }

    @Test
    void shouldRecordAStrangersDatagramOnTheRequestSocketAsARejectedFrame() throws Exception {
        final List<Throwable> errors = new java.util.ArrayList<>();
        try (FlightRecording recording = new FlightRecording();
             Reactor own = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
                 .errorHandler(errors::add));
             DatagramChannel stranger = DatagramChannel.open()) {
            stranger.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
            final MoldUDP64Subscriber only = new MoldUDP64Subscriber(own, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(address(requestServer))
                .acceptAnswersOnlyFromRequestServer(true), (sequence, buffer, offset, length) -> { });
            final byte[] answer = packet(SESSION, 1, 1, numbered(1, 1));
            stranger.send(ByteBuffer.wrap(answer), MoldFixture.loopback(only.requestEndpoint().localAddress().getPort()));
            MoldFixture.spinUntil(own, () -> only.answersFromStrangers() == 1, 5);

            final String requestSocket = only.requestEndpoint().localAddress().toString();
            assertThat(recording.named("FrameRejected").stream()
                .filter(event -> requestSocket.equals(event.getString("localAddress"))).toList())
                .extracting(event -> event.getString("transport") + ": " + event.getString("remoteAddress") + ": "
                    + event.getString("reason"))
                .containsExactly("moldudp64: " + stranger.getLocalAddress() + ": datagram of " + answer.length
                    + " bytes on the request socket is not from the request server " + address(requestServer));
            assertThat(only.delivered()).isZero();
            assertThat(errors).hasSize(1);
        }
    }
}
