package dev.peregrine.bench.reconnect;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cut schedule fits the count into the stream: 10 M messages at 1 M msg/s with a cut every 10 ms is
 * 1 000 cuts, the last one due before the last message, not at the instant it is published.
 */
class CutScheduleTest {
    private static final long INTERVAL_NS = 10_000_000L;

    @Test
    void shouldMakeEveryCutHalfAnIntervalIntoItsInterval() {
        final CutSchedule cuts = new CutSchedule(INTERVAL_NS, true);
        cuts.start(0);
        cuts.resumedAfter(0);

        assertThat(cuts.due(CutSchedule.SERVER, INTERVAL_NS / 2 - 1)).isFalse();
        assertThat(cuts.due(CutSchedule.SERVER, INTERVAL_NS / 2)).isTrue();
        assertThat(cuts.due(CutSchedule.CLIENT, INTERVAL_NS / 2)).as("cut 0 is the server's").isFalse();
    }

    @Test
    void shouldHaveTheThousandthCutDueHalfAnIntervalBeforeATenSecondStreamEnds() {
        final CutSchedule cuts = new CutSchedule(INTERVAL_NS, true);
        cuts.start(0);
        for (int k = 0; k < 999; k++) {
            cuts.resumedAfter(k);
            cuts.cut();
        }
        cuts.resumedAfter(999);
        final long streamEndNs = 1_000 * INTERVAL_NS; // 10 M messages at 1 M msg/s

        assertThat(cuts.made()).isEqualTo(999);
        assertThat(cuts.due(CutSchedule.CLIENT, streamEndNs - INTERVAL_NS / 2)).as("cut 999, the client's").isTrue();
        assertThat(cuts.due(CutSchedule.CLIENT, streamEndNs - INTERVAL_NS / 2 - 1)).isFalse();
    }
}
