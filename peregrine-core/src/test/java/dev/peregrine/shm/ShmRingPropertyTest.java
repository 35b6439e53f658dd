package dev.peregrine.shm;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of claim, commit, abort and poll, on rings of every record alignment (packed 8 to cache-line
 * 64) and message limits from 1 up, against a model of the ring written from {@link ShmRingDescriptor}'s
 * rules, not from the ring's own accounting: the model keeps its own head and tail positions and the records
 * between them. A claim is back-pressured exactly when the model says the ring is full: as many committed
 * messages in flight as the ring's message limit, or no room for the aligned record (after padding to the
 * end of the data area if it does not fit before the wrap) plus the zeroed record header that must follow it.
 */
class ShmRingPropertyTest {
    private static final int CAPACITY = 1024;
    private static final int MAX_LENGTH = ShmRingDescriptor.maxMessageLengthFor(CAPACITY);

    /** One step: op 0 = claim+commit, 1 = claim+abort, 2 = poll up to {@code length % 5 + 1} messages. */
    record Step(int op, int length) {
    }

    record Case(int alignment, int maxMessages, long start, List<Step> steps) {
    }

    /** 2^31: where a position stops fitting an int. */
    private static final long TWO_TO_31 = 1L << 31;
    /**
     * The highest start: 2^63 less 1 MiB, rounded down to a cache line, so that 300 steps of at most one ring each
     * (300 KiB) stay below {@code Long.MAX_VALUE}.
     */
    private static final long NEAR_TOP = (Long.MAX_VALUE - (1L << 20)) & ~63L;

    /** One record between the model's head and tail: a message (with its payload) or padding. */
    private record Record(int bytes, byte[] message) {
    }

    @Provide
    Arbitrary<Case> cases() {
        final Arbitrary<Integer> lengths = Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.integers().between(0, 24)), // several records per cache line when packed
            Tuple.of(2, Arbitraries.integers().between(0, MAX_LENGTH)),
            Tuple.of(1, Arbitraries.integers().between(MAX_LENGTH - 70, MAX_LENGTH)));
        final Arbitrary<Step> step = Combinators.combine(Arbitraries.of(0, 0, 1, 2), lengths).as(Step::new);
        // where head and tail start: 0, a few cache lines below 2^31 or 2^32 (crossed within the run), or near 2^63
        final Arbitrary<Integer> lines = Arbitraries.integers().between(0, 16);
        final Arbitrary<Long> starts = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(0L)),
            Tuple.of(3, Arbitraries.integers().between(1, 8).map(j -> TWO_TO_31 - 64L * j)), Tuple.of(1, lines.map(j -> 2 * TWO_TO_31 - 64L * j)),
            Tuple.of(3, lines.map(j -> NEAR_TOP - 64L * j)));
        return Combinators.combine(Arbitraries.of(8, 16, 32, 64), Arbitraries.of(1, 2, 5, 12, 1_000), starts,
            step.list().ofMinSize(1).ofMaxSize(300)).as(Case::new);
    }

    @Property(tries = 400)
    void shouldMatchTheModelForAnySequenceOfClaimsCommitsAbortsAndPolls(@ForAll("cases") final Case testCase) {
        final int alignment = testCase.alignment();
        final int maxMessages = testCase.maxMessages();
        final MemorySegment ring = ShmRingTest.newRing(CAPACITY, MAX_LENGTH, maxMessages, alignment);
        // a ring reopened where an earlier reader left it: both ends take the head from the descriptor
        ring.set(ValueLayout.JAVA_LONG, ShmRingDescriptor.HEAD_OFFSET, testCase.start());
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final ShmRingTest.Collector collector = new ShmRingTest.Collector();
        final ArrayDeque<Record> records = new ArrayDeque<>();
        long head = testCase.start();
        long tail = testCase.start();
        int messagesInFlight = 0;
        int seed = 0;
        int byCount = 0;
        int byRoom = 0;
        int wraps = 0;
        for (final Step step : testCase.steps()) {
            if (step.op() == 2) {
                final int limit = step.length() % 5 + 1;
                collector.messages.clear();
                final int polled = reader.poll(collector, limit);
                int expected = 0;
                // the reader skips padding until it has delivered its limit, and stops there
                while (expected < limit && !records.isEmpty()) {
                    final Record record = records.poll();
                    head += record.bytes();
                    if (record.message() != null) {
                        assertThat(collector.messages.get(expected)).isEqualTo(record.message());
                        expected++;
                        messagesInFlight--;
                    }
                }
                assertThat(polled).isEqualTo(expected);
                assertThat(collector.messages).hasSize(expected);
                assertThat(writer.bytesInFlight()).as("bytes in flight after a poll").isEqualTo(tail - head);
                continue;
            }
            final int record = align(ShmRingDescriptor.RECORD_HEADER_LENGTH + step.length(), alignment);
            final int index = (int)(tail % CAPACITY);
            final int padding = record <= CAPACITY - index ? 0 : CAPACITY - index;
            // the record and the zeroed header after it, past any padding, must fit in the room the reader freed
            final boolean noRoom = tail + padding + record + ShmRingDescriptor.RECORD_HEADER_LENGTH - head > CAPACITY;
            final boolean tooMany = messagesInFlight >= maxMessages;
            final boolean full = tooMany || noRoom;
            byCount += tooMany ? 1 : 0;
            byRoom += !tooMany && noRoom ? 1 : 0;

            final long claimed = writer.tryClaim(step.length());

            assertThat(claimed == ShmRingWriter.BACK_PRESSURED)
                .as("back-pressured with %s of %s messages and %s bytes in flight, record=%s padding=%s",
                    messagesInFlight, maxMessages, tail - head, record, padding)
                .isEqualTo(full);
            if (full) {
                continue;
            }
            if (padding != 0) {
                records.add(new Record(padding, null));
                tail += padding;
                wraps++;
            }
            assertThat(claimed).as("the payload follows the record header at the model's tail")
                .isEqualTo(ShmRingDescriptor.HEADER_LENGTH + tail % CAPACITY + ShmRingDescriptor.RECORD_HEADER_LENGTH);
            final byte[] payload = ShmRingTest.pattern(step.length(), seed++);
            MemorySegment.copy(payload, 0, writer.buffer(), ValueLayout.JAVA_BYTE, claimed, payload.length);
            if (step.op() == 0) {
                writer.commit(claimed);
                records.add(new Record(record, payload));
                messagesInFlight++;
            } else {
                writer.abort(claimed);
                records.add(new Record(record, null));
            }
            tail += record;
            assertThat(writer.tailPosition()).isEqualTo(tail);
        }
        Statistics.label("alignment").collect(alignment);
        Statistics.label("back-pressured by the message limit").collect(byCount > 0);
        Statistics.label("back-pressured for room").collect(byRoom > 0);
        Statistics.label("wrapped").collect(wraps > 0);
        final long start = testCase.start();
        Statistics.label("start").collect(start == 0 ? "0" : start < TWO_TO_31 ? "below 2^31"
            : start <= 2 * TWO_TO_31 ? "below 2^32" : "near 2^63");
        Statistics.label("crossed 2^31").collect(start < TWO_TO_31 && tail >= TWO_TO_31);
        Statistics.label("start").coverage(coverage -> {
            coverage.check("near 2^63").percentage(percent -> percent >= 20);
            coverage.check("below 2^31").percentage(percent -> percent >= 20);
        });
        Statistics.label("crossed 2^31").coverage(coverage -> coverage.check(true).percentage(percent -> percent >= 10));

        collector.messages.clear();
        while (reader.poll(collector, 100) > 0) {
            // drain
        }
        final List<byte[]> left = records.stream().map(Record::message).filter(m -> m != null).toList();
        assertThat(collector.messages).hasSize(left.size());
        for (int i = 0; i < left.size(); i++) {
            assertThat(collector.messages.get(i)).isEqualTo(left.get(i));
        }
        assertThat(writer.isDrained()).as("the last poll skipped any padding after the last message").isTrue();
    }

    /** Rounds up to a power-of-two alignment, as the descriptor's diagram says: records start aligned. */
    private static int align(final int length, final int alignment) {
        return (length + alignment - 1) / alignment * alignment;
    }
}
