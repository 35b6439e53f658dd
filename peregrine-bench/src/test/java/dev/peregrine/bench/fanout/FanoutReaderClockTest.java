package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader of {@code bench fanout} reads the clock for every message of a latency run, and in a throughput run only
 * for the messages its figure needs: the first measured one, the last, and the one it detaches at. The clock cost some
 * 60-77 ns a call on a 2-vCPU VM, about half of a message's time at 7 M msg/s (docs/broadcast-bcast10.md).
 */
class FanoutReaderClockTest {
    private static List<Long> timed(final boolean latency, final long first, final long end, final long detachAt,
                                    final long... lost) {
        final List<Long> timed = new ArrayList<>();
        boolean measuring = false;
        for (long sequence = 0; sequence < end; sequence++) {
            final long s = sequence;
            if (java.util.Arrays.stream(lost).anyMatch(l -> l == s)) {
                continue;
            }
            if (FanoutReaderChild.timed(latency, measuring, sequence, first, end, detachAt)) {
                timed.add(sequence);
            }
            measuring |= sequence >= first;
        }
        return timed;
    }

    @Test
    void shouldTimeOnlyTheFirstMeasuredAndTheLastMessageOfAThroughputRun() {
        assertThat(timed(false, 250, 1_250, -1)).containsExactly(250L, 1_249L);
    }

    @Test
    void shouldTimeTheFirstMessageAtOrPastTheFirstMeasuredWhenThatOneWasLost() {
        assertThat(timed(false, 250, 1_250, -1, 250, 251)).containsExactly(252L, 1_249L);
    }

    @Test
    void shouldTimeTheMessageAReaderDetachesAt() {
        assertThat(timed(false, 250, 1_250, 700)).containsExactly(250L, 700L, 1_249L);
    }

    @Test
    void shouldTimeEveryMessageOfALatencyRun() {
        assertThat(timed(true, 250, 1_250, -1)).hasSize(1_250);
    }
}
