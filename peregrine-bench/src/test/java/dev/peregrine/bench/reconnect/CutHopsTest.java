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
    void shouldSayWhichThreadHeldEachResumeAndHowLongTheClientHadSinceThePreviousOne() {
        final CutHops hops = new CutHops(8, 1_000_000);
        stampAll(hops, 0, CutSchedule.SERVER, 2_000, 1_000_000, 100, 110, 410, 460, 470);
        hops.serverLogin(0, 1_430_000); // 20 us after connected, 30 us before accepted
        hops.cycle(CutSchedule.SERVER, 0, 5_000);
        hops.cycle(CutSchedule.SERVER, 0, 40_000);
        for (int i = 0; i < 3; i++) {
            hops.cycle(CutSchedule.CLIENT, 0, 3_000);
        }
        hops.scheduled(CutSchedule.SERVER, 0, 30_000, 70_000);
        hops.scheduled(CutSchedule.CLIENT, 0, 10_000, 0);
        stampAll(hops, 1, CutSchedule.CLIENT, 10, 50_000_000, 5, 15, 215, 265, 275);
        stampAll(hops, 2, CutSchedule.SERVER, 5, 50_325_000, 10, 20, 30, 40, 50); // 50 us after cut 1's resume
        hops.serverLogin(2, 50_359_000); // 4 us after connected, 6 us before accepted
        hops.serverLogin(2, 99_000_000); // a second login for the same cut does not move it

        final List<String> lines = hops.lines(3);

        assertThat(lines).contains(
            "    by the server (n=2) connected -> server logged it in         4.0      20.0      20.0",
            "    by the server (n=2) server logged in -> accepted           6.0      30.0      30.0",
            "    by the server (n=2) longest server cycle, resuming         0.0      40.0      40.0",
            "    by the server (n=2) longest client cycle, resuming         0.0       3.0       3.0",
            "    by the server (n=2) server cycles while resuming (count)       0.0       2.0       2.0",
            "    by the server (n=2) client cycles while resuming (count)       0.0       3.0       3.0",
            "    by the server (n=1) server thread waited for a CPU         70.0      70.0      70.0",
            "    by the server (n=1) server thread ran on a CPU             30.0      30.0      30.0",
            "    by the server (n=1) client thread waited for a CPU          0.0       0.0       0.0",
            "    by the server (n=1) previous resume -> this cut, p1 50.0 us p50 50.0 us; cuts within 100 us of it: 1",
            "    by the server: the 1 cuts at or over its p99, mean longest cycle: server 40.0 us, client 3.0 us; mean wait"
                + " for a CPU: server 70.0 us, client 0.0 us; mean previous resume -> cut n/a",
            "    by the client (n=1) previous resume -> this cut, p1 48530.0 us p50 48530.0 us; cuts within 100 us of it: 0",
            "  client's lag at the cut by tenth of the run (cut order), p50/max msgs: 2000/2000 10/10 5/5");
        assertThat(hops.csv(3, 1_000_000)).containsExactly(
            "cut,side,at_us,lag_msgs,notice_us,connect_start_us,connected_us,accepted_us,first_us,total_us,"
                + "server_login_after_connected_us,server_cycles,server_longest_cycle_us,client_cycles,"
                + "client_longest_cycle_us,since_previous_resume_us,server_ran_us,server_waited_us,client_ran_us,"
                + "client_waited_us",
            "0,server,0,2000,100,10,300,50,10,470,20,2,40,3,3,0,30,70,10,0",
            "1,client,49000,10,5,10,200,50,10,275,0,0,0,0,0,48530,-1,-1,-1,-1",
            "2,server,49325,5,10,10,10,10,10,50,4,0,0,0,0,50,-1,-1,-1,-1");
    }

    @Test
    void shouldAllocateNothingWhenAReactorCountsItsCyclesThroughResumes() {
        final CutSchedule cuts = new CutSchedule(1_000_000, true);
        cuts.hops(new CutHops(1 << 16, 1_000_000), () -> 0, () -> 0);
        cuts.resumedAfter(0);
        final ResumeCycles cycles = new ResumeCycles(cuts, CutSchedule.SERVER);
        final long[] now = {1};
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(2_000, 500, 10, 5, () -> {
            now[0] += 1_000;
            cycles.cycle(now[0]); // outside a resume
            cuts.cut();
            cycles.cycle(now[0] + 1); // a resume begins: the scheduler's figures are read
            cycles.cycle(now[0] + 2);
            cuts.resumedAfter(cuts.made());
            cycles.cycle(now[0] + 3); // it ended: read again and stamped
        });
        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
    }

    @Test
    void shouldStampACutWhenItIsMadeNotAtTheCutterCyclesClock() {
        final CutSchedule cuts = new CutSchedule(1_000_000, true);
        final CutHops hops = new CutHops(4, 1_000_000);
        cuts.hops(hops, () -> 7, () -> 5);
        final long cycleClock = System.nanoTime() - 1_000_000_000L; // a cycle that began long before its cutter ran
        cuts.start(cycleClock - 2_000_000);
        cuts.resumedAfter(0);
        assertThat(cuts.due(CutSchedule.SERVER, cycleClock)).isTrue();

        final long beforeTheAbort = System.nanoTime();
        final long stamp = cuts.cut();

        assertThat(stamp).isGreaterThanOrEqualTo(beforeTheAbort);
        assertThat(cuts.lastCutNs()).isEqualTo(stamp);
        assertThat(hops.csv(1, cycleClock).get(1)).startsWith("0,server," + (stamp - cycleClock) / 1_000 + ",2,");
    }

    @Test
    void shouldHoldACutDueAtItsTimeUntilTheClientHasSettledAfterItsResume() {
        final long settle = 5_000_000;
        final CutSchedule cuts = new CutSchedule(1_000_000, true);
        cuts.settle(settle);
        cuts.start(0);
        final long before = System.nanoTime();
        cuts.resumedAfter(0);
        final long after = System.nanoTime();

        // the cut's time (1 ms from the start) is long past: only the settling holds it
        assertThat(cuts.due(CutSchedule.SERVER, before + settle - 1)).isFalse();
        assertThat(cuts.due(CutSchedule.SERVER, after + settle)).isTrue();

        final CutSchedule fixed = new CutSchedule(1_000_000, true); // settle 0: at its time, at once after the resume
        fixed.start(0);
        fixed.resumedAfter(0);
        assertThat(fixed.due(CutSchedule.SERVER, System.nanoTime())).isTrue();
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
            hops.serverLogin(cut, System.nanoTime());
            hops.cycle(cut & 1, cut, 1_000);
            hops.scheduled(cut & 1, cut, 2_000, 3_000);
        });
        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
    }
}
