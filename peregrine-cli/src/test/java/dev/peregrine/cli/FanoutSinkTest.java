package dev.peregrine.cli;

import dev.peregrine.broadcast.BroadcastHandler;
import dev.peregrine.broadcast.BroadcastReader;
import dev.peregrine.broadcast.BroadcastStart;
import dev.peregrine.counters.CountersManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mold listen --fanout}'s sink: a message longer than a record is counted and not written, never cut. */
class FanoutSinkTest {
    @TempDir
    Path temp;

    /** Fails if the sink cuts the long message to the record's size (a reader would see three records). */
    @Test
    void shouldSkipAndCountAMessageLongerThanARecordInsteadOfCuttingIt() {
        final Path dir = temp.resolve("logs");
        final List<long[]> read = new ArrayList<>(); // {sequence, message length}
        try (FanoutSink sink = FanoutSink.open(dir, "feed", 16, FanoutSink.HEADER + 16);
             CountersManager counters = CountersManager.inMemory(64, 0);
             BroadcastReader reader = BroadcastReader.attach(dir, "feed", "test", BroadcastStart.OLDEST, counters)) {
            final MemorySegment message = MemorySegment.ofArray(new byte[64]);
            sink.onMessage(1, message, 0, 16);
            sink.onMessage(2, message, 0, 17);
            sink.onMessage(3, message, 0, 4);

            final BroadcastHandler handler = (buffer, offset, length, position) -> read.add(new long[] {
                buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset), length - FanoutSink.HEADER});
            assertThat(reader.poll(handler, 10)).isEqualTo(2);
            assertThat(sink.tooLong()).isEqualTo(1);
            assertThat(sink.maxMessage()).isEqualTo(16);
        }
        assertThat(read).extracting(r -> r[0] + ":" + r[1]).containsExactly("1:16", "3:4");
    }
}
