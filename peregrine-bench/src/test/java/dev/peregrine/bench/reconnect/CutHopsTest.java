package dev.peregrine.bench.reconnect;

import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CutHopsTest {
    /** Stamps cut {@code index}'s hops at {@code base} plus the given offsets, in microseconds. */
    private static void stampAll(final CutHops hops, final int index, final int side, final long lag, final long base,
                                 final long... micros) {
        hops.cut(index, side, base, lag);
        for (int hop = 1; hop < CutHops.HOPS; hop++) {
            hops.stamp(index, hop, base + micros[hop - 1] * 1_000);
        }
    }

    @Test
    void shouldReportEachHopFromTheOneBeforeItBySideAndTheLagAtTheCut() {
        final CutHops hops = new CutHops(8, 1_000_000);
        stampAll(hops, 0, CutSchedule.SERVER, 2_000, 1_000_000, 100, 110, 410, 460, 470);
        stampAll(hops, 1, CutSchedule.CLIENT, 10, 50_000_000, 5, 15, 215, 265, 275);
        hops.stamp(1, CutHops.NOTICED, 99_000_000_000L); // a later loss of the same cut does not move its stamp

        final List<String> lines = hops.lines(2);

        assertThat(lines).contains(
            "    by the server (n=1) cut -> loss noticed                  100.0     100.0     100.0",
            "    by the server (n=1) noticed -> connect started            10.0      10.0      10.0",
            "    by the server (n=1) connect started -> connected         300.0     300.0     300.0",
            "    by the server (n=1) connected -> login accepted           50.0      50.0      50.0",
            "    by the server (n=1) login accepted -> first message       10.0      10.0      10.0",
            "    by the server: client's lag at the cut (published - delivered) p50 2000 msgs (2000.0 us) p99 2000 msgs"
                + " (2000.0 us) max 2000 msgs (2000.0 us)",
            "    by the client (n=1) cut -> loss noticed                    5.0       5.0       5.0",
            "    by the client (n=1) connect started -> connected         200.0     200.0     200.0",
            "    by the client: the 1 cuts at or over its p99 (275.0 us), mean per hop in us: 5.0 10.0 200.0 50.0"
                + " 10.0; mean lag at the cut 10 msgs (10.0 us)",
            "  cut to first message by tenth of the run (cut order), p50/p99 us: 470/470 275/275");
    }

    @Test
    void shouldSplitTheRunIntoTenthsInCutOrder() {
        final CutHops hops = new CutHops(32, 1_000_000);
        final int[] tenthOf = {0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7, 7, 7, 8, 8, 9, 9, 9}; // 25 cuts
        for (int cut = 0; cut < 25; cut++) { // the resume is 100 us times the cut's tenth + 1
            stampAll(hops, cut, cut & 1, 0, 1_000_000L * (cut + 1), 1, 2, 3, 4, 100L * (tenthOf[cut] + 1));
        }
        assertThat(hops.lines(25)).contains("  cut to first message by tenth of the run (cut order), p50/p99 us:"
            + " 100/100 200/200 300/300 400/400 500/500 600/600 700/700 800/800 900/900 1000/1000");
    }

    @Test
    void shouldLeaveOutACutWithAHopMissingAndCutsPastItsCapacity() {
        final CutHops hops = new CutHops(2, 1_000_000);
        stampAll(hops, 0, CutSchedule.SERVER, 1, 1_000_000, 1, 2, 3, 4, 5);
        hops.cut(1, CutSchedule.CLIENT, 2_000_000, 1); // never resumed
        hops.cut(2, CutSchedule.CLIENT, 3_000_000, 1); // past the arrays: ignored, no exception
        hops.stamp(2, CutHops.FIRST, 4_000_000);

        assertThat(String.join("\n", hops.lines(3))).contains("by the server (n=1)").doesNotContain("by the client");
    }

    @Test
    void shouldAllocateNothingWhenStamping() {
        final CutHops hops = new CutHops(1 << 16, 1_000_000);
        final int[] index = {0};
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(2_000, 500, 10, 5, () -> {
            final int cut = index[0]++ & 0xFFFF;
            hops.cut(cut, cut & 1, System.nanoTime(), 3);
            for (int hop = 1; hop < CutHops.HOPS; hop++) {
                hops.stamp(cut, hop, System.nanoTime());
            }
        });
        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
    }
}
