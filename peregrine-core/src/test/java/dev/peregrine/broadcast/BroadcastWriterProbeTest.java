package dev.peregrine.broadcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Under {@code BLOCK}, a writer held back by a reader probes that reader's lock (file-system calls that allocate) only
 * once the reader has not moved for {@link BroadcastWriter#PROBE_INTERVAL_NS}, and then at most that often. The writer
 * runs on an injected clock that stands still unless the test moves it, so the count is exact whatever the load.
 */
class BroadcastWriterProbeTest {
    @TempDir
    Path temp;

    @Test
    void shouldProbeOnlyAReaderThatHasNotMovedForTheInterval() {
        final long[] now = {1_000_000_000L};
        final Path dir = temp.resolve("logs");
        try (BroadcastWriter writer = BroadcastWriter.create(dir, "probe",
            BroadcastLogOptions.of(16, 8, 2, BroadcastPolicy.BLOCK), null, () -> now[0]);
             BroadcastReader reader = BroadcastReader.attach(dir, "probe", "r", BroadcastStart.LIVE)) {
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            final byte[] bytes = new byte[8];
            for (int i = 0; i < 16; i++) {
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            }

            // a reader a whole ring behind that moves one record at a time: the writer takes the room, then is held
            for (int i = 0; i < 1_000; i++) {
                assertThat(reader.poll(none, 1)).isEqualTo(1);
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
            }
            assertThat(writer.probes()).as("it moved within the interval each time").isZero();

            now[0] += BroadcastWriter.PROBE_INTERVAL_NS;
            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
            assertThat(writer.probes()).as("still for the interval: probed once").isEqualTo(1);
            now[0] += BroadcastWriter.PROBE_INTERVAL_NS;
            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
            assertThat(writer.probes()).isEqualTo(2);
            assertThat(writer.evictions()).as("its lock is held: alive").isZero();
        }
    }
}
