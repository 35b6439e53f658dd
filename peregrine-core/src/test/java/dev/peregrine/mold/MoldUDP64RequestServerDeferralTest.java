package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static dev.peregrine.mold.MoldFixture.receive;
import static dev.peregrine.mold.MoldFixture.unhex;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request server's budget per source: a request over it waits and is answered late, oldest first, unless the
 * queue or the source's share of it is full; and the buckets, keyed at random, cannot be aimed at. The server is
 * driven with an injected clock ({@link MoldUDP64RequestServer#onRequest} and {@link MoldUDP64RequestServer#doWork}
 * take {@code nowNs}); answers are read from real loopback sockets.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64RequestServerDeferralTest {
    private static final String SESSION_HEX = "46454544202020202020"; // "FEED"
    /** 100 answers per second, bursts of 1: one answer per 10 ms. */
    private static final long INTERVAL_NS = 10_000_000L;
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final Reactor reactor = MoldFixture.reactor(clock);
    private final DatagramChannel client = capture();
    private final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 1 << 16, 1 << 20);
    private final List<DatagramChannel> others = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        reactor.close();
        client.close();
        for (final DatagramChannel other : others) {
            other.close();
        }
        store.close();
    }

    private MoldUDP64RequestServer server(final int queue, final int perSource) {
        for (int i = 1; i <= 10; i++) {
            store.append(MemorySegment.ofArray(new byte[] {(byte)i}), 0, 1);
        }
        return new MoldUDP64RequestServer(reactor, store, new UdpOptions().localAddress(MoldFixture.loopback(0)),
            MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100, 1, queue, perSource);
    }

    private static InetSocketAddress source(final DatagramChannel channel) throws IOException {
        return (InetSocketAddress)channel.getLocalAddress();
    }

    /**
     * A socket on another loopback address whose bucket is not the client's: the buckets are keyed at random, so one
     * address in 1024 shares it by chance, and the next one is taken then.
     */
    private DatagramChannel otherHost(final MoldUDP64RequestServer server) throws IOException {
        final int clientBucket = server.rateSlot(source(client));
        InetAddress address = InetAddress.getByName("127.0.0.2");
        for (int last = 3; server.rateSlot(new InetSocketAddress(address, 1)) == clientBucket; last++) {
            address = InetAddress.getByName("127.0.0." + last);
        }
        final DatagramChannel channel = DatagramChannel.open();
        others.add(channel);
        channel.bind(new InetSocketAddress(address, 0));
        return channel;
    }

    private int ask(final MoldUDP64RequestServer server, final InetSocketAddress from, final long sequence, final int count) {
        final byte[] request = unhex(SESSION_HEX + String.format("%016x%04x", sequence, count));
        return server.onRequest(MemorySegment.ofArray(request), 0, request.length, from, clock.now);
    }

    private static String answer(final long sequence, final int... messages) {
        final StringBuilder hex = new StringBuilder(SESSION_HEX).append(String.format("%016x%04x", sequence, messages.length));
        for (final int message : messages) {
            hex.append(String.format("0001%02x", message));
        }
        return hex.toString();
    }

    @Test
    void shouldAnswerRequestsOverTheBudgetLateOldestFirstInsteadOfDroppingThem() throws IOException {
        final MoldUDP64RequestServer server = server(16, 8);
        final InetSocketAddress from = source(client);

        assertThat(ask(server, from, 1, 1)).as("within the budget: at once").isEqualTo(1);
        assertThat(ask(server, from, 2, 1)).as("over it: waits").isZero();
        assertThat(ask(server, from, 3, 1)).isZero();
        assertThat(server.doWork(clock.now)).as("no budget yet").isZero();
        assertThat(server.deferred()).isEqualTo(2);
        assertThat(server.waiting()).isEqualTo(2);
        assertThat(server.answers()).isEqualTo(1);

        clock.now += INTERVAL_NS;
        assertThat(server.doWork(clock.now)).as("one interval: the oldest only").isEqualTo(1);
        clock.now += INTERVAL_NS;
        assertThat(server.doWork(clock.now)).isEqualTo(1);

        assertThat(hex(receive(reactor, client))).isEqualTo(answer(1, 1));
        assertThat(hex(receive(reactor, client))).isEqualTo(answer(2, 2));
        assertThat(hex(receive(reactor, client))).isEqualTo(answer(3, 3));
        assertThat(server.answers()).isEqualTo(3);
        assertThat(server.waiting()).isZero();
        assertThat(server.rateLimited()).as("nothing dropped").isZero();
    }

    @Test
    void shouldQueueANewRequestBehindItsSourcesWaitingOnesEvenWhenTheBudgetAllows() throws IOException {
        final MoldUDP64RequestServer server = server(16, 8);
        final InetSocketAddress from = source(client);
        ask(server, from, 1, 1);
        ask(server, from, 2, 1); // waits
        clock.now += INTERVAL_NS;

        assertThat(ask(server, from, 3, 1)).as("behind 2, though the budget has room").isZero();
        assertThat(server.doWork(clock.now)).isEqualTo(1);
        clock.now += INTERVAL_NS;
        assertThat(server.doWork(clock.now)).isEqualTo(1);

        assertThat(hex(receive(reactor, client))).isEqualTo(answer(1, 1));
        assertThat(hex(receive(reactor, client))).isEqualTo(answer(2, 2));
        assertThat(hex(receive(reactor, client))).isEqualTo(answer(3, 3));
    }

    @Test
    void shouldMergeARepeatOfAWaitingRequestKeepingTheLargerCount() throws IOException {
        final MoldUDP64RequestServer server = server(16, 8);
        final InetSocketAddress from = source(client);
        ask(server, from, 1, 1);
        ask(server, from, 2, 1);
        ask(server, from, 2, 1);
        ask(server, from, 2, 3);

        assertThat(server.deferred()).isEqualTo(1);
        assertThat(server.merged()).isEqualTo(2);
        assertThat(server.waiting()).isEqualTo(1);
        clock.now += INTERVAL_NS;
        assertThat(server.doWork(clock.now)).isEqualTo(1);
        clock.now += 10 * INTERVAL_NS;
        assertThat(server.doWork(clock.now)).as("one answer for the three copies").isZero();

        assertThat(hex(receive(reactor, client))).isEqualTo(answer(1, 1));
        assertThat(hex(receive(reactor, client))).isEqualTo(answer(2, 2, 3, 4));
        assertThat(server.answers()).isEqualTo(2);
    }

    @Test
    void shouldCapTheRequestsOneSourceMayHaveWaitingAndLeaveTheRestOfTheQueueToOthers() throws IOException {
        final MoldUDP64RequestServer server = server(16, 2);
        final InetSocketAddress from = source(client);
        final DatagramChannel other = otherHost(server);
        ask(server, from, 1, 1);
        for (long sequence = 2; sequence <= 6; sequence++) {
            ask(server, from, sequence, 1); // 2 and 3 wait, 4 to 6 are over the source's share
        }
        ask(server, source(other), 1, 1); // its own budget
        ask(server, source(other), 2, 1); // over it: waits, the client's share is not the queue's

        assertThat(server.deferred()).isEqualTo(3);
        assertThat(server.sourceFull()).isEqualTo(3);
        assertThat(server.queueFull()).isZero();
        assertThat(server.rateLimited()).as("dropped ones only").isEqualTo(3);
        clock.now += INTERVAL_NS;
        assertThat(server.doWork(clock.now)).as("one per source per interval").isEqualTo(2);
        assertThat(hex(receive(reactor, other))).isEqualTo(answer(1, 1));
        assertThat(hex(receive(reactor, other))).isEqualTo(answer(2, 2));
    }

    @Test
    void shouldDropAndCountWhatOverflowsTheQueue() throws IOException {
        final MoldUDP64RequestServer server = server(2, 2);
        final InetSocketAddress from = source(client);
        final DatagramChannel other = otherHost(server);
        ask(server, from, 1, 1);
        ask(server, from, 2, 1);
        ask(server, from, 3, 1); // the queue holds 2 and 3
        ask(server, source(other), 1, 1);
        ask(server, source(other), 2, 1); // over its budget, no room

        assertThat(server.queueFull()).isEqualTo(1);
        assertThat(server.rateLimited()).isEqualTo(1);
        assertThat(server.waiting()).isEqualTo(2);
        clock.now += INTERVAL_NS;
        assertThat(server.doWork(clock.now)).as("the client's oldest answered: a place is free").isEqualTo(1);
        assertThat(ask(server, source(other), 3, 1)).as("within the other host's budget again").isEqualTo(1);
        assertThat(ask(server, source(other), 4, 1)).as("over it: waits in the freed place").isZero();
        assertThat(server.queueFull()).isEqualTo(1);
        assertThat(server.waiting()).isEqualTo(2);
    }

    @Test
    void shouldPutTheSourcesOfOneIpv6Slash64InOneBucket() throws IOException {
        final MoldUDP64RequestServer server = server(16, 8);
        final int bucket = server.rateSlot(new InetSocketAddress(InetAddress.getByName("2001:db8:1:2::1"), 1000));

        assertThat(server.rateSlot(new InetSocketAddress(InetAddress.getByName("2001:db8:1:2:ffff:ffff:ffff:fffe"), 2000)))
            .isEqualTo(bucket);
        assertThat(server.rateSlot(new InetSocketAddress(InetAddress.getByName("2001:db8:1:2:1234::99"), 3000)))
            .isEqualTo(bucket);
        int elsewhere = 0;
        for (int net = 0; net < 16; net++) { // other /64s spread over the table
            final int other = server.rateSlot(new InetSocketAddress(InetAddress.getByName("2001:db8:1:" + (3 + net) + "::1"), 1));
            elsewhere += other == bucket ? 0 : 1;
        }
        assertThat(elsewhere).isGreaterThan(8);
    }

    @Test
    void shouldPutAnIpv4MappedSourceInTheBucketOfItsIpv4Address() throws IOException {
        final MoldUDP64RequestServer server = server(16, 8);
        for (int last = 1; last <= 8; last++) {
            final byte[] mapped = new byte[16];
            mapped[10] = (byte)0xFF;
            mapped[11] = (byte)0xFF;
            mapped[12] = (byte)192;
            mapped[13] = 0;
            mapped[14] = 2;
            mapped[15] = (byte)last;
            final InetAddress asIpv6 = Inet6Address.getByAddress(null, mapped, -1);
            assertThat(asIpv6).isInstanceOf(Inet6Address.class);

            assertThat(server.rateSlot(new InetSocketAddress(asIpv6, 5)))
                .isEqualTo(server.rateSlot(new InetSocketAddress(InetAddress.getByName("192.0.2." + last), 6)));
        }
    }

    @Test
    void shouldKeyEachServersBucketsApart() throws IOException {
        final MoldUDP64RequestServer one = server(16, 8);
        final MoldUDP64RequestServer two = new MoldUDP64RequestServer(reactor, store,
            new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100, 1);
        final List<Integer> bucketsOfOne = new ArrayList<>();
        final List<Integer> bucketsOfTwo = new ArrayList<>();
        for (int last = 1; last <= 32; last++) {
            final InetSocketAddress source = new InetSocketAddress(InetAddress.getByName("10.0.0." + last), 1);
            bucketsOfOne.add(one.rateSlot(source));
            bucketsOfTwo.add(two.rateSlot(source));
        }

        assertThat(bucketsOfOne).as("an attacker who learns one server's buckets knows nothing of another's")
            .isNotEqualTo(bucketsOfTwo);
    }
}
