package dev.peregrine.bench.fanout;

import dev.peregrine.broadcast.BroadcastLogOptions;
import dev.peregrine.broadcast.BroadcastPolicy;
import dev.peregrine.broadcast.BroadcastWriter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broadcast reader of a throughput run waits as Aeron's subscribers do (it backs off: it never asks the writer for a
 * futex wake-up); one of a latency run waits by futex (it asks, once idle past its spins and yields).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastFanoutWaitTest {
    private static final int IDLE_READS = 50;

    @TempDir
    Path temp;

    @Test
    void shouldBackOffInAThroughputRunAndAskForAWakeUpInALatencyRun() {
        assertThat(wakesAfterAnIdleReader(FanoutTransport.THROUGHPUT_POLL_LIMIT, "throughput"))
            .as("a throughput reader never sleeps on the futex").isZero();
        assertThat(wakesAfterAnIdleReader(FanoutTransport.LATENCY_POLL_LIMIT, "latency"))
            .as("a latency reader asked to be woken").isEqualTo(1);
    }

    /** The writer's wake-ups for one record offered after a reader read nothing IDLE_READS times (1 ms each). */
    private long wakesAfterAnIdleReader(final int pollLimit, final String name) {
        final Path directory = temp.resolve(name);
        final BroadcastFanout fanout = new BroadcastFanout(BroadcastPolicy.DROP);
        final List<Long> sequences = new ArrayList<>();
        try (BroadcastWriter writer = BroadcastWriter.create(directory, BroadcastFanout.LOG_NAME,
            BroadcastLogOptions.of(64, 32, 2, BroadcastPolicy.DROP));
             FanoutTransport.Reader reader = fanout.attach(directory, 32, 0, pollLimit,
                 (sequence, sendNs) -> sequences.add(sequence))) {
            for (int i = 0; i < IDLE_READS; i++) {
                assertThat(reader.read()).isZero();
            }
            final MemorySegment message = Arena.ofAuto().allocate(32, 8);
            FanoutMessage.write(message, 7, 0);
            assertThat(writer.offer(message, 0, 32)).isEqualTo(BroadcastWriter.OFFERED);
            final long wakes = writer.wakes();
            for (int i = 0; i < 10_000 && sequences.isEmpty(); i++) {
                reader.read();
            }
            assertThat(sequences).containsExactly(7L);
            return wakes;
        }
    }
}
