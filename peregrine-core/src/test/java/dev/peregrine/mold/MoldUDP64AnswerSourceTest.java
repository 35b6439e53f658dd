package dev.peregrine.mold;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static dev.peregrine.mold.MoldFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who may answer on the subscriber's request socket: a stranger's datagram (another loopback address, or the
 * server's address from another port) of the right session, inside an open gap, over real sockets.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64AnswerSourceTest {
    private static final String SESSION = "S1";
    private static final String SESSION_HEX = "53312020202020202020";
    /** What a stranger puts where message 3 goes: a value no message of the feed has. */
    private static final byte[] FORGED = "FORGED!!".getBytes(StandardCharsets.US_ASCII);
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final List<Throwable> errors = new ArrayList<>();
    private final CountersManager counters = CountersManager.inMemory(64, 0);
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
        .counters(counters).errorHandler(errors::add));
    private final DatagramChannel requestServer = capture();
    private final List<String> events = new ArrayList<>();
    private MoldUDP64Subscriber subscriber;

    @AfterEach
    void close() throws IOException {
        reactor.close();
        requestServer.close();
        counters.close();
    }

    private MoldUDP64Subscriber subscriber(final MoldUDP64SubscriberOptions options) {
        subscriber = new MoldUDP64Subscriber(reactor, options.feed(new UdpOptions().localAddress(MoldFixture.loopback(0)))
            .requestTimeoutNs(50_000_000L), new MoldUDP64Listener() {
                @Override
                public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                    final long value = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), offset);
                    events.add("message " + sequence + (value == sequence ? "" : " FORGED"));
                }

                @Override
                public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
                    events.add("unrecoverable " + fromSequence + "+" + count + " " + reason);
                }
            });
        return subscriber;
    }

    private void feed(final byte[] packet) {
        subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, clock.now);
    }

    /** The subscriber's request socket as a sender on loopback reaches it: it is bound to every address. */
    private InetSocketAddress requestSocket() {
        return MoldFixture.loopback(subscriber.requestEndpoint().localAddress().getPort());
    }

    /** Messages 1 and 2, then 10: a gap of 3 to 9 is asked for. */
    private void openGap() {
        feed(packet(SESSION, 1, 2, numbered(1, 2)));
        feed(packet(SESSION, 10, 1, numbered(10, 1)));
        assertThat(hex(receive(reactor, requestServer))).isEqualTo(SESSION_HEX + String.format("%016x%04x", 3, 7));
    }

    /** A stranger's answer from inside the gap: it reads as the server having lost the gap's start. */
    private static byte[] insideTheGap() {
        return packet(SESSION, 5, 1, numbered(5, 1));
    }

    /** A stranger's answer from the gap's start with forged bytes: taken, they are delivered as message 3. */
    private static byte[] forgedStart() {
        return packet(SESSION, 3, 1, FORGED);
    }

    /** Sends datagrams from a stranger to the request socket, then runs cycles until the socket has read them all. */
    private void strangerSends(final DatagramChannel stranger, final byte[]... datagrams) throws IOException {
        final long read = subscriber.requestEndpoint().datagramsReceived();
        for (final byte[] datagram : datagrams) {
            stranger.send(ByteBuffer.wrap(datagram), requestSocket());
        }
        MoldFixture.spinUntil(reactor, () -> subscriber.requestEndpoint().datagramsReceived() == read + datagrams.length, 5);
    }

    private static DatagramChannel stranger(final InetSocketAddress local) throws IOException {
        final DatagramChannel channel = DatagramChannel.open();
        channel.bind(local);
        return channel;
    }

    @Test
    void shouldDropAndCountAStrangersAnswersByDefaultAndRecoverTheGapFromTheServerWithItsOwnBytes() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions().requestServer(address(requestServer)));
        openGap();
        try (DatagramChannel stranger = stranger(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0))) {
            strangerSends(stranger, insideTheGap(), forgedStart());
            strangerSends(stranger, insideTheGap(), forgedStart());
        }

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(subscriber.answersFromStrangers()).isEqualTo(4);
        requestServer.send(ByteBuffer.wrap(packet(SESSION, 3, 7, numbered(3, 7))), requestSocket());
        MoldFixture.spinUntil(reactor, () -> subscriber.nextExpected() == 11, 5);

        assertThat(events).containsExactly("message 1", "message 2", "message 3", "message 4", "message 5", "message 6",
            "message 7", "message 8", "message 9", "message 10");
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.recovered()).isEqualTo(7);
        assertThat(subscriber.answersFromStrangers()).isEqualTo(4);
        reactor.doWork(); // the counters are published once per cycle
        assertThat(MoldUDP64CountersTest.moldCounters(CountersReader.of(counters)))
            .containsEntry("peregrine_mold_answers_from_strangers_total", 4L);
        assertThat(errors).as("the first stranger is reported, the others only counted").hasSize(1);
        assertThat(errors.getFirst()).hasMessageContaining("127.0.0.2").hasMessageContaining(address(requestServer).toString())
            .hasMessageContaining("acceptAnswersOnlyFromRequestServer");
    }

    @Test
    void shouldDropAnAnswerFromTheServersAddressButAnotherPortByDefault() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions().requestServer(address(requestServer)));
        openGap();
        try (DatagramChannel stranger = stranger(MoldFixture.loopback(0))) {
            strangerSends(stranger, insideTheGap(), forgedStart());
        }
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        requestServer.send(ByteBuffer.wrap(packet(SESSION, 3, 7, numbered(3, 7))), requestSocket());
        MoldFixture.spinUntil(reactor, () -> subscriber.nextExpected() == 11, 5);

        assertThat(events).hasSize(10).doesNotContain("message 3 FORGED").noneMatch(event -> event.startsWith("unrecoverable"));
        assertThat(subscriber.answersFromStrangers()).isEqualTo(2);
        assertThat(errors).hasSize(1);
    }

    /**
     * A source check does not stop a forger on the same segment: with strangers heard, one forged datagram inside a
     * gap is still not enough to end the subscriber. It is dropped, the gap is asked for again, and the server's
     * answer fills it.
     */
    @Test
    void shouldNotEndTheSubscriberOnOneForgedTruncationAnswer() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions().requestServer(address(requestServer)).acceptAnswersOnlyFromRequestServer(false));
        openGap();
        try (DatagramChannel stranger = stranger(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0))) {
            strangerSends(stranger, insideTheGap());
        }

        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.RECOVERING);
        assertThat(subscriber.truncationSuspicions()).isEqualTo(1);
        assertThat(hex(receive(reactor, requestServer))).as("the gap asked for again, by a request of its own")
            .isEqualTo(SESSION_HEX + String.format("%016x%04x", 3, 7));
        requestServer.send(ByteBuffer.wrap(packet(SESSION, 3, 7, numbered(3, 7))), requestSocket());
        MoldFixture.spinUntil(reactor, () -> subscriber.nextExpected() == 11, 5);

        assertThat(events).containsExactly("message 1", "message 2", "message 3", "message 4", "message 5", "message 6",
            "message 7", "message 8", "message 9", "message 10");
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(subscriber.unrecoverable()).isZero();
        assertThat(errors).isEmpty();
    }

    /** The exposure the check closes, with it turned off: a stranger's bytes delivered as the server's. */
    @Test
    void shouldDeliverAStrangersBytesAsTheServersWhenTheCheckIsOff() throws IOException {
        subscriber(new MoldUDP64SubscriberOptions().requestServer(address(requestServer)).acceptAnswersOnlyFromRequestServer(false));
        openGap();
        try (DatagramChannel stranger = stranger(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0))) {
            strangerSends(stranger, forgedStart());
        }

        assertThat(events).containsExactly("message 1", "message 2", "message 3 FORGED");
        assertThat(subscriber.recovered()).isEqualTo(1);
    }

    /** A wildcard-bound server answering from another of its addresses, at its port: taken when that address is listed. */
    @Test
    void shouldTakeAnswersFromAListedAnswerAddressAtTheServersPort() throws IOException {
        final InetAddress other = InetAddress.getByName("127.0.0.2");
        subscriber(new MoldUDP64SubscriberOptions().requestServer(address(requestServer)).answerAddresses(other));
        openGap();
        try (DatagramChannel sameServerOtherAddress = stranger(new InetSocketAddress(other, address(requestServer).getPort()))) {
            strangerSends(sameServerOtherAddress, packet(SESSION, 3, 7, numbered(3, 7)));
        }

        assertThat(subscriber.nextExpected()).isEqualTo(11);
        assertThat(subscriber.recovered()).isEqualTo(7);
        assertThat(subscriber.answersFromStrangers()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldAcceptAWildcardRequestServerWhoseAnswerAddressesAreListed() throws IOException {
        final InetSocketAddress wildcard = new InetSocketAddress(address(requestServer).getPort());
        subscriber(new MoldUDP64SubscriberOptions().requestServer(wildcard).answerAddresses(InetAddress.getLoopbackAddress()));
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
    }

    @Test
    void shouldRefuseToCheckAnswersAgainstAWildcardRequestServer() {
        final InetSocketAddress wildcard = new InetSocketAddress(address(requestServer).getPort());
        assertThatThrownBy(() -> subscriber(new MoldUDP64SubscriberOptions().requestServer(wildcard)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("acceptAnswersOnlyFromRequestServer=true").hasMessageContaining("requestServer=" + wildcard)
            .hasMessageContaining("answerAddresses");
    }
}
