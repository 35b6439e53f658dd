package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gap fill under random loss, duplication and reordering of feed packets, and loss, duplication and delay
 * of answers: the subscriber delivers exactly the published sequence, in order, or ends
 * {@link MoldUDP64SubscriberState#UNRECOVERABLE} with a reason, and never hangs. Driven by hand: packets
 * go straight to {@link MoldUDP64Subscriber#onPacket}, the clock is a manual one, and a scripted
 * re-request server (the oracle: the published messages, no code of the library) reads the requests from
 * a loopback socket.
 */
class MoldUDP64GapFillPropertyTest {
    private static final String SESSION = "PROPERTY";
    private static final int MAX_STEPS = 200_000;
    /** 8-byte messages that fit the default payload (1452 bytes) with their 2-byte length: 145, 1450 bytes. */
    private static final int FULL_PACKET_MESSAGES = MoldUDP64Layout.DEFAULT_MAX_PAYLOAD / 10;
    /**
     * The highest sequence a packet may carry: the subscriber refuses any above it, so that a sequence plus a
     * count (END_OF_SESSION's 0xFFFF included) never overflows a long.
     */
    private static final long TOP = Long.MAX_VALUE - MoldUDP64Layout.END_OF_SESSION;
    /** The most messages a run publishes. */
    private static final int MAX_MESSAGES = 400;
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Checks what the subscriber delivers. */
    private static final class Checker implements MoldUDP64Listener {
        long next;
        long wrong;
        MoldUDP64GapReason reason;

        @Override
        public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
            // 8 bytes, or 10 for the last message of a full packet (padded to fill the payload exactly)
            if (sequence != next || (length != 8 && length != 10) || buffer.get(BIG_ENDIAN_LONG, offset) != sequence) {
                wrong++;
            }
            next = sequence + 1;
        }

        @Override
        public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason why) {
            reason = why;
        }
    }

    /**
     * The first sequence: 1, just below 2^63 (the end-of-session then within 410 of {@link #TOP}, the highest
     * sequence accepted, and at it when 400 messages start at {@code TOP - 400}), or anywhere between.
     */
    @Provide
    Arbitrary<Long> firstSequences() {
        return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(1L)),
            Tuple.of(4, Arbitraries.longs().between(TOP - 410, TOP - MAX_MESSAGES)),
            Tuple.of(2, Arbitraries.longs().between(2, TOP - 411)));
    }

    /** The feed's messages from {@code sequence}: when {@code full}, the last one padded so the payload is 1452. */
    private static byte[][] feedMessages(final long sequence, final int count, final boolean full) {
        final byte[][] messages = numbered(sequence, count);
        if (full && count == FULL_PACKET_MESSAGES) {
            messages[count - 1] = ByteBuffer.allocate(8 + MoldUDP64Layout.DEFAULT_MAX_PAYLOAD - 10 * count)
                .putLong(sequence + count - 1).array();
        }
        return messages;
    }

    @Property(tries = 300)
    void shouldDeliverThePublishedSequenceOrGiveUpWithAReason(
        @ForAll final long seed,
        @ForAll("firstSequences") final long first,
        @ForAll final boolean fullPackets,
        @ForAll @IntRange(min = 1, max = MAX_MESSAGES) final int messageCount,
        @ForAll @DoubleRange(min = 0, max = 0.5) final double feedLoss,
        @ForAll @DoubleRange(min = 0, max = 0.3) final double duplication,
        @ForAll @IntRange(min = 0, max = 8) final int reorderWindow,
        @ForAll @DoubleRange(min = 0, max = 0.7) final double answerLoss,
        @ForAll @IntRange(min = 0, max = 40) final int bufferSlots,
        @ForAll @IntRange(min = 1, max = 6) final int requestsInFlight,
        @ForAll @IntRange(min = 1, max = 12) final int answerCap) throws IOException {
        final SplittableRandom random = new SplittableRandom(seed);
        final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
        // full packets: at least one of them (jqwik favours small counts)
        final int messages = fullPackets ? Math.max(messageCount, FULL_PACKET_MESSAGES) : messageCount;
        final Checker checker = new Checker();
        checker.next = first;
        final long end = first + messages; // the end-of-session's sequence, at most TOP
        try (Reactor reactor = MoldFixture.reactor(clock); DatagramChannel requests = MoldFixture.capture()) {
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(MoldFixture.address(requests))
                .startSequence(first).requestTimeoutNs(1_000_000L).maxRequestTimeoutNs(4_000_000L).requestAttempts(6)
                .maxRequestsInFlight(requestsInFlight).reorderBuffer(bufferSlots * 100L, 100), checker);

            final List<byte[]> feed = new ArrayList<>();
            int fullSent = 0;
            for (long sequence = first; sequence < end; ) {
                final int count = (int)Math.min(fullPackets ? FULL_PACKET_MESSAGES : 1 + random.nextInt(5), end - sequence);
                final byte[] bytes = packet(SESSION, sequence, count, feedMessages(sequence, count, fullPackets));
                if (bytes.length == MoldUDP64Layout.ETHERNET_PACKET_LENGTH) {
                    fullSent++;
                }
                if (random.nextDouble() >= feedLoss) {
                    feed.add(bytes);
                    if (random.nextDouble() < duplication) {
                        feed.add(bytes);
                    }
                }
                sequence += count;
            }
            for (int i = 0; i < feed.size() && reorderWindow > 0; i++) {
                final int j = Math.min(feed.size() - 1, i + random.nextInt(reorderWindow + 1));
                final byte[] swapped = feed.get(i);
                feed.set(i, feed.get(j));
                feed.set(j, swapped);
            }
            feed.add(packet(SESSION, end, MoldUDP64Layout.END_OF_SESSION));

            final List<byte[]> delayed = new ArrayList<>();
            final ByteBuffer request = ByteBuffer.allocate(64);
            int fed = 0;
            int steps = 0;
            while (steps++ < MAX_STEPS && subscriber.state() != MoldUDP64SubscriberState.END_OF_SESSION
                && subscriber.state() != MoldUDP64SubscriberState.UNRECOVERABLE) {
                if (fed < feed.size()) {
                    final byte[] bytes = feed.get(fed++);
                    subscriber.onPacket(MemorySegment.ofArray(bytes), 0, bytes.length, false, clock.now);
                }
                request.clear();
                while (requests.receive(request) != null) {
                    request.flip();
                    final long from = request.getLong(10);
                    final int count = Short.toUnsignedInt(request.getShort(18));
                    request.clear();
                    if (from < first || from >= end || random.nextDouble() < answerLoss) {
                        continue;
                    }
                    final int answered = (int)Math.min(Math.min(count, answerCap), end - from);
                    final byte[] answer = packet(SESSION, from, answered, numbered(from, answered));
                    if (random.nextDouble() < duplication) {
                        delayed.add(answer);
                    }
                    if (random.nextDouble() < 0.2) {
                        delayed.add(answer);
                    } else {
                        subscriber.onPacket(MemorySegment.ofArray(answer), 0, answer.length, true, clock.now);
                    }
                }
                if (!delayed.isEmpty() && random.nextDouble() < 0.3) {
                    final byte[] late = delayed.remove(random.nextInt(delayed.size()));
                    subscriber.onPacket(MemorySegment.ofArray(late), 0, late.length, true, clock.now);
                }
                clock.now += 100_000L;
                reactor.doWork();
            }

            Statistics.label("outcome").collect(subscriber.state(), subscriber.bufferOverflows() > 0 ? "overflowed" : "fitted");
            Statistics.label("first sequence").collect(first == 1 ? "1" : end > TOP - 410 ? "near 2^63" : "between");
            Statistics.label("packets").collect(fullSent > 0 ? "full (1452-byte payload)" : "1 to 5 messages");
            assertThat(checker.wrong).as("out of order, repeated or corrupt").isZero();
            if (subscriber.state() == MoldUDP64SubscriberState.UNRECOVERABLE) {
                assertThat(checker.reason).isNotNull().isEqualTo(subscriber.unrecoverableReason());
                assertThat(checker.next).isLessThan(end);
                assertThat(subscriber.delivered()).isEqualTo(checker.next - first);
            } else {
                assertThat(subscriber.state()).as("ended in %d steps", steps).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
                assertThat(checker.next).isEqualTo(end);
                assertThat(subscriber.delivered()).isEqualTo(messages);
                assertThat(subscriber.reorderBufferMessages()).isZero();
            }
            if (answerLoss == 0) {
                assertThat(subscriber.state()).as("every request answered").isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
            }
            subscriber.close();
        }
        Statistics.label("first sequence").coverage(coverage -> {
            coverage.check("near 2^63").percentage(percent -> percent >= 20);
            coverage.check("1").percentage(percent -> percent >= 15);
        });
        Statistics.label("packets").coverage(coverage ->
            coverage.check("full (1452-byte payload)").percentage(percent -> percent >= 20));
    }
}
