package dev.peregrine.mold;

import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Publisher, re-request server and three subscribers on one reactor, with a seeded relay between the
 * publisher and the subscribers that drops 10%, duplicates 5%, truncates 2% and reorders 10% of
 * packets, independently per subscriber: every message must reach every subscriber in order, once.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS) // the last resort; a stall of 10 s fails first
class MoldUDP64FaultInjectionTest {
    private static final int MESSAGES = 1_000_000;
    private static final int SUBSCRIBERS = 3;
    private static final int WINDOW = 20_000;

    /** Checks what one subscriber gets. */
    private static final class Checker implements MoldUDP64Listener {
        long next = 1;
        long errors;

        @Override
        public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
            if (sequence != next || length != lengthOf(sequence)
                || length >= 8 && buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != sequence) {
                errors++;
            }
            next = sequence + 1;
        }
    }

    static int lengthOf(final long sequence) {
        return (int)(sequence % 13 == 0 ? 0 : 7 + sequence % 13);
    }

    @Test
    void shouldDeliverEveryMessageInOrderExactlyOnceThroughLossReorderingDuplicationAndTruncation() {
        final List<Throwable> errors = new ArrayList<>();
        try (Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).errorHandler(errors::add));
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FAULTS", 1 << 21, 64L << 20)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)).receiveBufferSize(1 << 20),
                MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000_000, 1000);
            final Checker[] checkers = new Checker[SUBSCRIBERS];
            final MoldUDP64Subscriber[] subscribers = new MoldUDP64Subscriber[SUBSCRIBERS];
            final InetSocketAddress[] feeds = new InetSocketAddress[SUBSCRIBERS];
            for (int i = 0; i < SUBSCRIBERS; i++) {
                checkers[i] = new Checker();
                subscribers[i] = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                    .feed(new UdpOptions().localAddress(MoldFixture.loopback(0)).receiveBufferSize(4 << 20))
                    .requestServer(server.localAddress()).startSequence(1).requestTimeoutNs(5_000_000L), checkers[i]);
                feeds[i] = subscribers[i].feedEndpoint().localAddress();
            }
            final FaultInjectingRelay relay = new FaultInjectingRelay(reactor, 20261121L, 0.10, 0.05, 0.02, 0.10, feeds);
            // An end-of-session packet is header only and gives away no gap: it reaches a subscriber unless the relay
            // drops (10%) or truncates (2%) it, and the relay holds the last one back with a 10% chance. With three
            // repeats one of three subscribers missed every one about once in a hundred runs (and stayed
            // SYNCHRONISED, rightly); twenty make that a chance below 1e-17.
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(relay.address()).heartbeatIntervalNs(10_000_000L).endOfSessionRepeats(20));
            final MemorySegment message = Arena.ofAuto().allocate(64);

            // no wall-clock budget for the run (a loaded machine may take minutes): the loop ends when every
            // subscriber reaches the end of the session, or fails when nothing moved for 10 s, a hang
            final long stallNs = TimeUnit.SECONDS.toNanos(10);
            long progress = -1;
            long progressedAt = System.nanoTime();
            while (true) {
                long slowest = Long.MAX_VALUE;
                long now = publisher.nextSequence();
                for (final MoldUDP64Subscriber subscriber : subscribers) {
                    slowest = Math.min(slowest, subscriber.delivered());
                    now += subscriber.delivered() + subscriber.state().ordinal();
                }
                if (now != progress) {
                    progress = now;
                    progressedAt = System.nanoTime();
                } else if (System.nanoTime() - progressedAt > stallNs) {
                    System.out.println("no progress for 10 s: stopping to report what each subscriber got");
                    break;
                }
                if (slowest == MESSAGES && subscribers[0].state() == MoldUDP64SubscriberState.END_OF_SESSION
                    && subscribers[1].state() == MoldUDP64SubscriberState.END_OF_SESSION
                    && subscribers[2].state() == MoldUDP64SubscriberState.END_OF_SESSION) {
                    break;
                }
                for (int i = 0; i < 200 && publisher.nextSequence() <= MESSAGES && publisher.nextSequence() - slowest < WINDOW; i++) {
                    final long sequence = publisher.nextSequence();
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, sequence);
                    publisher.offer(message, 0, lengthOf(sequence));
                    if (sequence == MESSAGES) {
                        publisher.close();
                    }
                }
                reactor.doWork();
            }

            long malformed = 0;
            for (int i = 0; i < SUBSCRIBERS; i++) {
                final MoldUDP64Subscriber subscriber = subscribers[i];
                assertThat(subscriber.delivered()).as("subscriber %d delivered", i).isEqualTo(MESSAGES);
                assertThat(checkers[i].errors).as("subscriber %d out of order or corrupt", i).isZero();
                assertThat(checkers[i].next).isEqualTo(MESSAGES + 1);
                assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
                assertThat(subscriber.gaps()).isPositive();
                assertThat(subscriber.recovered()).isPositive();
                // a subscriber that is recovering may drop a feed packet on its header alone, so on a fast run one
                // subscriber can miss every truncated packet: malformed is asserted over all of them
                assertThat(subscriber.malformed()).isLessThanOrEqualTo(relay.truncated);
                malformed += subscriber.malformed();
                System.out.printf("subscriber %d: gaps=%d requests=%d recovered=%d duplicates=%d malformed=%d%n", i,
                    subscriber.gaps(), subscriber.requests(), subscriber.recovered(), subscriber.duplicates(), subscriber.malformed());
            }
            System.out.printf("relay: dropped=%d duplicated=%d truncated=%d reordered=%d; server answers=%d rateLimited=%d%n",
                relay.dropped, relay.duplicated, relay.truncated, relay.reordered, server.answers(), server.rateLimited());
            assertThat(relay.dropped).isPositive();
            assertThat(malformed).as("truncated packets seen as malformed by all subscribers").isPositive();
            // a subscriber counts a duplicate only when it arrives behind the next expected message; one that is
            // recovering drops feed packets ahead of the gap uncounted, so the count may be 0 on a fast run: the
            // exactly-once check above is what proves duplicates were skipped, given that the relay made some
            assertThat(relay.duplicated).isPositive();
            assertThat(errors).isEmpty();
        }
    }
}
