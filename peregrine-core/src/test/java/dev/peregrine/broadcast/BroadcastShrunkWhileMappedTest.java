package dev.peregrine.broadcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A log file truncated while a reader has it mapped: the reader finds the file shorter than its mapping on its idle
 * path and fails that log with both sizes, instead of faulting on the records that are gone.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastShrunkWhileMappedTest {
    private static final int CAPACITY = 8;
    private static final int MAX = 16;
    private static final int READERS = 2;
    private static final long DEADLINE_NS = 10_000_000_000L;

    @TempDir
    Path temp;

    @Test
    void shouldFailTheReaderWithBothSizesWhenTheFileIsCutUnderIt() throws IOException {
        final Path dir = temp.resolve("logs");
        try (BroadcastWriter writer = BroadcastWriter.create(dir, "cut",
                BroadcastLogOptions.of(CAPACITY, MAX, READERS, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir, "cut", "r", BroadcastStart.LIVE)) {
            final RecordingHandler handler = new RecordingHandler();
            assertThat(writer.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(writer.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(reader.poll(handler, 10)).isEqualTo(2);
            final long full = BroadcastDescriptor.fileLength(CAPACITY, MAX, READERS);
            final long cut = BroadcastDescriptor.dataOffset(READERS); // header and readers' table kept, records gone
            try (FileChannel channel = FileChannel.open(writer.path(), StandardOpenOption.WRITE)) {
                channel.truncate(cut);
            }

            // the size is looked at on the idle path at most every WRITER_CHECK_INTERVAL_NS: poll until it is
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (!reader.isDone() && System.nanoTime() - deadline < 0) {
                assertThat(reader.poll(handler, 10)).isZero();
                Thread.onSpinWait();
            }

            assertThat(reader.isDone()).as("failed within the deadline").isTrue();
            assertThat(reader.failure()).isEqualTo("log file " + writer.path() + " shrunk to " + cut
                + " bytes while mapped (" + full + " bytes): reading on would fault");
            assertThat(handler.events).last().asString().startsWith("failed");
        }
    }
}
