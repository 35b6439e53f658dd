package dev.peregrine.broadcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Layout version 3: a slot's sequence commits its record, so a reader that keeps up reads the slots and never the
 * tail (whose cache line would otherwise move from the writer to every reader at every poll), and a writer taking
 * over a log goes on after a record its predecessor committed but died before publishing in the tail.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastSlotCommitTest {
    private static final int CAPACITY = 16;
    private static final int MAX = 16;
    private static final int READERS = 2;

    @TempDir
    Path temp;

    private Path dir() {
        return temp.resolve("logs");
    }

    private static int offer(final BroadcastWriter writer, final long value) {
        final byte[] bytes = new byte[8];
        MemorySegment.ofArray(bytes).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return writer.offer(bytes, 0, 8);
    }

    @Test
    void shouldReadEveryRecordFromTheSlotsWithoutLoadingTheTailUnderEitherPolicy() {
        for (final BroadcastPolicy policy : BroadcastPolicy.values()) {
            final String name = "slots-" + policy;
            try (BroadcastWriter writer = BroadcastWriter.create(dir(), name,
                BroadcastLogOptions.of(CAPACITY, MAX, READERS, policy));
                 BroadcastReader reader = BroadcastReader.attach(dir(), name, "r", BroadcastStart.LIVE)) {
                reader.writerCheckIntervalNs(Long.MAX_VALUE); // one idle check, the first; no clock decides more
                final RecordingHandler handler = new RecordingHandler();
                final List<Long> expected = new ArrayList<>();
                long value = 0;
                assertThat(offer(writer, value)).isEqualTo(BroadcastWriter.OFFERED); // under BLOCK, the join
                expected.add(value++);
                assertThat(reader.poll(handler, 10)).isEqualTo(1);
                assertThat(reader.poll(handler, 10)).isZero();
                assertThat(reader.tailReads()).as("the first idle poll checks the tail").isEqualTo(1);
                for (int round = 0; round < 100; round++) {
                    for (int i = 0; i < 5; i++) {
                        assertThat(offer(writer, value)).isEqualTo(BroadcastWriter.OFFERED);
                        expected.add(value++);
                    }
                    assertThat(reader.poll(handler, 3)).isEqualTo(3);
                    assertThat(reader.poll(handler, 3)).isEqualTo(2);
                    assertThat(reader.poll(handler, 3)).as("caught up: the next slot is not written yet").isZero();
                }
                assertThat(handler.values).isEqualTo(expected);
                assertThat(reader.tailReads()).as("300 polls, 500 records: not one more load of the tail").isEqualTo(1);
            }
        }
    }

    @Test
    void shouldGoOnAfterARecordCommittedByAWriterThatDiedBeforeStoringItsTail() throws IOException {
        final RecordingHandler events = new RecordingHandler();
        final BroadcastReader reader;
        final Path path;
        try (BroadcastWriter first = BroadcastWriter.create(dir(), "died",
            BroadcastLogOptions.of(CAPACITY, MAX, READERS, BroadcastPolicy.BLOCK))) {
            path = first.path();
            reader = BroadcastReader.attach(dir(), "died", "r", BroadcastStart.LIVE);
            for (int i = 0; i < 3; i++) {
                assertThat(offer(first, i)).isEqualTo(BroadcastWriter.OFFERED);
            }
            assertThat(reader.poll(events, 10)).isEqualTo(3);
            // what the writer had done with record 3 had it died between its two last stores: the payload, then the
            // committed sequence, and not the tail
            edit(path, log -> {
                final long slot = BroadcastDescriptor.dataOffset(READERS) + 3L * BroadcastDescriptor.slotLength(MAX);
                log.set(ValueLayout.JAVA_INT, slot + BroadcastDescriptor.RECORD_LENGTH_OFFSET, 8);
                log.set(ValueLayout.JAVA_LONG, slot + BroadcastDescriptor.RECORD_HEADER_LENGTH, 3L);
                log.set(ValueLayout.JAVA_LONG, slot + BroadcastDescriptor.RECORD_SEQUENCE_OFFSET, 3L);
            });
            assertThat(reader.poll(events, 10)).as("a committed record is read from its slot").isEqualTo(1);
        }
        try (reader; BroadcastWriter second = BroadcastWriter.open(dir(), "died")) {
            assertThat(second.position()).as("after the committed record").isEqualTo(4);
            assertThat(offer(second, 4)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(reader.poll(events, 10)).isEqualTo(1);
            assertThat(events.take()).containsExactly("joined 0", "r 0 0", "r 1 1", "r 2 2", "r 3 3", "r 4 4");
            assertThat(reader.isDone()).as("not evicted as a reader past the tail").isFalse();
        }
    }

    private static void edit(final Path file, final java.util.function.Consumer<MemorySegment> change)
        throws IOException {
        try (Arena arena = Arena.ofConfined();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            change.accept(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena));
        }
    }
}
