package dev.peregrine.broadcast;

import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.testkit.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An idle reader checks the writer (the log's size, the writer's lock) every {@link
 * BroadcastReader#WRITER_CHECK_INTERVAL_NS}: those checks allocate nothing, idle or at a low rate, and a writer that
 * made its lock file again is still seen alive. The interval is set to 0 here, so that every idle poll checks: the
 * count of checks is asserted, never the clock.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BroadcastIdleReaderTest {
    private static final int WARMUP = 200_000;
    private static final int WINDOW = 1_000;
    private static final int WINDOWS = 10;
    private static final int MAX_SETS = 5;

    @TempDir
    Path temp;

    @Test
    void shouldAllocateNothingWhenIdleOverManyWriterChecks() {
        final Path dir = temp.resolve("logs");
        try (BroadcastWriter writer = BroadcastWriter.create(dir, "idle",
                BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir, "idle", "r", BroadcastStart.LIVE)) {
            reader.writerCheckIntervalNs(0);
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            final long[] polls = {0};
            final long checksBefore = reader.writerChecks();

            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(WARMUP, WINDOW, WINDOWS, MAX_SETS,
                () -> {
                    reader.poll(none, 16);
                    polls[0]++;
                });

            assertThat(measured.totalBytes()).as("bytes allocated by idle polls, each a writer check").isZero();
            assertThat(reader.writerChecks() - checksBefore).as("every idle poll checked the writer")
                .isEqualTo(polls[0]);
            assertThat(reader.isWriterGone()).isFalse();
            assertThat(reader.isDone()).isFalse();
            assertThat(writer.position()).isZero();
        }
    }

    @Test
    void shouldAllocateNothingAtALowRateWithWriterChecksBetweenRecords() {
        final Path dir = temp.resolve("logs");
        try (Arena arena = Arena.ofConfined();
             BroadcastWriter writer = BroadcastWriter.create(dir, "slow",
                BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir, "slow", "r", BroadcastStart.LIVE)) {
            reader.writerCheckIntervalNs(0);
            final MemorySegment payload = arena.allocate(8, 8);
            final long[] sum = {0};
            final BroadcastHandler adding = (buffer, offset, length, position) ->
                sum[0] += buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            final long[] iteration = {0};
            final long[] idlePolls = {0};
            final long[] offered = {0};
            final long checksBefore = reader.writerChecks();

            // a record every fourth poll: three idle polls, each a writer check, between records
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(WARMUP, WINDOW, WINDOWS, MAX_SETS,
                () -> {
                    if ((iteration[0]++ & 3) == 0) {
                        payload.set(ValueLayout.JAVA_LONG, 0, 1);
                        if (writer.offer(payload, 0, 8) == BroadcastWriter.OFFERED) {
                            offered[0]++;
                        }
                    }
                    if (reader.poll(adding, 16) == 0) {
                        idlePolls[0]++;
                    }
                });

            assertThat(measured.totalBytes()).as("bytes allocated by the writer and the reader").isZero();
            assertThat(offered[0]).isEqualTo((iteration[0] + 3) / 4);
            assertThat(sum[0]).as("every record read once").isEqualTo(offered[0]);
            assertThat(reader.delivered()).isEqualTo(offered[0]);
            assertThat(idlePolls[0]).isEqualTo(iteration[0] - offered[0]);
            assertThat(reader.writerChecks() - checksBefore).as("every idle poll checked the writer")
                .isEqualTo(idlePolls[0]);
            assertThat(reader.isDone()).isFalse();
        }
    }

    @Test
    void shouldSeeANewWriterAliveWhenItMadeItsLockFileAgain() throws IOException {
        final Path dir = temp.resolve("logs");
        final BroadcastWriter first = BroadcastWriter.create(dir, "again",
            BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
        final Path lockFile = BroadcastFiles.writerLockPath(first.path());
        try (BroadcastReader reader = BroadcastReader.attach(dir, "again", "r", BroadcastStart.LIVE)) {
            reader.writerCheckIntervalNs(0);
            final RecordingHandler handler = new RecordingHandler();
            assertThat(reader.poll(handler, 16)).isZero();
            assertThat(handler.take()).containsExactly("joined 0");

            // the reader keeps the first lock file open; a new writer on a new one must not look dead through it
            first.close();
            Files.delete(lockFile);
            try (BroadcastWriter second = BroadcastWriter.open(dir, "again")) {
                assertThat(reader.poll(handler, 16)).isZero();
                assertThat(reader.poll(handler, 16)).isZero();
                assertThat(second.offer(new byte[] {7, 0, 0, 0, 0, 0, 0, 0}, 0, 8))
                    .isEqualTo(BroadcastWriter.OFFERED);
                assertThat(reader.poll(handler, 16)).isEqualTo(1);
                assertThat(handler.take()).as("no writer-gone event: the new writer holds the new lock file")
                    .containsExactly("r 0 7");
                assertThat(reader.isWriterGone()).isFalse();
            }

            // and that writer's close is still seen
            assertThat(reader.poll(handler, 16)).isZero();
            assertThat(handler.take()).containsExactly("writer gone closed");
        }
    }

    /**
     * A check made every 50 ms is not compiled by C2 for minutes, and C1 has no escape analysis: a downcall with
     * {@code errno} capture allocated a slice of its capture segment at every call there (a reader in the bench,
     * traced with JFR). Run in a JVM that stops at C1, the idle checks still allocate nothing.
     */
    @Test
    @Tag("slow")
    void shouldAllocateNothingInIdleChecksThatC2HasNotCompiled() throws Exception {
        final String line = idleChecksInC1(temp.resolve("c1"), 5000, 2000);

        assertThat(line).as("2 000 idle polls, each a writer check, in C1 code").isEqualTo("BYTES 0 CHECKS 2000");
    }

    /**
     * The same from a reader's first checks on: a check every 50 ms reaches the 128th call of its downcalls
     * ({@code fstat} twice a check, {@code flock} once) some 3 s into an idle spell or a slow stream, where the JDK
     * customises their method handles (a bench reader's run, traced with JFR: 20-60 KB in its measured window). Four
     * polls to attach and join, then 400 checks measured, in a fresh JVM stopped at C1; up to 3 tries until one is
     * clean (a JIT one-off on a loaded machine).
     */
    @Test
    @Tag("slow")
    void shouldAllocateNothingFromAReadersFirstIdleChecksOnInCodeThatC2HasNotCompiled() throws Exception {
        String line = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            line = idleChecksInC1(temp.resolve("first" + attempt), 4, 400);
            System.out.println("try " + attempt + ": " + line);
            if (line.equals("BYTES 0 CHECKS 400")) {
                break;
            }
        }
        assertThat(line).as("a reader's idle checks 5 to 404, in C1 code").isEqualTo("BYTES 0 CHECKS 400");
    }

    private static String idleChecksInC1(final Path dir, final int warmup, final int measured) throws Exception {
        final List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-Xmx64m", "-cp",
            System.getProperty("java.class.path"), BroadcastIdleCheckProcess.class.getName(),
            dir.toString(), Integer.toString(warmup), Integer.toString(measured));
        return ChildJvm.firstLine(command);
    }
}
