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
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A log file someone else wrote into: the reader or writer refuses it, or fails that log with a reason; it never loops,
 * crashes or reads out of bounds. The test corrupts the file through a mapping of its own, at the offsets the
 * descriptor documents.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastHostileFileTest {
    private static final int CAPACITY = 8;
    private static final int MAX = 16;
    private static final int READERS = 3;

    @TempDir
    Path temp;

    private Path dir() {
        return temp.resolve("logs");
    }

    private static void edit(final Path file, final Consumer<MemorySegment> change) throws IOException {
        try (Arena arena = Arena.ofConfined();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            change.accept(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena));
        }
    }

    private static long slot(final long position) {
        return BroadcastDescriptor.dataOffset(READERS) + (position & (CAPACITY - 1))
            * (long)BroadcastDescriptor.slotLength(MAX);
    }

    private static void offer(final BroadcastWriter writer, final int count) {
        final byte[] bytes = new byte[8];
        for (int i = 0; i < count; i++) {
            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
        }
    }

    @Test
    void shouldRefuseAShrunkFileWithItsSizes() throws IOException {
        final Path file;
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "shrunk",
            BroadcastLogOptions.of(CAPACITY, MAX, READERS, BroadcastPolicy.DROP))) {
            file = writer.path();
        }
        final long full = BroadcastDescriptor.fileLength(CAPACITY, MAX, READERS);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(full - 1);
        }
        assertThatThrownBy(() -> BroadcastReader.attach(dir(), "shrunk", "r", BroadcastStart.LIVE))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("refused: file is " + (full - 1) + " bytes, its header needs " + full);
        assertThatThrownBy(() -> BroadcastWriter.open(dir(), "shrunk"))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("(shrunk?)");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(100);
        }
        assertThatThrownBy(() -> BroadcastReader.attach(dir(), "shrunk", "r", BroadcastStart.LIVE))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("shorter than a header");
    }

    @Test
    void shouldRefuseAHeaderWithNonsenseParameters() throws IOException {
        final Path file;
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "header",
            BroadcastLogOptions.of(CAPACITY, MAX, READERS, BroadcastPolicy.DROP))) {
            file = writer.path();
        }
        edit(file, log -> log.set(ValueLayout.JAVA_INT, BroadcastDescriptor.CAPACITY_OFFSET, 12));
        assertThatThrownBy(() -> BroadcastReader.attach(dir(), "header", "r", BroadcastStart.LIVE))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("capacity=12 must be a power of two");
        edit(file, log -> {
            log.set(ValueLayout.JAVA_INT, BroadcastDescriptor.CAPACITY_OFFSET, 1 << 20);
        });
        assertThatThrownBy(() -> BroadcastReader.attach(dir(), "header", "r", BroadcastStart.LIVE))
            .as("a capacity that would run past the end of the file")
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("its header needs");
        edit(file, log -> log.set(ValueLayout.JAVA_LONG, BroadcastDescriptor.MAGIC_OFFSET, 42));
        assertThatThrownBy(() -> BroadcastReader.attach(dir(), "header", "r", BroadcastStart.LIVE))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not a broadcast log's");
    }

    @Test
    void shouldFailTheLogOnARecordLengthPastTheMaximumUnderEitherPolicy() throws IOException {
        for (final BroadcastPolicy policy : BroadcastPolicy.values()) {
            final String name = "length-" + policy;
            try (BroadcastWriter writer = BroadcastWriter.create(dir(), name,
                BroadcastLogOptions.of(CAPACITY, MAX, READERS, policy));
                 BroadcastReader reader = BroadcastReader.attach(dir(), name, "r", BroadcastStart.LIVE)) {
                final RecordingHandler events = new RecordingHandler();
                offer(writer, 2);
                edit(writer.path(), log -> log.set(ValueLayout.JAVA_INT,
                    slot(1) + BroadcastDescriptor.RECORD_LENGTH_OFFSET, Integer.MAX_VALUE - 3));
                assertThat(reader.poll(events, 10)).isEqualTo(1);
                assertThat(reader.poll(events, 10)).isZero();
                assertThat(events.take()).containsExactly("joined 0", "r 0 0",
                    "failed record at position=1 has length=2147483644, past the maximum 16");
                assertThat(reader.isDone()).isTrue();
            }
        }
    }

    @Test
    void shouldFailTheLogWhenTheTailGoesBackwardsAndNotLoopWhenItJumpsFarAhead() throws IOException {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "tail",
            BroadcastLogOptions.of(CAPACITY, MAX, READERS, BroadcastPolicy.DROP))) {
            offer(writer, 4);
            try (BroadcastReader ahead = BroadcastReader.attach(dir(), "tail", "ahead", BroadcastStart.LIVE);
                 BroadcastReader back = BroadcastReader.attach(dir(), "tail", "back", BroadcastStart.LIVE)) {
                final RecordingHandler events = new RecordingHandler();
                edit(writer.path(), log -> log.set(ValueLayout.JAVA_LONG, BroadcastDescriptor.TAIL_OFFSET, 2));
                assertThat(back.poll(events, 10)).isZero();
                assertThat(events.take()).containsExactly("joined 4",
                    "failed tail=2 is behind this reader's position=4 (went backwards)");
                edit(writer.path(), log -> log.set(ValueLayout.JAVA_LONG, BroadcastDescriptor.TAIL_OFFSET,
                    Long.MAX_VALUE));
                int polls = 0;
                while (ahead.position() != Long.MAX_VALUE && !ahead.isDone() && polls < 100) {
                    assertThat(ahead.poll(events, 4)).as("no record is delivered from slots it never wrote").isZero();
                    polls++;
                }
                assertThat(polls).as("bounded work per poll").isLessThan(100);
                // it jumps to a ring below the new tail (one lap), meets slots whose sequence the writer never
                // stored, and fails the log rather than take them for records
                assertThat(ahead.isDone()).isTrue();
                assertThat(ahead.failure()).startsWith("record at position=" + (Long.MAX_VALUE - CAPACITY + 1)
                    + " changed under the reader with tail=" + Long.MAX_VALUE + " less than a ring ahead");
                assertThat(ahead.delivered()).isZero();
            }
        }
    }

    @Test
    void shouldEvictNonsenseEntriesOfTheReadersTableAndGoOnWriting() throws IOException {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "table",
            BroadcastLogOptions.of(CAPACITY, MAX, READERS, BroadcastPolicy.BLOCK));
             BroadcastReader honest = BroadcastReader.attach(dir(), "table", "honest", BroadcastStart.LIVE)) {
            final long attached = ((long)7 << 32) | BroadcastDescriptor.ENTRY_ATTACHED;
            edit(writer.path(), log -> {
                final long ahead = BroadcastDescriptor.READERS_TABLE_OFFSET + BroadcastDescriptor.READER_ENTRY_LENGTH;
                log.set(ValueLayout.JAVA_LONG, ahead + BroadcastDescriptor.ENTRY_POSITION_OFFSET, 1_000_000);
                log.set(ValueLayout.JAVA_LONG, ahead + BroadcastDescriptor.ENTRY_STATE_OFFSET, attached);
                final long behind = ahead + BroadcastDescriptor.READER_ENTRY_LENGTH;
                log.set(ValueLayout.JAVA_LONG, behind + BroadcastDescriptor.ENTRY_POSITION_OFFSET, Long.MIN_VALUE);
                log.set(ValueLayout.JAVA_LONG, behind + BroadcastDescriptor.ENTRY_STATE_OFFSET, attached);
                log.set(ValueLayout.JAVA_LONG, BroadcastDescriptor.ATTACH_EPOCH_OFFSET, 99);
            });
            final RecordingHandler events = new RecordingHandler();
            long written = 0;
            final byte[] bytes = new byte[8];
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (written < 3 * CAPACITY && System.nanoTime() < deadline) {
                if (writer.offer(bytes, 0, 8) == BroadcastWriter.OFFERED) {
                    written++;
                }
                honest.poll(events, CAPACITY);
            }
            assertThat(written).isEqualTo(3 * CAPACITY);
            assertThat(writer.evictions()).as("one ahead of the tail, one with no process holding its lock")
                .isEqualTo(2);
            honest.poll(events, CAPACITY);
            assertThat(honest.delivered()).isEqualTo(3 * CAPACITY);
        }
    }
    @Test
    void shouldEvictAnEntryAheadOfTheTailWhenAWriterOpensTheLog() throws IOException {
        final Path path;
        try (BroadcastWriter first = BroadcastWriter.create(dir(), "open",
            BroadcastLogOptions.of(CAPACITY, MAX, READERS, BroadcastPolicy.BLOCK))) {
            path = first.path();
        }
        edit(path, log -> {
            final long entry = BroadcastDescriptor.READERS_TABLE_OFFSET;
            log.set(ValueLayout.JAVA_LONG, entry + BroadcastDescriptor.ENTRY_POSITION_OFFSET, 1_000_000);
            log.set(ValueLayout.JAVA_LONG, entry + BroadcastDescriptor.ENTRY_STATE_OFFSET,
                ((long)7 << 32) | BroadcastDescriptor.ENTRY_ATTACHED);
        });
        try (BroadcastWriter second = BroadcastWriter.open(dir(), "open")) {
            assertThat(second.evictions()).as("counted while the writer opens").isEqualTo(1);
            final byte[] bytes = new byte[8];
            assertThat(second.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
        }
    }
}
