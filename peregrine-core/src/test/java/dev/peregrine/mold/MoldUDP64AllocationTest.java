package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Publisher, re-request server and subscriber allocate nothing per message in steady state, recovery
 * included: every tenth packet is dropped at the publisher, so the request path runs all the time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoldUDP64AllocationTest {
    private static final boolean BUSY_POLL = Boolean.parseBoolean(System.getProperty("busyPoll", "true"));

    @Test
    void shouldAllocateNothingPerMessageOnPublisherSubscriberAndRequestServer() {
        final long[] packets = new long[1];
        final boolean[] droppedLast = new boolean[1];
        final long[] delivered = new long[1];
        try (Reactor reactor = MoldFixture.reactor(System::nanoTime);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("ALLOC", 1 << 16, 1 << 22)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000_000, 1000);
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0)).busyPoll(BUSY_POLL)).requestServer(server.localAddress())
                .requestTimeoutNs(1_000_000L), (sequence, buffer, offset, length) -> delivered[0]++);
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(subscriber.feedEndpoint().localAddress())
                .filter((sequence, count) -> {
                    droppedLast[0] = count != 0 && ++packets[0] % 10 == 0;
                    return !droppedLast[0];
                }));
            final MemorySegment message = Arena.ofAuto().allocate(32);

            final Runnable oneMessage = () -> {
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, publisher.nextSequence());
                publisher.offer(message, 0, 32);
                publisher.flush();

                final long target = publisher.nextSequence() - (droppedLast[0] ? 2 : 1); // a drop shows with the next packet
                for (int i = 0; i < 1_000_000 && subscriber.nextExpected() <= target; i++) {
                    reactor.doWork();
                }
            };
            final long allocated = AllocationMeter.steadyStateBytes(50_000, 2_500, 20, oneMessage);

            assertThat(delivered[0]).isGreaterThanOrEqualTo(24_999);
            // every 10th packet dropped and recovered; the count of messages grows with the measuring rounds
            assertThat(subscriber.recovered()).isGreaterThanOrEqualTo(delivered[0] / 10 - 1).isGreaterThanOrEqualTo(2_499);
            assertThat(server.answers()).isGreaterThanOrEqualTo(delivered[0] / 10 - 1);
            assertThat(allocated).isZero();
        }
    }
}
