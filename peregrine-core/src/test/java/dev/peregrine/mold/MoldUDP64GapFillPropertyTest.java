package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
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
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Checks what the subscriber delivers. */
    private static final class Checker implements MoldUDP64Listener {
        long next = 1;
        long wrong;
        MoldUDP64GapReason reason;

        @Override
        public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
            if (sequence != next || length != 8 || buffer.get(BIG_ENDIAN_LONG, offset) != sequence) {
                wrong++;
            }
            next = sequence + 1;
        }

        @Override
        public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason why) {
            reason = why;
        }
    }

    @Property(tries = 300)
    void shouldDeliverThePublishedSequenceOrGiveUpWithAReason(
        @ForAll final long seed,
        @ForAll @IntRange(min = 1, max = 400) final int messages,
        @ForAll @DoubleRange(min = 0, max = 0.5) final double feedLoss,
        @ForAll @DoubleRange(min = 0, max = 0.3) final double duplication,
        @ForAll @IntRange(min = 0, max = 8) final int reorderWindow,
        @ForAll @DoubleRange(min = 0, max = 0.7) final double answerLoss,
        @ForAll @IntRange(min = 0, max = 40) final int bufferSlots,
        @ForAll @IntRange(min = 1, max = 6) final int requestsInFlight,
        @ForAll @IntRange(min = 1, max = 12) final int answerCap) throws IOException {
        final SplittableRandom random = new SplittableRandom(seed);
        final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
        final Checker checker = new Checker();
        try (Reactor reactor = MoldFixture.reactor(clock); DatagramChannel requests = MoldFixture.capture()) {
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(MoldFixture.address(requests))
                .startSequence(1).requestTimeoutNs(1_000_000L).maxRequestTimeoutNs(4_000_000L).requestAttempts(6)
                .maxRequestsInFlight(requestsInFlight).reorderBuffer(bufferSlots * 100L, 100), checker);

            final List<byte[]> feed = new ArrayList<>();
            for (long sequence = 1; sequence <= messages; ) {
                final int count = (int)Math.min(1 + random.nextInt(5), messages + 1 - sequence);
                final byte[] bytes = packet(SESSION, sequence, count, numbered(sequence, count));
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
            feed.add(packet(SESSION, messages + 1, MoldUDP64Layout.END_OF_SESSION));

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
                    if (from < 1 || from > messages || random.nextDouble() < answerLoss) {
                        continue;
                    }
                    final int answered = (int)Math.min(Math.min(count, answerCap), messages + 1 - from);
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

            Statistics.collect(subscriber.state(), subscriber.bufferOverflows() > 0 ? "overflowed" : "fitted");
            assertThat(checker.wrong).as("out of order, repeated or corrupt").isZero();
            if (subscriber.state() == MoldUDP64SubscriberState.UNRECOVERABLE) {
                assertThat(checker.reason).isNotNull().isEqualTo(subscriber.unrecoverableReason());
                assertThat(checker.next).isLessThanOrEqualTo(messages);
                assertThat(subscriber.delivered()).isEqualTo(checker.next - 1);
            } else {
                assertThat(subscriber.state()).as("ended in %d steps", steps).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
                assertThat(checker.next).isEqualTo(messages + 1L);
                assertThat(subscriber.delivered()).isEqualTo(messages);
                assertThat(subscriber.reorderBufferMessages()).isZero();
            }
            if (answerLoss == 0) {
                assertThat(subscriber.state()).as("every request answered").isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
            }
            subscriber.close();
        }
    }
}
