package dev.peregrine.bench.fanout;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench fanout --rounds}: a row's figures are the medians over its rounds, its range the lowest and highest
 * round, a failed round fails the row with its reason, and each round starts one transport further on. Values are
 * chosen so that the median differs from the mean, the first and the last round.
 */
class FanoutRoundsTest {
    private static Histogram readerAt(final long ns) {
        final Histogram h = new Histogram(1, FanoutReaderChild.HIGHEST_NS, 3);
        h.recordValue(ns);
        return h;
    }

    private static FanoutResult latencyRun(final double rate, final long... readerNs) {
        final List<Histogram> readers = java.util.Arrays.stream(readerNs).mapToObj(FanoutRoundsTest::readerAt).toList();
        return new FanoutResult("t", readers.size(), 32, true, 100_000, readers, rate, 0, 0.5, null, List.of());
    }

    @Test
    void shouldShowTheMedianOverRoundsOfTheWorstAndMedianReaderAndTheRangeOfTheWorstP99() {
        final FanoutResult row = FanoutRounds.fold1(List.of(latencyRun(99_000, 1_000, 9_000, 5_000),
            latencyRun(100_000, 2_000, 3_000, 2_500), latencyRun(98_000, 100_000, 4_000, 200)));

        assertThat(row.rounds().count()).isEqualTo(3);
        // the worst readers: 9 000, 3 000, 100 000 -> median 9 000; the median readers: 5 000, 2 500, 4 000 -> 4 000
        assertThat(row.worst(99)).isBetween(8_990.0, 9_010.0);
        assertThat(row.median(99)).isBetween(3_995.0, 4_005.0);
        assertThat(row.rounds().low()).isBetween(2_995.0, 3_005.0);
        assertThat(row.rounds().high()).isBetween(99_900.0, 100_100.0);
        assertThat(row.messagesPerSecond()).isEqualTo(99_000);
        assertThat(row.readersAllocated()).isEqualTo(0.5);
        assertThat(row.failed()).isFalse();
    }

    @Test
    void shouldFoldOnlyRunsOfTheSameRowAndKeepTheOrderRowsFirstAppear() {
        final FanoutResult a1 = new FanoutResult("a", 1, 32, false, 0, List.of(), 3e6, 0, 0, null, List.of());
        final FanoutResult b1 = new FanoutResult("b", 1, 32, false, 0, List.of(), 1e6, 0, 0, null, List.of());
        final FanoutResult a2 = new FanoutResult("a", 1, 32, false, 0, List.of(), 5e6, 0, 0, null, List.of());
        final FanoutResult b2 = new FanoutResult("b", 1, 32, false, 0, List.of(), 2e6, 0, -1, null, List.of());
        final FanoutResult b3 = new FanoutResult("b", 1, 32, false, 0, List.of(), 9e6, 0, 0, null, List.of());

        final List<FanoutResult> rows = FanoutRounds.fold(List.of(b1, a1, a2, b2, b3));

        assertThat(rows).extracting(FanoutResult::transport).containsExactly("b", "a");
        assertThat(rows.get(0).messagesPerSecond()).isEqualTo(2e6);
        assertThat(rows.get(0).rounds().low()).isEqualTo(1e6);
        assertThat(rows.get(0).rounds().high()).isEqualTo(9e6);
        assertThat(rows.get(0).readersAllocated()).as("an unknown round stays unknown").isEqualTo(-1);
        assertThat(rows.get(1).messagesPerSecond()).as("two rounds: the mean of the middle two").isEqualTo(4e6);
    }

    @Test
    void shouldFailARowWhenAnyRoundFailedWithThatRoundsReason() {
        final FanoutResult ok = latencyRun(100_000, 1_000);
        final FanoutResult failed = new FanoutResult("t", 1, 32, true, 100_000, List.of(), 0, 0, 0,
            "reader 0: gap: expected sequence 5, got 7", List.of());

        final FanoutResult row = FanoutRounds.fold1(List.of(ok, failed, ok));

        assertThat(row.failure()).isEqualTo("round 2: reader 0: gap: expected sequence 5, got 7");
    }

    @Test
    void shouldStartEachRoundOneTransportFurtherOn() {
        final List<String> transports = List.of("a", "b", "c");

        assertThat(FanoutRounds.rotated(transports, 1)).containsExactly("a", "b", "c");
        assertThat(FanoutRounds.rotated(transports, 2)).containsExactly("b", "c", "a");
        assertThat(FanoutRounds.rotated(transports, 3)).containsExactly("c", "a", "b");
        assertThat(FanoutRounds.rotated(transports, 4)).containsExactly("a", "b", "c");
    }

    @Test
    void shouldGiveTheStopReaderVerdictAgainstTheTenPercentTarget() {
        final FanoutResult detached = latencyRun(100_000, 900_000, 1_000_000);
        final FanoutResult within = latencyRun(99_000, 1_000_000, 1_090_000, 1_000);
        final FanoutResult over = latencyRun(100_000, 1_120_000, 1_000, 2_000);

        // a histogram keeps 3 significant digits: the p99s read back within 0.1% of the values recorded
        assertThat(FanoutRounds.stopVerdict(within, detached, 65_536)).matches("stop-reader \\(DROP, 65536 records\\):"
            + " writer 99000 msg/s with reader 0 stopped, 100000 with it detached \\(0\\.990x: within 10%\\); the other 2"
            + " readers' worst p99 1090\\.[0-9]+ us with reader 0 stopped, 100[01]\\.[0-9]+ us with it detached"
            + " \\(1\\.09[0-9]x: within the 10% target\\); they lost nothing \\(every sequence checked\\); sound: with"
            + " reader 0 detached the readers' worst p99 \\(1\\.00 ms\\) is under a tenth of the log's wrap time"
            + " \\(655 ms at 100000 msg/s\\)");
        assertThat(FanoutRounds.stopVerdict(over, detached, 65_536)).contains("x: over the 10% target)")
            .contains("(1.12");
    }

    @Test
    void shouldCallTheStopReaderSetUpUnsoundWhenTheDetachedReadersDoNotKeepUp() {
        final FanoutResult within = latencyRun(100_000, 1_000, 1_000);
        // 65 536 records at 100 000 msg/s wrap in 655.36 ms: a tenth is 65.5 ms
        final FanoutResult keptUp = latencyRun(100_000, 65_000_000, 1_000);
        final FanoutResult behind = latencyRun(100_000, 66_000_000, 1_000);

        // a histogram keeps 3 significant digits: 65.0 ms reads back as 65.0x
        assertThat(FanoutRounds.stopVerdict(within, keptUp, 65_536)).contains("; sound: with reader 0 detached the"
            + " readers' worst p99 (65.0").endsWith(" ms) is under a tenth of the log's wrap time (655 ms at 100000"
            + " msg/s)");
        assertThat(FanoutRounds.stopVerdict(within, behind, 65_536)).contains("; NOT SOUND on this machine: with"
            + " reader 0 detached the readers' worst p99 (66.0").endsWith(" ms) is not under a tenth of the log's"
            + " wrap time (655 ms at 100000 msg/s): they do not keep up; choose fewer --readers or a lower --rate");
    }
}
