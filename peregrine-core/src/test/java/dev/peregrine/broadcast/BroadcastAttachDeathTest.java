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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A reader process that died during its attach, after it claimed its table entry and before it was attached, leaves
 * the entry CLAIMED with its lock free (the kernel let the lock go with the process). Such an entry is taken over as
 * a dead reader's is; one whose claimer is alive (its lock held) is not. The test leaves the entry as the dead
 * process would, through a mapping of its own at the offsets the descriptor documents.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastAttachDeathTest {
    private static final int READERS = 1;

    @TempDir
    Path temp;

    private Path dir() {
        return temp.resolve("logs");
    }

    private static void claimAsADeadProcess(final Path file, final int entry) throws IOException {
        try (Arena arena = Arena.ofConfined();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final MemorySegment log = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            final long state = BroadcastDescriptor.READERS_TABLE_OFFSET
                + (long)entry * BroadcastDescriptor.READER_ENTRY_LENGTH + BroadcastDescriptor.ENTRY_STATE_OFFSET;
            log.set(ValueLayout.JAVA_LONG, state, (5L << 32) | BroadcastDescriptor.ENTRY_CLAIMED);
        }
    }

    @Test
    void shouldTakeOverAnEntryClaimedByAReaderThatDiedBeforeItAttached() throws IOException {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "log",
            BroadcastLogOptions.of(8, 16, READERS, BroadcastPolicy.BLOCK))) {
            claimAsADeadProcess(writer.path(), 0);

            try (BroadcastReader reader = BroadcastReader.attach(dir(), "log", "after", BroadcastStart.LIVE)) {
                assertThat(reader.entry()).isEqualTo(0);
                final RecordingHandler handler = new RecordingHandler();
                assertThat(writer.offer(new byte[4], 0, 4)).isEqualTo(BroadcastWriter.OFFERED);
                assertThat(reader.poll(handler, 10)).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldNotTakeOverAnEntryWhoseClaimerIsAlive() throws IOException {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "log",
            BroadcastLogOptions.of(8, 16, READERS, BroadcastPolicy.BLOCK))) {
            claimAsADeadProcess(writer.path(), 0);
            final int held = BroadcastFiles.lock(BroadcastFiles.readerLockPath(writer.path(), 0)); // alive: it holds it
            try {
                assertThat(held).isNotNegative();
                assertThatThrownBy(() -> BroadcastReader.attach(dir(), "log", "after", BroadcastStart.LIVE))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is full: all 1 entries hold live readers");
            } finally {
                dev.peregrine.internal.FileLocks.close(held);
            }
        }
    }
}
