package dev.peregrine.mold;

import dev.peregrine.testkit.Needs;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.testkit.Ipv6Loopback;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A publisher whose destination is IPv6, and a subscriber whose request server is, bind the IPv6 wildcard by
 * themselves: before, both bound the IPv4 wildcard unless told otherwise, and could not send to their IPv6 peer.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64Ipv6Test {
    private static final String SESSION = "V6";
    private static final InetAddress IPV6_LOOPBACK = Ipv6Loopback.ADDRESS;
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();

    @BeforeAll
    static void requireIpv6Loopback() {
        Needs.configuration("IPv6 loopback", Ipv6Loopback.usable(), "no ::1 on this machine: MoldUDP64 over IPv6 is untested");
    }

    @Test
    void shouldPublishToAnIpv6DestinationFromDefaultPublisherOptions() {
        final List<Long> delivered = new ArrayList<>();
        try (Reactor reactor = MoldFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(SESSION, 1024, 1 << 16)) {
            final MoldUDP64Subscriber subscriber = subscriber(reactor, null, delivered);
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(subscriber.feedEndpoint().localAddress()));

            assertThat(publisher.endpoint().localAddress().getAddress()).isInstanceOf(Inet6Address.class);
            publish(reactor, publisher, 3);
            MoldFixture.spinUntil(reactor, () -> delivered.size() == 3, 10);

            assertThat(delivered).containsExactly(1L, 2L, 3L);
            publisher.close();
        }
    }

    @Test
    void shouldRecoverFromAnIpv6RequestServerThroughTheDefaultRequestSocket() {
        final List<Long> delivered = new ArrayList<>();
        final boolean[] droppedOnce = new boolean[1];
        try (Reactor reactor = MoldFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(SESSION, 1024, 1 << 16)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(new InetSocketAddress(IPV6_LOOPBACK, 0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1000, 10);
            final MoldUDP64Subscriber subscriber = subscriber(reactor, server.localAddress(), delivered);
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(subscriber.feedEndpoint().localAddress())
                .udp(new UdpOptions().localAddress(new InetSocketAddress(IPV6_LOOPBACK, 0)))
                .filter((sequence, count) -> {
                    if (sequence == 2 && !droppedOnce[0]) {
                        droppedOnce[0] = true; // lost once: the subscriber asks the request server for it
                        return false;
                    }
                    return true;
                }));

            publish(reactor, publisher, 3);
            MoldFixture.spinUntil(reactor, () -> delivered.size() == 3, 10);

            assertThat(droppedOnce[0]).isTrue();
            assertThat(delivered).containsExactly(1L, 2L, 3L);
            assertThat(subscriber.recovered()).isEqualTo(1);
            assertThat(server.answers()).isEqualTo(1);
            publisher.close();
        }
    }

    /** A subscriber whose feed is on {@code ::1} and whose request socket is left to its defaults. */
    private static MoldUDP64Subscriber subscriber(final Reactor reactor, final InetSocketAddress requestServer,
        final List<Long> delivered) {
        return new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(new InetSocketAddress(IPV6_LOOPBACK, 0)))
            .requestServer(requestServer).session(SESSION).startSequence(1), new MoldUDP64Listener() {
                @Override
                public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                    delivered.add(sequence);
                }
            });
    }

    /** Offers {@code count} messages, one per cycle, so that each goes out in a packet of its own. */
    private static void publish(final Reactor reactor, final MoldUDP64Publisher publisher, final int count) {
        final MemorySegment message = MemorySegment.ofArray(new byte[8]);
        for (long sequence = 1; sequence <= count; sequence++) {
            assertThat(publisher.offer(message, 0, 8)).isEqualTo(sequence);
            reactor.doWork();
        }
    }
}
