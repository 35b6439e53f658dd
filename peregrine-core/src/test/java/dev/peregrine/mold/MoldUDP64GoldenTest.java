package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;

/** Packets byte-exact to MoldUDP64 1.00, as our roles put them on the wire. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64GoldenTest {
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final Reactor reactor = MoldFixture.reactor(clock);
    private final DatagramChannel listener = capture();
    private final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("GOLDEN1", 1024, 1 << 20);

    @AfterEach
    void close() throws Exception {
        reactor.close();
        listener.close();
        store.close();
    }

    private MoldUDP64Publisher publisher() {
        return new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions().destination(address(listener))
            .heartbeatIntervalNs(1_000_000_000L).endOfSessionRepeats(2));
    }

    @Test
    void shouldWriteHeaderAndOddMixOfMessageSizes() {
        final MoldUDP64Publisher publisher = publisher();
        final byte[][] messages = {{}, {(byte)0xAB}, {}, {1, 2, 3}, new byte[256], {}};
        messages[4][0] = 0x7F;
        messages[4][255] = (byte)0xFE;
        for (final byte[] message : messages) {
            publisher.offer(MemorySegment.ofArray(message), 0, message.length);
        }
        publisher.flush();

        final String expected = "474f4c44454e31202020" // session "GOLDEN1" padded with spaces
            + "0000000000000001" // sequence number 1
            + "0006" // six messages
            + "0000" + "0001ab" + "0000" + "0003010203"
            + "0100" + "7f" + "00".repeat(254) + "fe"
            + "0000";
        assertThat(hex(receive(reactor, listener))).isEqualTo(expected);
    }

    @Test
    void shouldFillPacketWithLargestMessageThatFitsAndRejectOneByteMore() {
        final MoldUDP64Publisher publisher = publisher();
        final byte[] largest = new byte[MoldUDP64Layout.DEFAULT_MAX_PAYLOAD - 2];
        largest[0] = 0x11;
        largest[largest.length - 1] = 0x22;

        assertThat(publisher.offer(MemorySegment.ofArray(new byte[largest.length + 1]), 0, largest.length + 1))
            .isEqualTo(MoldUDP64Publisher.MESSAGE_TOO_LARGE);
        assertThat(publisher.offer(MemorySegment.ofArray(largest), 0, largest.length)).isEqualTo(1);
        publisher.flush();

        final byte[] packet = receive(reactor, listener);
        assertThat(packet).hasSize(1472);
        assertThat(hex(packet).substring(0, 46)).isEqualTo("474f4c44454e31202020" + "0000000000000001" + "0001" + "05aa" + "11");
        assertThat(packet[1471]).isEqualTo((byte)0x22);
    }

    @Test
    void shouldStartNextPacketWhenMessageDoesNotFit() {
        final MoldUDP64Publisher publisher = publisher();
        final byte[] half = new byte[700];
        publisher.offer(MemorySegment.ofArray(half), 0, half.length);
        publisher.offer(MemorySegment.ofArray(half), 0, half.length);
        publisher.offer(MemorySegment.ofArray(half), 0, half.length);
        publisher.flush();

        final byte[] first = receive(reactor, listener);
        final byte[] second = receive(reactor, listener);
        assertThat(first).hasSize(20 + 2 * 702);
        assertThat(hex(first).substring(20, 40)).isEqualTo("0000000000000001" + "0002");
        assertThat(second).hasSize(20 + 702);
        assertThat(hex(second).substring(20, 40)).isEqualTo("0000000000000003" + "0001");
    }

    @Test
    void shouldSendACyclesMessagesInFullPacketsAndTheRestAtTheEndOfTheCycle() {
        final MoldUDP64Publisher publisher = publisher();
        final byte[] message = new byte[8];
        for (int i = 0; i < 300; i++) {
            publisher.offer(MemorySegment.ofArray(message), 0, message.length);
        }
        assertThat(publisher.packetsSent()).as("full packets leave as they fill").isEqualTo(2);
        reactor.doWork();
        assertThat(publisher.packetsSent()).as("the rest at the end of the cycle").isEqualTo(3);

        assertThat(hex(receive(reactor, listener)).substring(20, 40)).isEqualTo("0000000000000001" + "0091"); // 145 x 10 bytes
        assertThat(hex(receive(reactor, listener)).substring(20, 40)).isEqualTo("0000000000000092" + "0091");
        assertThat(hex(receive(reactor, listener)).substring(20, 40)).isEqualTo("0000000000000123" + "000a");
    }

    @Test
    void shouldHoldPartlyFilledPacketUntilFlushDelayExpiresOnTheTimerWheel() {
        final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
            .destination(address(listener)).flushDelayNs(5_000_000L));
        publisher.offer(MemorySegment.ofArray(new byte[] {1}), 0, 1);
        publisher.offer(MemorySegment.ofArray(new byte[] {2}), 0, 1);

        assertThat(MoldFixture.nothingReceived(reactor, listener)).as("held while the delay runs").isTrue();
        clock.now += 6_000_000L;
        assertThat(hex(receive(reactor, listener))).isEqualTo("474f4c44454e31202020" + "0000000000000001" + "0002" + "000101" + "000102");
    }

    @Test
    void shouldSendHeartbeatWithNextExpectedSequenceWhenIdle() {
        final MoldUDP64Publisher publisher = publisher();
        publisher.offer(MemorySegment.ofArray(new byte[] {9}), 0, 1);
        publisher.flush();
        receive(reactor, listener);
        clock.now += 1_000_000_000L;

        assertThat(hex(receive(reactor, listener))).isEqualTo("474f4c44454e31202020" + "0000000000000002" + "0000");
        assertThat(publisher.heartbeatsSent()).isEqualTo(1);
    }

    @Test
    void shouldRepeatEndOfSessionOnCloseThenRelease() {
        final MoldUDP64Publisher publisher = publisher();
        publisher.offer(MemorySegment.ofArray(new byte[] {9}), 0, 1);
        publisher.close();

        receive(reactor, listener); // the pending message goes first
        assertThat(hex(receive(reactor, listener))).isEqualTo("474f4c44454e31202020" + "0000000000000002" + "ffff");
        clock.now += 1_000_000_000L;
        assertThat(hex(receive(reactor, listener))).isEqualTo("474f4c44454e31202020" + "0000000000000002" + "ffff");
        clock.now += 1_000_000_000L;
        reactor.doWork();
        assertThat(publisher.isDone()).isTrue();
        assertThat(publisher.offer(MemorySegment.ofArray(new byte[1]), 0, 1)).isEqualTo(MoldUDP64Publisher.CLOSED);
    }

    @Test
    void shouldSendRequestForExactlyTheMissingRange() {
        final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new dev.peregrine.udp.UdpOptions().localAddress(MoldFixture.loopback(0)))
            .requestServer(address(listener)).startSequence(1), (sequence, buffer, offset, length) -> { });
        final byte[] packet = MoldFixture.packet("GOLDEN1", 0x0102_0304_0506_0708L, 1, new byte[] {1});

        subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, reactor.nowNs());

        assertThat(hex(receive(reactor, listener))).isEqualTo("474f4c44454e31202020" + "0000000000000001" + "fffe");
        final InetSocketAddress source = subscriber.requestEndpoint().localAddress();
        assertThat(source.getPort()).isNotEqualTo(subscriber.feedEndpoint().localAddress().getPort());
    }
}
