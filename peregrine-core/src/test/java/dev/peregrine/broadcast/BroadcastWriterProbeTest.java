package dev.peregrine.broadcast;

import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Under {@code BLOCK}, a writer held back by a reader probes that reader's lock (a system call) only once the reader
 * has not moved for {@link BroadcastWriter#PROBE_INTERVAL_NS}, then at most that often, and the probes allocate
 * nothing. The writer runs on an injected clock that stands still unless the test moves it, so the count is exact
 * whatever the load.
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

    @Test
    void shouldAllocateNothingWhileProbingAReaderThatHoldsTheWriterBack() {
        final long[] now = {1_000_000_000L};
        final Path dir = temp.resolve("logs");
        try (Arena arena = Arena.ofConfined();
             BroadcastWriter writer = BroadcastWriter.create(dir, "still",
                BroadcastLogOptions.of(16, 8, 2, BroadcastPolicy.BLOCK), null, () -> now[0]);
             BroadcastReader reader = BroadcastReader.attach(dir, "still", "r", BroadcastStart.LIVE)) {
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            assertThat(reader.poll(none, 1)).isZero(); // joined
            final MemorySegment bytes = arena.allocate(8, 8);
            for (int i = 0; i < 16; i++) {
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            }
            final long[] attempts = {0};
            final long[] backPressured = {0};
            final long probesBefore = writer.probes();

            // a reader that stands still (alive: its lock is held) a whole ring behind: a probe at every attempt
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(200_000, 1_000, 10, 5, () -> {
                now[0] += BroadcastWriter.PROBE_INTERVAL_NS;
                attempts[0]++;
                if (writer.offer(bytes, 0, 8) == BroadcastWriter.BACK_PRESSURED) {
                    backPressured[0]++;
                }
            });

            assertThat(measured.totalBytes()).as("bytes allocated by back-pressured offers, each a probe").isZero();
            assertThat(backPressured[0]).isEqualTo(attempts[0]);
            assertThat(writer.probes() - probesBefore).isEqualTo(attempts[0]);
            assertThat(writer.evictions()).as("its lock is held: alive").isZero();
        }
    }

    /**
     * The first probe of a reader, the one a stall of a few ms brings in the middle of a run, allocates nothing: the
     * writer opened the reader's lock file and linked the probe when it counted the reader. Each set is a new log,
     * writer and reader, and measures that first probe alone; sets are repeated until one is clean (a JIT one-off on
     * a loaded machine), at most 8.
     */
    @Test
    void shouldAllocateNothingAtTheFirstProbeOfAReader() {
        final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(1, 8);
        final long[] now = {1_000_000_000L};
        final BroadcastHandler none = (buffer, offset, length, position) -> { };
        long bytes;
        int set = 0;
        do {
            set++;
            final Path dir = temp.resolve("first-" + set);
            try (Arena arena = Arena.ofConfined();
                 BroadcastWriter writer = BroadcastWriter.create(dir, "first",
                    BroadcastLogOptions.of(16, 8, 2, BroadcastPolicy.BLOCK), null, () -> now[0]);
                 BroadcastReader reader = BroadcastReader.attach(dir, "first", "r", BroadcastStart.LIVE)) {
                assertThat(reader.poll(none, 1)).isZero(); // joined
                final MemorySegment record = arena.allocate(8, 8);
                for (int i = 0; i < 16; i++) {
                    assertThat(writer.offer(record, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
                }
                assertThat(writer.offer(record, 0, 8)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
                assertThat(writer.probes()).as("it moved within the interval").isZero();
                now[0] += BroadcastWriter.PROBE_INTERVAL_NS;

                final long before = AllocationMeter.allocatedBytes();
                final int outcome = writer.offer(record, 0, 8);
                bytes = AllocationMeter.allocatedBytes() - before;

                assertThat(outcome).isEqualTo(BroadcastWriter.BACK_PRESSURED);
                assertThat(writer.probes()).as("the first probe of the reader").isEqualTo(1);
                assertThat(writer.evictions()).as("its lock is held: alive").isZero();
            }
        } while (sets.another(bytes));
        assertThat(bytes).as("bytes allocated by the first probe of a reader, in set " + set).isZero();
    }

    @Test
    void shouldNotEvictALiveReaderWhoseLockFileWasMadeAgainAfterAProbe() throws Exception {
        final long[] now = {1_000_000_000L};
        final Path dir = temp.resolve("logs");
        try (BroadcastWriter writer = BroadcastWriter.create(dir, "again",
            BroadcastLogOptions.of(16, 8, 1, BroadcastPolicy.BLOCK), null, () -> now[0])) {
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            final byte[] bytes = new byte[8];
            final Path lockFile = BroadcastFiles.readerLockPath(writer.path(), 0);
            try (BroadcastReader first = BroadcastReader.attach(dir, "again", "a", BroadcastStart.LIVE)) {
                for (int i = 0; i < 16; i++) {
                    assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
                }
                now[0] += BroadcastWriter.PROBE_INTERVAL_NS;
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
                assertThat(writer.probes()).as("the writer now keeps the first lock file open").isEqualTo(1);
                assertThat(first.poll(none, 16)).isEqualTo(16);
            }

            // the entry's lock file removed and made again by the next reader of the entry: the kept one is stale
            Files.delete(lockFile);
            try (BroadcastReader second = BroadcastReader.attach(dir, "again", "b", BroadcastStart.LIVE)) {
                assertThat(second.entry()).isZero();
                for (int i = 0; i < 16; i++) {
                    assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
                }
                now[0] += BroadcastWriter.PROBE_INTERVAL_NS;
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
                assertThat(writer.probes()).isEqualTo(2);
                assertThat(writer.evictions()).as("it holds its new lock file: alive").isZero();
                assertThat(second.poll(none, 16)).isEqualTo(16);
            }
        }
    }
}
