package dev.peregrine.shm;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of claim, commit, abort and poll against a simple model: a queue of committed messages
 * and a count of bytes in use.
 */
class ShmRingPropertyTest {
    private static final int CAPACITY = 1024;
    private static final int MAX_MESSAGES = 12;

    /** One step: op 0 = claim+commit, 1 = claim+abort, 2 = poll up to {@code arg % 5 + 1} messages. */
    record Step(int op, int length) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        final Arbitrary<Step> step = Arbitraries.integers().between(0, 2).flatMap(op ->
            Arbitraries.integers().between(0, ShmRingDescriptor.maxMessageLengthFor(CAPACITY))
                .map(length -> new Step(op, length)));
        return step.list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 300)
    void shouldMatchTheModelForAnySequenceOfClaimsCommitsAbortsAndPolls(@ForAll("steps") final List<Step> steps) {
        final MemorySegment ring = ShmRingTest.newRing(CAPACITY, ShmRingDescriptor.maxMessageLengthFor(CAPACITY), MAX_MESSAGES);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final ArrayDeque<byte[]> model = new ArrayDeque<>();
        final ShmRingTest.Collector collector = new ShmRingTest.Collector();
        int seed = 0;
        for (final Step step : steps) {
            if (step.op() == 2) {
                final int limit = step.length() % 5 + 1;
                collector.messages.clear();
                final int polled = reader.poll(collector, limit);
                assertThat(polled).isEqualTo(Math.min(limit, model.size()));
                for (final byte[] message : collector.messages) {
                    assertThat(message).isEqualTo(model.poll());
                }
                continue;
            }
            final long tail = writer.tailPosition();
            final long inFlight = writer.bytesInFlight();
            final int record = ShmRingDescriptor.align(ShmRingDescriptor.RECORD_HEADER_LENGTH + step.length(),
                ShmRingDescriptor.alignmentOf(ring));
            final int toEnd = CAPACITY - (int)(tail % CAPACITY);
            final int padding = record <= toEnd ? 0 : toEnd;
            final boolean full = model.size() >= MAX_MESSAGES || inFlight + padding + record + 8 > CAPACITY;
            final long index = writer.tryClaim(step.length());
            assertThat(index == ShmRingWriter.BACK_PRESSURED)
                .as("back-pressured with %s messages and %s bytes in flight, record=%s", model.size(), inFlight, record)
                .isEqualTo(full);
            if (full) {
                continue;
            }
            assertThat(index).isGreaterThanOrEqualTo(ShmRingDescriptor.HEADER_LENGTH);
            final byte[] payload = ShmRingTest.pattern(step.length(), seed++);
            MemorySegment.copy(payload, 0, writer.buffer(), ValueLayout.JAVA_BYTE, index, payload.length);
            if (step.op() == 0) {
                writer.commit(index);
                model.add(payload);
            } else {
                writer.abort(index);
            }
        }
        collector.messages.clear();
        while (reader.poll(collector, 100) > 0) {
            // drain
        }
        assertThat(collector.messages).hasSize(model.size());
        for (final byte[] message : collector.messages) {
            assertThat(message).isEqualTo(model.poll());
        }
        assertThat(writer.isDrained()).isTrue();
    }
}
