package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench fanout}'s bytes per message, kept per round and per reader: a row of several rounds keeps every round's
 * writer and reader figures in round order, the table prints them all and says which round its B/msg columns (the
 * most of any round) come from, and the JSON carries them, null where a figure was not measured.
 */
class FanoutAllocationsTest {
    private static FanoutResult run(final double writer, final double... readers) {
        return new FanoutResult("peregrine-broadcast", readers.length, 32, false, 0, List.of(), 1e6, null, List.of(),
            new FanoutResult.Allocation(writer, readers));
    }

    @Test
    void shouldKeepEveryRoundsWriterAndReaderFiguresAndSayWhichRoundTheMostComesFrom() {
        final FanoutResult row = FanoutRounds.fold1(List.of(run(0, 0, 0.1, 0), run(0.6, 0, 0, 0), run(0, 0, 0, 0.2)));

        assertThat(row.writerAllocated()).isEqualTo(0.6);
        assertThat(row.readersAllocated()).isEqualTo(0.2);
        assertThat(row.allocations()).hasSize(3);
        assertThat(row.allocations().get(1).writer()).isEqualTo(0.6);
        assertThat(row.allocations().get(2).readers()).containsExactly(0, 0, 0.2);

        final String table = FanoutTable.render(List.of(row), 100_000, List.of(), null);
        assertThat(table).contains("; B/msg w from round 2, r from round 3");
        assertThat(table.lines().filter(l -> l.startsWith("  peregrine-broadcast") && l.contains(" r 0.0 0.1 0.0"))
            .toList()).singleElement().asString()
            .contains("throughput", "round 1: w 0.0 r 0.0 0.1 0.0; round 2: w 0.6 r 0.0 0.0 0.0;"
                + " round 3: w 0.0 r 0.0 0.0 0.2");
    }

    @Test
    void shouldShowAReaderAScenarioPlayedOnAsNotMeasuredAndLeaveItOutOfTheMost() {
        final FanoutResult.Allocation allocation = new FanoutResult.Allocation(0, new double[] {Double.NaN, 0.3, 0});

        assertThat(allocation.mostOfReaders()).isEqualTo(0.3);
        assertThat(FanoutTable.perRound(List.of(allocation))).isEqualTo("w 0.0 r - 0.3 0.0");
        assertThat(new FanoutResult.Allocation(0, new double[] {0.3, -1}).mostOfReaders()).as("unknown stays unknown")
            .isEqualTo(-1);
    }

    @Test
    void shouldWriteEveryRoundOfEveryReaderInTheJson() {
        final FanoutResult row = FanoutRounds.fold1(List.of(run(0, Double.NaN, 0.1), run(0.6, Double.NaN, 0)));

        assertThat(FanoutJson.toJson(List.of(row))).isEqualTo("[\n  {\"transport\":\"peregrine-broadcast\","
            + "\"readers\":2,\"size\":32,\"mode\":\"throughput\",\"failure\":null,\"messages_per_second\":1000000,"
            + "\"worst_p99_us\":null,\"b_per_msg_writer\":0.60,\"b_per_msg_readers\":0.10,\"rounds\":["
            + "{\"round\":1,\"writer\":0.00,\"readers\":[null,0.10],\"writer_cpu\":null,\"readers_cpu\":[null,null]},"
            + "{\"round\":2,\"writer\":0.60,\"readers\":[null,0.00],\"writer_cpu\":null,\"readers_cpu\":[null,null]}]}"
            + "\n]\n");
    }

    /**
     * The share of a core each thread used, per round: printed in %, with their sum against the machine's cores, and
     * written in the JSON; a reader a scenario played on is "-", an unknown figure "?" and left out of the sum.
     */
    @Test
    void shouldPrintAndWriteEachThreadsShareOfACorePerRound() {
        final FanoutResult.Allocation first = new FanoutResult.Allocation(0, new double[] {0, 0, 0}, 0.97,
            new double[] {Double.NaN, 0.412, -1});
        final FanoutResult.Allocation second = new FanoutResult.Allocation(0, new double[] {0, 0, 0}, 1.0,
            new double[] {0.25, 0.5, 0.3});

        assertThat(FanoutTable.cpuPerRound(List.of(first, second)))
            .isEqualTo("round 1: w 97% r - 41% ? = 138%; round 2: w 100% r 25% 50% 30% = 205%");
        final FanoutResult row = FanoutRounds.fold1(List.of(
            new FanoutResult("peregrine-broadcast", 3, 32, false, 0, List.of(), 1e6, null, List.of(), first)));
        assertThat(FanoutTable.render(List.of(row), 100_000, List.of(), null))
            .contains("[CPU time each thread used over its measured window, in % of one core")
            .contains("throughput  w 97% r - 41% ? = 138%");
        assertThat(FanoutJson.toJson(List.of(row))).contains("\"writer_cpu\":0.97,\"readers_cpu\":[null,0.41,null]");
    }
}
