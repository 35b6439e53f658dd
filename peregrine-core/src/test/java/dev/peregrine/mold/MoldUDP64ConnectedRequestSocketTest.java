package dev.peregrine.mold;

import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;
import dev.peregrine.testkit.FileDescriptors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static dev.peregrine.mold.MoldFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A request socket connected to the request server ({@link UdpOptions#remoteAddress}), which has the kernel drop
 * other senders' datagrams, meets what an unconnected one never hears: the ICMP port unreachable of a server that is
 * gone. The subscriber reports it once, goes on asking per its timeouts, and gives the gap up as for any server that
 * does not answer.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64ConnectedRequestSocketTest {
    private static final String SESSION = "S1";
    private static final long TIMEOUT_NS = 1_000_000L;
    private static final int ATTEMPTS = 4;
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final List<Throwable> errors = new ArrayList<>();
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
        .errorHandler(errors::add));
    private final List<String> events = new ArrayList<>();

    /** The ways a connected request socket is read. */
    enum Socket {
        /** Selected, read with {@code receive}, as {@code DatagramChannel} does unconnected. */
        RECEIVE,
        /** Selected, read with {@code read(2)}. */
        READ,
        /** Polled every cycle through the native socket ({@code recv(2)} through the FFM API), where available. */
        NATIVE;

        UdpOptions options(final InetSocketAddress server) {
            final UdpOptions options = new UdpOptions().localAddress(MoldFixture.loopback(0)).remoteAddress(server);
            return switch (this) {
                case RECEIVE -> options;
                case READ -> options.connectedReadWrite(true);
                case NATIVE -> options.connectedReadWrite(true).busyPoll(true).nativeSocket(true);
            };
        }
    }

    @AfterEach
    void close() {
        reactor.close();
    }

    @ParameterizedTest
    @EnumSource(Socket.class)
    void shouldGoOnAskingAndGiveUpAsUnansweredWhenTheServerIsGone(final Socket socket) throws IOException {
        final InetSocketAddress gone;
        try (DatagramChannel server = capture()) {
            gone = address(server); // bound, then released: nothing listens there, and loopback says so by ICMP
        }
        final MoldUDP64Subscriber subscriber = subscriber(socket, gone);
        if (socket == Socket.NATIVE) {
            assertThat(subscriber.requestEndpoint().isNativeSocket()).as(String.valueOf(UdpEndpoint.nativeSocketUnavailableReason()))
                .isEqualTo(UdpEndpoint.nativeSocketUnavailableReason() == null);
        }
        feed(subscriber, packet(SESSION, 1, 1, numbered(1, 1)));
        feed(subscriber, packet(SESSION, 3, 1, numbered(3, 1))); // 2 is asked for, and the ICMP comes back

        timeOutUntil(subscriber, () -> subscriber.state() == MoldUDP64SubscriberState.UNRECOVERABLE);

        assertThat(events).containsExactly("message 1", "unrecoverable 2+1 NO_ANSWER");
        assertThat(subscriber.unrecoverableReason()).isEqualTo(MoldUDP64GapReason.NO_ANSWER);
        assertThat(subscriber.requests()).isEqualTo(ATTEMPTS);
        assertThat(subscriber.retries()).isEqualTo(ATTEMPTS - 1);
        assertThat(unreachable(subscriber)).as("the ICMP was met").isPositive();
        assertThat(subscriber.requestEndpoint().receiveErrors() + subscriber.requestEndpoint().sendErrors())
            .isEqualTo(unreachable(subscriber));
        assertThat(subscriber.requestEndpoint().isClosed()).isFalse();
        assertThat(errors).as("reported once, nothing thrown out of a cycle").singleElement()
            .isInstanceOf(PortUnreachableException.class).extracting(Throwable::getMessage).asString()
            .contains("request server " + gone).contains(ATTEMPTS + " attempts");
    }

    /**
     * A server that comes back is asked again and answers; gone once more, it is reported once more: the report is
     * once per silence, not once per subscriber.
     */
    @ParameterizedTest
    @EnumSource(Socket.class)
    void shouldRecoverFromAServerThatCameBackAndReportItGoneAgain(final Socket socket) throws IOException {
        final InetSocketAddress gone;
        try (DatagramChannel server = capture()) {
            gone = address(server);
        }
        final MoldUDP64Subscriber subscriber = subscriber(socket, gone);
        feed(subscriber, packet(SESSION, 1, 1, numbered(1, 1)));
        feed(subscriber, packet(SESSION, 3, 1, numbered(3, 1)));
        timeOutUntil(subscriber, () -> !errors.isEmpty());
        assertThat(errors).hasSize(1);

        try (DatagramChannel server = DatagramChannel.open()) {
            server.bind(gone); // back, on its port
            clock.now += TIMEOUT_NS;
            final byte[] request = receive(reactor, server);
            assertThat(hex(request)).endsWith(String.format("%016x%04x", 2, 1));
            server.send(ByteBuffer.wrap(packet(SESSION, 2, 1, numbered(2, 1))),
                MoldFixture.loopback(subscriber.requestEndpoint().localAddress().getPort()));
            MoldFixture.spinUntil(reactor, () -> subscriber.nextExpected() == 4, 5);
        }
        feed(subscriber, packet(SESSION, 5, 1, numbered(5, 1))); // gone again: 4 is asked for, and the ICMP comes back
        timeOutUntil(subscriber, () -> errors.size() > 1);

        assertThat(events).startsWith("message 1", "message 2", "message 3");
        assertThat(errors).hasSize(2).allSatisfy(error -> assertThat(error).isInstanceOf(PortUnreachableException.class));
    }

    /**
     * Requests go to the request server, and a socket connected elsewhere could not send them: the JDK refuses a send
     * to another address than the connected one by throwing, out of the cycle that sends the request.
     */
    @Test
    void shouldRefuseARequestSocketConnectedToAnotherAddressThanTheRequestServer() throws IOException {
        try (DatagramChannel server = capture(); DatagramChannel other = capture()) {
            final long descriptors = FileDescriptors.open();
            assertThatThrownBy(() -> subscriber(Socket.RECEIVE, address(other), address(server)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("remoteAddress=" + address(other)).hasMessageContaining("requestServer=" + address(server));
            reactor.doWork(); // a channel registered with a selector is released at its next select
            assertThat(FileDescriptors.open()).as("both sockets closed again").isEqualTo(descriptors);
        }
    }

    /** Moves the clock past each request's timeout, once its ICMP has been read, until the condition holds. */
    private void timeOutUntil(final MoldUDP64Subscriber subscriber, final BooleanSupplier condition) {
        for (int i = 0; i < 10 * ATTEMPTS && !condition.getAsBoolean(); i++) {
            final long unreachable = unreachable(subscriber);
            for (int cycle = 0; cycle < 100_000 && unreachable(subscriber) == unreachable; cycle++) {
                reactor.doWork();
            }
            clock.now += TIMEOUT_NS;
            reactor.doWork();
        }
    }

    private MoldUDP64Subscriber subscriber(final Socket socket, final InetSocketAddress server) {
        return subscriber(socket, server, server);
    }

    private MoldUDP64Subscriber subscriber(final Socket socket, final InetSocketAddress connected, final InetSocketAddress server) {
        return new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).request(socket.options(connected)).requestServer(server)
            .requestTimeoutNs(TIMEOUT_NS).maxRequestTimeoutNs(TIMEOUT_NS).requestAttempts(ATTEMPTS), MoldFixture.recording(events));
    }

    private static long unreachable(final MoldUDP64Subscriber subscriber) {
        return subscriber.requestEndpoint().portUnreachable();
    }

    private void feed(final MoldUDP64Subscriber subscriber, final byte[] packet) {
        subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, clock.now);
    }
}
