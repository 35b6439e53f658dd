package dev.peregrine.broadcast;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random writes, polls and half-done writes under {@code DROP}, against a model of the log written from
 * {@link BroadcastDescriptor}'s rules: the model keeps every record it wrote (position, length, bytes) and the
 * tail, and knows which records a ring of this capacity still holds. A half-done write is what a reader meets when
 * the writer is copying the record a ring ahead of it: the test stores that record's sequence and garbage bytes into
 * the slot through a mapping of its own, without moving the tail, as the writer does before it publishes.
 *
 * <p>The reader must: deliver only records the model wrote, byte for byte (never a torn or stale one), in rising
 * positions; report, between two deliveries, missed counts that add up exactly to the positions skipped; skip only
 * records the model says were overwritten or being overwritten when it skipped them; and end at the tail.
 */
class BroadcastDropPropertyTest {
    private static final int MAX_LENGTH = 40;
    private static final long TWO_TO_31 = 1L << 31;
    private static final AtomicInteger LOGS = new AtomicInteger();
    private static Path directory;

    /** op 0: write {@code count} records; 1: poll up to {@code count}; 2: start a write without finishing it. */
    record Step(int op, int count) {
    }

    record Case(int capacity, long start, List<Step> steps) {
    }

    @Provide
    Arbitrary<Case> cases() {
        final Arbitrary<Step> step = Combinators.combine(Arbitraries.of(0, 0, 1, 1, 2),
            Arbitraries.integers().between(1, 40)).as(Step::new);
        final Arbitrary<Long> starts = Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.just(0L)),
            Tuple.of(2, Arbitraries.integers().between(0, 200).map(j -> TWO_TO_31 - j)),
            Tuple.of(2, Arbitraries.integers().between(0, 200).map(j -> Long.MAX_VALUE - j)));
        return Combinators.combine(Arbitraries.of(2, 4, 8, 16), starts, step.list().ofMinSize(1).ofMaxSize(60))
            .as(Case::new);
    }

    private static Path directory() throws IOException {
        if (directory == null) {
            directory = Files.createTempDirectory("bcast-prop").resolve("logs");
        }
        return directory;
    }

    @AfterContainer
    static void removeFiles() throws IOException {
        if (directory == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory.getParent())) {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static byte payloadByte(final long position, final int index) {
        return (byte)(position * 31 + index * 7 + 1);
    }

    private static int lengthOf(final long position) {
        return (int)Math.floorMod(position * 13, MAX_LENGTH + 1L);
    }

    /** A reader's events in order: a delivery (position, verified) or a lap (missed, resume, what the model held). */
    private static final class Recorder implements BroadcastHandler {
        final List<long[]> deliveries = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        long missedSinceDelivery;
        long lastPosition;
        boolean first = true;
        long expectedNext;
        long modelTail;
        boolean modelTorn;
        int capacity;
        int laps;

        @Override
        public void onRecord(final MemorySegment buffer, final long offset, final int length, final long position) {
            if (length != lengthOf(position)) {
                problems.add("position " + position + " length " + length);
            }
            for (int i = 0; i < length; i++) {
                if (buffer.get(ValueLayout.JAVA_BYTE, offset + i) != payloadByte(position, i)) {
                    problems.add("position " + position + " torn at byte " + i);
                    break;
                }
            }
            if (position != expectedNext + missedSinceDelivery) {
                problems.add("delivered " + position + " after " + expectedNext + " with " + missedSinceDelivery
                    + " missed");
            }
            if (modelTail - position <= 0) {
                problems.add("delivered " + position + " at or past the tail " + modelTail);
            }
            expectedNext = position + 1;
            missedSinceDelivery = 0;
            deliveries.add(new long[] {position, length});
        }

        @Override
        public void onLapped(final long missed, final long resumePosition) {
            laps++;
            missedSinceDelivery += missed;
            // the model's oldest valid record: a ring below the tail, one more while the slot is half rewritten
            final long oldestValid = modelTail - capacity + (modelTorn ? 1 : 0);
            if (resumePosition - oldestValid > 0) {
                problems.add("resumed at " + resumePosition + " past the oldest valid " + oldestValid);
            }
            if (missed <= 0) {
                problems.add("lapped with missed=" + missed);
            }
        }

        @Override
        public void onFailed(final String reason) {
            problems.add("failed: " + reason);
        }
    }

    @Property(tries = 300)
    void shouldDeliverUntornRecordsAndCountEveryMissedOneExactly(@ForAll("cases") final Case testCase)
        throws IOException {
        final int capacity = testCase.capacity();
        final String name = "p" + LOGS.incrementAndGet();
        final BroadcastLogOptions options = BroadcastLogOptions.of(capacity, MAX_LENGTH, 2, BroadcastPolicy.DROP)
            .withInitialPosition(testCase.start());
        final Map<Long, Integer> written = new HashMap<>();
        try (BroadcastWriter writer = BroadcastWriter.create(directory(), name, options);
             BroadcastReader reader = BroadcastReader.attach(directory(), name, "r", BroadcastStart.LIVE);
             Arena arena = Arena.ofConfined();
             FileChannel channel = FileChannel.open(writer.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final MemorySegment raw = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            final long dataOffset = BroadcastDescriptor.dataOffset(2);
            final int slotLength = BroadcastDescriptor.slotLength(MAX_LENGTH);
            final Recorder recorder = new Recorder();
            recorder.capacity = capacity;
            recorder.expectedNext = testCase.start();
            long tail = testCase.start();
            final byte[] bytes = new byte[MAX_LENGTH];
            for (final Step step : testCase.steps()) {
                switch (step.op()) {
                    case 0 -> {
                        for (int i = 0; i < step.count(); i++) {
                            final int length = lengthOf(tail);
                            for (int b = 0; b < length; b++) {
                                bytes[b] = payloadByte(tail, b);
                            }
                            assertThat(writer.offer(bytes, 0, length)).isEqualTo(BroadcastWriter.OFFERED);
                            written.put(tail, length);
                            tail++;
                            recorder.modelTorn = false;
                        }
                    }
                    case 1 -> {
                        recorder.modelTail = tail;
                        reader.poll(recorder, step.count());
                    }
                    default -> {
                        // the writer has begun the record at the tail: new sequence, then garbage, tail unmoved
                        final long slot = dataOffset + (tail & (capacity - 1)) * (long)slotLength;
                        raw.set(ValueLayout.JAVA_LONG, slot + BroadcastDescriptor.RECORD_SEQUENCE_OFFSET, tail);
                        raw.set(ValueLayout.JAVA_INT, slot + BroadcastDescriptor.RECORD_LENGTH_OFFSET,
                            step.count() % 2 == 0 ? MAX_LENGTH : Integer.MAX_VALUE);
                        raw.asSlice(slot + BroadcastDescriptor.RECORD_HEADER_LENGTH, MAX_LENGTH).fill((byte)0x5A);
                        recorder.modelTorn = true;
                    }
                }
            }
            recorder.modelTail = tail;
            for (int i = 0; i < 100 && reader.position() != tail && !reader.isDone(); i++) {
                reader.poll(recorder, 64);
            }
            assertThat(recorder.problems).isEmpty();
            assertThat(reader.position()).as("the reader ends at the tail").isEqualTo(tail);
            final long skipped = tail - testCase.start() - recorder.deliveries.size();
            assertThat(reader.missed()).as("missed == positions not delivered").isEqualTo(skipped);
            for (final long[] delivery : recorder.deliveries) {
                assertThat(written).containsEntry(delivery[0], (int)delivery[1]);
            }
            Statistics.label("lapped").collect(recorder.laps > 0);
            Statistics.label("start").collect(testCase.start() == 0 ? "0"
                : testCase.start() > 0 && testCase.start() < TWO_TO_31 + 1 ? "near 2^31" : "near 2^63");
            Statistics.label("crossed 2^63").collect(testCase.start() > 0 && tail < 0);
            Statistics.label("crossed 2^31").collect(testCase.start() <= TWO_TO_31 && tail > TWO_TO_31);
        }
        Statistics.label("lapped").coverage(coverage -> coverage.check(true).percentage(percent -> percent >= 30));
        Statistics.label("crossed 2^63").coverage(coverage -> coverage.check(true).percentage(percent -> percent >= 10));
        Statistics.label("crossed 2^31").coverage(coverage -> coverage.check(true).percentage(percent -> percent >= 10));
        Statistics.label("start").coverage(coverage -> coverage.check("near 2^63").percentage(percent -> percent >= 20));
    }
}
