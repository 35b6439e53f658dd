package dev.peregrine.broadcast;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broadcast reader's missed records, laps and eviction, and a writer's evictions, read back from the counters file
 * that {@code ./peregrine stat} reads, after a scripted run whose exact counts follow from the script.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastCountersTest {
    @TempDir
    Path temp;

    private static Map<String, Long> read(final CountersManager counters) {
        final Map<String, Long> values = new TreeMap<>();
        try (CountersReader reader = CountersReader.open(counters.file())) {
            reader.forEach((id, type, label, value) -> values.put(
                dev.peregrine.counters.CounterTypes.name(type) + "{" + label + "}", value));
        }
        return values;
    }

    @Test
    void shouldCountAReadersMissedRecordsAndLapsUnderDrop() {
        final Path dir = temp.resolve("logs");
        try (CountersManager counters = CountersManager.create(temp.resolve("p.counters"), 64, 0);
             BroadcastWriter writer = BroadcastWriter.create(dir, "quotes",
                 BroadcastLogOptions.of(8, 16, 2, BroadcastPolicy.DROP), counters);
             BroadcastReader reader = BroadcastReader.attach(dir, "quotes", "risk-1", BroadcastStart.LIVE, counters)) {
            final RecordingHandler handler = new RecordingHandler();
            offer(writer, 20); // 20 into a ring of 8: the reader misses the first 12
            while (reader.poll(handler, 100) > 0 || reader.delivered() < 8) {
                assertThat(reader.isDone()).isFalse();
            }
            offer(writer, 30); // a second lap: 30 more, 8 held, 22 missed
            while (reader.delivered() < 16) {
                reader.poll(handler, 100);
            }

            assertThat(reader.missed()).isEqualTo(12 + 22);
            assertThat(read(counters)).containsEntry("peregrine_broadcast_missed_total{broadcast=quotes reader=risk-1}",
                    34L)
                .containsEntry("peregrine_broadcast_laps_total{broadcast=quotes reader=risk-1}", 2L)
                .containsEntry("peregrine_broadcast_evictions_total{broadcast=quotes reader=risk-1}", 0L)
                .containsEntry("peregrine_broadcast_evictions_total{broadcast=quotes writer}", 0L);
        }
    }

    @Test
    void shouldCountAnEvictionOnTheWriterAndOnTheEvictedReader() throws Exception {
        final Path dir = temp.resolve("logs");
        try (CountersManager counters = CountersManager.create(temp.resolve("p.counters"), 64, 0);
             BroadcastWriter writer = BroadcastWriter.create(dir, "orders",
                 BroadcastLogOptions.of(2, 16, 2, BroadcastPolicy.BLOCK).withIdleTimeoutMs(20), counters);
             BroadcastReader idle = BroadcastReader.attach(dir, "orders", "slow", BroadcastStart.LIVE, counters)) {
            final RecordingHandler handler = new RecordingHandler();
            offer(writer, 1);
            assertThat(idle.poll(handler, 10)).isEqualTo(1);
            offer(writer, 2);
            int outcome = BroadcastWriter.BACK_PRESSURED;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (outcome == BroadcastWriter.BACK_PRESSURED && System.nanoTime() < deadline) {
                Thread.sleep(1); // the idle timeout must pass: the deadline only fails a wait that hung
                outcome = writer.offer(new byte[8], 0, 8);
            }
            assertThat(outcome).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(idle.poll(handler, 10)).isZero();
            assertThat(idle.isDone()).isTrue();

            assertThat(read(counters))
                .containsEntry("peregrine_broadcast_evictions_total{broadcast=orders writer}", 1L)
                .containsEntry("peregrine_broadcast_evictions_total{broadcast=orders reader=slow}", 1L)
                .containsEntry("peregrine_broadcast_missed_total{broadcast=orders reader=slow}", 0L);
        }
    }

    private static void offer(final BroadcastWriter writer, final int count) {
        for (int i = 0; i < count; i++) {
            assertThat(writer.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
        }
    }
}
