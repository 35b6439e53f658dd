package dev.peregrine.bench.fanout;

import dev.peregrine.broadcast.BroadcastPolicy;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Small real runs of {@code bench fanout}'s rows, readers in child JVMs: every reader's result is in the row, each
 * latency histogram holds exactly the measured messages (each reader checked every sequence, or the row would carry
 * its failure), and the scenarios report what they found. Aeron IPC needs JVM options this test JVM lacks; the
 * command's test runs it.
 */
@Tag("slow")
class FanoutRunnerTest {
    private static final long RATE = 10_000;
    private static final long WARMUP = 2_000;
    private static final long COUNT = 3_000;

    @Test
    @Timeout(300)
    void shouldGiveEveryReaderItsOwnHistogramOfExactlyTheMeasuredMessages() {
        for (final FanoutTransport transport : List.of(new BroadcastFanout(BroadcastPolicy.BLOCK),
            new BroadcastFanout(BroadcastPolicy.DROP), new ShmFanout())) {
            for (int readers = 1; readers <= Math.min(2, transport.maxReaders()); readers++) {
                final FanoutResult row = FanoutRunner.run(new FanoutRunner.Spec(transport, readers, 32, true, RATE,
                    WARMUP, COUNT, FanoutRunner.Scenario.NONE));

                assertThat(row.failure()).as(transport.name() + " readers=" + readers).isNull();
                assertThat(row.readerLatencies()).hasSize(readers);
                for (final Histogram h : row.readerLatencies()) {
                    assertThat(h.getTotalCount()).isEqualTo(COUNT);
                }
                assertThat(row.messagesPerSecond()).isPositive();
                assertThat(row.writerAllocated()).isGreaterThanOrEqualTo(0);
                assertThat(row.readersAllocated()).isGreaterThanOrEqualTo(0);
            }
        }
    }

    @Test
    @Timeout(300)
    void shouldMeasureThroughputWithEverySequenceChecked() {
        final FanoutResult row = FanoutRunner.run(new FanoutRunner.Spec(new BroadcastFanout(BroadcastPolicy.BLOCK), 2,
            64, false, 0, 5_000, 20_000, FanoutRunner.Scenario.NONE));

        assertThat(row.failure()).isNull();
        assertThat(row.readerLatencies()).isEmpty();
        assertThat(row.messagesPerSecond()).isPositive();
        // each thread's CPU time over its own window: some, and no more than a core (a little over: the reading at
        // the window's end comes after its last stamp)
        final FanoutResult.Allocation run = row.allocations().get(0);
        assertThat(run.writerCpu()).as("the writer's share of a core").isPositive().isLessThanOrEqualTo(1.1);
        assertThat(run.readersCpu()).as("a share per reader").hasSize(2);
        for (final double share : run.readersCpu()) {
            assertThat(share).as("a reader's share of a core").isPositive().isLessThanOrEqualTo(1.1);
        }
    }

    @Test
    @Timeout(300)
    void shouldEvictAKilledReaderAndLetTheOthersReadEverySequence() {
        // 16 384 records: the 20 000 messages after the kill fill the ring, so the writer is held back and evicts
        final FanoutResult row = FanoutRunner.run(new FanoutRunner.Spec(new BroadcastFanout(BroadcastPolicy.BLOCK,
            16_384), 2, 32, true, RATE, WARMUP, 40_000, FanoutRunner.Scenario.KILL_READER));

        assertThat(row.failure()).isNull();
        assertThat(row.readerLatencies()).as("the survivor's histogram only").hasSize(1);
        assertThat(row.readerLatencies().get(0).getTotalCount()).isEqualTo(40_000);
        assertThat(row.notes()).singleElement().asString()
            .matches("reader 0 \\(killed with SIGKILL at sequence 22000\\): evicted [0-9.]+ ms after the signal was"
                + " sent; the writer then sent 42000 of 42000 messages");
    }

    @Test
    @Timeout(300)
    void shouldCountTheLossesOfAStoppedReaderUnderDropWhileTheOthersLoseNothing() {
        final FanoutResult row = FanoutRunner.run(new FanoutRunner.Spec(new BroadcastFanout(BroadcastPolicy.DROP), 2,
            32, true, RATE, WARMUP, 40_000, FanoutRunner.Scenario.STOP_READER));

        assertThat(row.failure()).isNull();
        assertThat(row.readerLatencies()).hasSize(1);
        assertThat(row.readerLatencies().get(0).getTotalCount()).isEqualTo(40_000);
        assertThat(row.notes()).singleElement().asString()
            .startsWith("reader 0 (stopped with SIGSTOP at sequence 22000, continued when the other readers were done):"
                + " lost ");
    }

    @Test
    @Timeout(300)
    void shouldLetReaderZeroDetachHalfWayAndStayIdleWhileTheOthersReadEverySequence() {
        final FanoutResult row = FanoutRunner.run(new FanoutRunner.Spec(new BroadcastFanout(BroadcastPolicy.DROP), 2,
            32, true, RATE, WARMUP, 40_000, FanoutRunner.Scenario.DETACH_READER));

        assertThat(row.failure()).isNull();
        assertThat(row.readers()).as("the same readers as the stopped run").isEqualTo(2);
        assertThat(row.readerLatencies()).as("the other reader's histogram only").hasSize(1);
        assertThat(row.readerLatencies().get(0).getTotalCount()).isEqualTo(40_000);
        assertThat(row.notes()).containsExactly("reader 0 (detached after sequence 22000, then idle): received 22001");
    }
}
