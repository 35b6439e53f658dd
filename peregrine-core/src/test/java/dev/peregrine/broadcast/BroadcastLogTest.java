package dev.peregrine.broadcast;

import dev.peregrine.testkit.AllocationMeter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One process: writer and readers of a broadcast log, every event asserted as a whole list. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastLogTest {
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
    void shouldDeliverEveryRecordInOrderToEveryReaderUnderBothPolicies() {
        for (final BroadcastPolicy policy : BroadcastPolicy.values()) {
            final String name = "log-" + policy;
            try (BroadcastWriter writer = BroadcastWriter.create(dir(), name, BroadcastLogOptions.of(8, 64, 4, policy));
                 BroadcastReader first = BroadcastReader.attach(dir(), name, "a", BroadcastStart.LIVE);
                 BroadcastReader second = BroadcastReader.attach(dir(), name, "b", BroadcastStart.LIVE)) {
                final RecordingHandler a = new RecordingHandler();
                final RecordingHandler b = new RecordingHandler();
                for (int round = 0; round < 10; round++) {
                    for (int i = 0; i < 5; i++) {
                        assertThat(offer(writer, round * 5L + i)).isEqualTo(BroadcastWriter.OFFERED);
                    }
                    first.poll(a, 100);
                    second.poll(b, 100);
                }
                assertThat(a.events.getFirst()).isEqualTo("joined 0");
                assertThat(a.values).hasSize(50);
                for (int i = 0; i < 50; i++) {
                    assertThat(a.values.get(i)).isEqualTo(i);
                }
                assertThat(b.values).isEqualTo(a.values);
            }
        }
    }

    @Test
    void shouldHoldTheWriterBackForTheSlowestReaderAndResumeWhenItReads() {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "block",
            BroadcastLogOptions.of(4, 16, 2, BroadcastPolicy.BLOCK))) {
            final BroadcastReader reader = BroadcastReader.attach(dir(), "block", "slow", BroadcastStart.LIVE);
            final RecordingHandler handler = new RecordingHandler();
            for (int i = 0; i < 4; i++) {
                assertThat(offer(writer, i)).isEqualTo(BroadcastWriter.OFFERED);
            }
            assertThat(offer(writer, 4)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
            assertThat(reader.poll(handler, 1)).isEqualTo(1);
            assertThat(offer(writer, 4)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(offer(writer, 5)).isEqualTo(BroadcastWriter.BACK_PRESSURED);
            assertThat(reader.poll(handler, 10)).isEqualTo(4);
            assertThat(handler.take()).containsExactly("joined 0", "r 0 0", "r 1 1", "r 2 2", "r 3 3", "r 4 4");
            reader.close();
            assertThat(offer(writer, 5)).as("a detached reader holds nothing back").isEqualTo(BroadcastWriter.OFFERED);
        }
    }

    @Test
    void shouldStartALateReaderLiveOrFromTheOldestHeldRecordAndTellItWhere() {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "late",
            BroadcastLogOptions.of(8, 16, 4, BroadcastPolicy.DROP).withInitialPosition(100))) {
            final RecordingHandler fresh = new RecordingHandler();
            try (BroadcastReader early = BroadcastReader.attach(dir(), "late", "early", BroadcastStart.OLDEST)) {
                offer(writer, 7);
                early.poll(fresh, 10);
                assertThat(fresh.take()).containsExactly("joined 100", "r 100 7");
            }
            for (int i = 1; i < 20; i++) {
                offer(writer, i);
            }
            try (BroadcastReader live = BroadcastReader.attach(dir(), "late", "live", BroadcastStart.LIVE);
                 BroadcastReader oldest = BroadcastReader.attach(dir(), "late", "oldest", BroadcastStart.OLDEST)) {
                offer(writer, 20);
                final RecordingHandler liveEvents = new RecordingHandler();
                final RecordingHandler oldestEvents = new RecordingHandler();
                live.poll(liveEvents, 100);
                oldest.poll(oldestEvents, 100);
                assertThat(liveEvents.take()).containsExactly("joined 120", "r 120 20");
                // tail 121, capacity 8: held are 113..120; the oldest reader was placed at 112 when the tail was 120
                // and the write of 120 overwrote it, so it is told it lost one, then reads the rest
                assertThat(oldestEvents.take()).containsExactly("joined 112", "lapped 1 113", "r 113 13", "r 114 14",
                    "r 115 15", "r 116 16", "r 117 17", "r 118 18", "r 119 19", "r 120 20");
            }
        }
    }

    @Test
    void shouldTellABlockReaderJoiningFromTheOldestWhereItStarts() {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "oldest-block",
            BroadcastLogOptions.of(8, 16, 4, BroadcastPolicy.BLOCK))) {
            for (int i = 0; i < 20; i++) {
                assertThat(offer(writer, i)).isEqualTo(BroadcastWriter.OFFERED);
            }
            try (BroadcastReader oldest = BroadcastReader.attach(dir(), "oldest-block", "o", BroadcastStart.OLDEST)) {
                final RecordingHandler events = new RecordingHandler();
                assertThat(oldest.poll(events, 100)).as("not counted by the writer yet").isZero();
                assertThat(offer(writer, 20)).as("the writer is held where the reader is")
                    .isEqualTo(BroadcastWriter.BACK_PRESSURED);
                assertThat(oldest.poll(events, 3)).isEqualTo(3);
                assertThat(events.take()).containsExactly("joined 12", "r 12 12", "r 13 13", "r 14 14");
            }
        }
    }

    @Test
    void shouldRefuseAReaderWhenTheTableIsFullAndANameThatIsTaken() {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "full",
            BroadcastLogOptions.of(8, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader a = BroadcastReader.attach(dir(), "full", "a", BroadcastStart.LIVE)) {
            assertThat(writer.position()).isZero();
            assertThat(a.entry()).isZero();
            assertThatThrownBy(() -> BroadcastReader.attach(dir(), "full", "a", BroadcastStart.LIVE))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("reader name a is already attached");
            try (BroadcastReader b = BroadcastReader.attach(dir(), "full", "b", BroadcastStart.LIVE)) {
                assertThat(b.entry()).isEqualTo(1);
                assertThatThrownBy(() -> BroadcastReader.attach(dir(), "full", "c", BroadcastStart.LIVE))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("readers' table of").hasMessageContaining("is full: all 2 entries");
            }
            try (BroadcastReader c = BroadcastReader.attach(dir(), "full", "c", BroadcastStart.LIVE)) {
                assertThat(c.entry()).as("b's entry, free again").isEqualTo(1);
            }
        }
    }

    @Test
    void shouldAllowOneWriterAtATimeAndLetANewOneGoOnWhereTheOldStopped() {
        final RecordingHandler events = new RecordingHandler();
        try (BroadcastReader reader = attachAfter(() -> BroadcastWriter.create(dir(), "handover",
            BroadcastLogOptions.of(8, 16, 2, BroadcastPolicy.DROP)), "handover")) {
            try (BroadcastWriter second = BroadcastWriter.open(dir(), "handover")) {
                assertThatThrownBy(() -> BroadcastWriter.open(dir(), "handover"))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already has a writer");
                assertThat(second.position()).isEqualTo(3);
                offer(second, 3);
            }
            reader.poll(events, 100);
            assertThat(events.take()).containsExactly("joined 0", "r 0 0", "r 1 1", "r 2 2", "r 3 3");
            reader.poll(events, 100);
            assertThat(events.take()).containsExactly("writer gone closed");
        }
    }

    private BroadcastReader attachAfter(final java.util.function.Supplier<BroadcastWriter> make, final String name) {
        try (BroadcastWriter first = make.get()) {
            final BroadcastReader reader = BroadcastReader.attach(dir(), name, "r", BroadcastStart.LIVE);
            for (int i = 0; i < 3; i++) {
                offer(first, i);
            }
            return reader;
        }
    }

    @Test
    void shouldEvictAReaderIdlePastTheTimeoutAndTellItWhy() throws Exception {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "idle",
            BroadcastLogOptions.of(2, 16, 2, BroadcastPolicy.BLOCK).withIdleTimeoutMs(20));
             BroadcastReader idle = BroadcastReader.attach(dir(), "idle", "idle", BroadcastStart.LIVE)) {
            final RecordingHandler events = new RecordingHandler();
            offer(writer, 0);
            assertThat(idle.poll(events, 10)).isEqualTo(1);
            offer(writer, 1);
            offer(writer, 2);
            int outcome = BroadcastWriter.BACK_PRESSURED;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (outcome == BroadcastWriter.BACK_PRESSURED && System.nanoTime() < deadline) {
                Thread.sleep(1);
                outcome = offer(writer, 3);
            }
            assertThat(outcome).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(writer.evictions()).isEqualTo(1);
            assertThat(idle.poll(events, 10)).isZero();
            assertThat(events.take()).containsExactly("joined 0", "r 0 0", "evicted idle past the timeout");
            assertThat(idle.isDone()).isTrue();
        }
    }

    @Test
    void shouldAllocateNothingWritingAndReadingUnderEitherPolicy() {
        for (final BroadcastPolicy policy : BroadcastPolicy.values()) {
            final String name = "alloc-" + policy;
            try (BroadcastWriter writer = BroadcastWriter.create(dir(), name, BroadcastLogOptions.of(64, 32, 2, policy));
                 BroadcastReader reader = BroadcastReader.attach(dir(), name, "r", BroadcastStart.LIVE)) {
                final MemorySegment payload = MemorySegment.ofArray(new byte[32]);
                final long[] sum = new long[1];
                final BroadcastHandler handler = (buffer, offset, length, position) ->
                    sum[0] += buffer.get(ValueLayout.JAVA_BYTE, offset) + length;
                final Runnable cycle = () -> {
                    for (int i = 0; i < 16; i++) {
                        if (writer.offer(payload, 0, 32) != BroadcastWriter.OFFERED) {
                            throw new AssertionError("not offered");
                        }
                    }
                    if (reader.poll(handler, 16) != 16) {
                        throw new AssertionError("not read");
                    }
                };
                // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing
                final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 5_000, 10, 5, cycle);
                assertThat(measured.totalBytes()).as("%s: bytes in the last set of %d", policy, measured.sets()).isZero();
            }
        }
    }

    @Test
    void shouldRefuseAnExistingLogAndAnUnsafeName() {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "twice",
            BroadcastLogOptions.of(8, 16, 2, BroadcastPolicy.DROP))) {
            assertThat(writer.path()).hasFileName("twice.bcast");
            assertThatThrownBy(() -> BroadcastWriter.create(dir(), "twice",
                BroadcastLogOptions.of(8, 16, 2, BroadcastPolicy.DROP)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already exists");
        }
        assertThatThrownBy(() -> BroadcastWriter.create(dir(), "../x", BroadcastLogOptions.of(8, 16, 2,
            BroadcastPolicy.DROP))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name=../x");
    }
}
