package dev.peregrine.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code bench load --rounds N}: the rounds of one transport at one rate reduced to medians and a p99 range, in
 * the table and beside every round's run in the JSON.
 */
class RoundRowsTest {
    /** A load run whose 1000 round trips are {@code base} .. {@code base + 999} ns. */
    private static RunResult load(final String transport, final long rate, final long base, final RunResult.Status status,
                                  final String note) {
        return new RunResult("load", transport, "tcp", transport.startsWith("peregrine"), 256, 1000, rate, 5,
            Fixtures.histogram(base), 5.0 * rate, 0.0, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN,
            status, note).withSending(1, rate - base / 1000.0);
    }

    private static RunResult ok(final String transport, final long rate, final long base) {
        return load(transport, rate, base, RunResult.Status.OK, null);
    }

    private static String us(final RunResult run, final double percentile) {
        return LatencyTable.micros(run.rtt().getValueAtPercentile(percentile)).replace(".", "\\.");
    }

    @Test
    void shouldTakeEachPercentileAsTheMedianOfTheRoundsAndTheP99Range() {
        // three rounds of two transports at two rates, run as the command runs them: transport by transport
        final List<RunResult> results = List.of(
            ok("peregrine-tcp", 1000, 50_000), ok("peregrine-tcp", 10_000, 7_000), ok("nio", 1000, 20_000), ok("nio", 10_000, 2_000),
            ok("peregrine-tcp", 1000, 10_000), ok("peregrine-tcp", 10_000, 9_000), ok("nio", 1000, 40_000), ok("nio", 10_000, 4_000),
            ok("peregrine-tcp", 1000, 30_000), ok("peregrine-tcp", 10_000, 8_000), ok("nio", 1000, 30_000), ok("nio", 10_000, 3_000));

        final List<RoundRows.Row> rows = RoundRows.of(results, "load");

        assertThat(rows).extracting(r -> r.first().transport() + "@" + r.first().rate())
            .containsExactly("peregrine-tcp@1000", "peregrine-tcp@10000", "nio@1000", "nio@10000");
        final RoundRows.Row row = rows.get(0);
        assertThat(row.rounds()).isEqualTo(3);
        assertThat(row.status()).isEqualTo(RunResult.Status.OK);
        // the middle round (base 30 000 ns), not the first (50 000) nor the mean
        final RunResult middle = results.get(8);
        assertThat(row.percentile(50)).isEqualTo((double)middle.rtt().getValueAtPercentile(50));
        assertThat(row.percentile(99)).isEqualTo((double)middle.rtt().getValueAtPercentile(99));
        assertThat(row.max()).isEqualTo((double)middle.rtt().getMaxValue());
        assertThat(row.p99Min()).isEqualTo((double)results.get(4).rtt().getValueAtPercentile(99));
        assertThat(row.p99Max()).isEqualTo((double)results.get(0).rtt().getValueAtPercentile(99));
        assertThat(row.sentRate()).isEqualTo(1000 - 30.0);
        assertThat(row.throughput()).isEqualTo(5000.0);
    }

    @Test
    void shouldCallARowPartialWhenOneRoundWasAndLeaveRoundsWithoutLatencyOutOfTheMedian() {
        final List<RunResult> results = List.of(
            ok("netty", 25_000, 10_000),
            load("netty", 25_000, 90_000, RunResult.Status.PARTIAL, "time limit of 20.0 s reached"),
            RunResult.withoutNumbers("load", "netty", "tcp", false, 256, 25_000, 5, RunResult.Status.FAILED, "refused"));

        final RoundRows.Row row = RoundRows.of(results, "load").get(0);

        assertThat(row.rounds()).isEqualTo(3);
        assertThat(row.measured()).hasSize(2);
        assertThat(row.status()).isEqualTo(RunResult.Status.PARTIAL);
        assertThat(row.note()).isEqualTo("time limit of 20.0 s reached; refused");
        // two measured rounds: the mean of the two middle values
        assertThat(row.percentile(50)).isEqualTo((results.get(0).rtt().getValueAtPercentile(50)
            + results.get(1).rtt().getValueAtPercentile(50)) / 2.0);
    }

    @Test
    void shouldShowTheRoundsAndTheP99RangeOnlyWhenThereWereSeveral() {
        final List<RunResult> one = List.of(ok("peregrine-tcp", 1000, 10_000));
        final List<RunResult> three = List.of(ok("peregrine-tcp", 1000, 50_000), ok("peregrine-tcp", 1000, 10_000),
            ok("peregrine-tcp", 1000, 30_000));

        final Table single = Summary.load(one);
        final Table rounds = Summary.load(three);

        assertThat(single.title()).doesNotContain("median");
        assertThat(single.toText()).doesNotContain("rounds", "p99 min - max");
        assertThat(rounds.title()).endsWith("; median of the rounds");
        // transport, size, rounds, clients, rate, sent, p50, p90, p99, p99 min - max, p99.9: the middle round's numbers
        final RunResult middle = three.get(2);
        assertThat(rounds.toText()).contains("peregrine-tcp *", " 256 ", " 3 ", " 5 ", " 1000 ", " 970 ");
        assertThat(rounds.toText()).containsPattern(" " + us(middle, 50) + " +" + us(middle, 90) + " +" + us(middle, 99)
            + " +" + us(three.get(1), 99) + " - " + us(three.get(0), 99) + " +" + us(middle, 99.9) + " ");
        assertThat(rounds.toText()).contains("p99 min - max", "median over the rounds");
    }

    @Test
    void shouldSayWhenTheRoundsPutSomeTransportsFirstMoreOftenThanOthers() {
        final List<RunResult> threeOfTwo = List.of(ok("peregrine-tcp", 1000, 50_000), ok("nio", 1000, 10_000),
            ok("nio", 1000, 30_000), ok("peregrine-tcp", 1000, 20_000), ok("peregrine-tcp", 1000, 40_000),
            ok("nio", 1000, 60_000));
        final List<RunResult> fourOfTwo = new java.util.ArrayList<>(threeOfTwo);
        fourOfTwo.addAll(List.of(ok("nio", 1000, 70_000), ok("peregrine-tcp", 1000, 80_000)));

        assertThat(Summary.load(threeOfTwo).toText()).contains("first transport a bench JVM runs")
            .contains("with 2 transports, 3 rounds put some of them first more often than others (a multiple of 2 would not)");
        assertThat(Summary.load(fourOfTwo).toText()).contains("first transport a bench JVM runs")
            .doesNotContain("more often than others");
    }

    @Test
    void shouldGiveEveryRoundsRunItsRoundInTheJson() throws Exception {
        final List<RunResult> results = List.of(ok("peregrine-tcp", 1000, 10_000), ok("nio", 1000, 20_000),
            RunResult.withoutNumbers("load", "netty", "tcp", false, 256, 1000, 5, RunResult.Status.UNAVAILABLE, "no"),
            ok("peregrine-tcp", 1000, 30_000), ok("nio", 1000, 40_000));

        final JsonNode array = Json.parse(JsonResults.toJson(results, List.of(1, 1, 1, 2, 2)));

        assertThat(array.size()).isEqualTo(4);
        assertThat(array.get(0).get("round").asInt()).isEqualTo(1);
        assertThat(array.get(1).get("transport").asText()).isEqualTo("nio");
        assertThat(array.get(2).get("round").asInt()).isEqualTo(2);
        assertThat(array.get(2).get("rtt_ns").get("p50").asLong()).isEqualTo(results.get(3).rtt().getValueAtPercentile(50));
        assertThatThrownBy(() -> JsonResults.toJson(results, List.of(1, 1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5 runs but 2 rounds");
    }
}
