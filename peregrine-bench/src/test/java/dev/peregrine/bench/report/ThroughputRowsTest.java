package dev.peregrine.bench.report;

import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import dev.peregrine.bench.run.StreamFloor;
import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ThroughputRowsTest {
    private static RunResult run(final String transport, final boolean peregrine, final int size, final double rate,
                                 final RunResult.Status status, final String note) {
        return new RunResult("throughput", transport, "tcp", peregrine, size, 1000, 0, 1, null, rate, 0.0, 0.5,
            RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, status, note);
    }

    private static RunResult ok(final String transport, final boolean peregrine, final int size, final double rate) {
        return run(transport, peregrine, size, rate, RunResult.Status.OK, null);
    }

    private static StreamFloor.Outcome floor(final int size, final double framesPerSecond) {
        return new StreamFloor.Outcome(size, "stream " + size + " 2", new StreamFloor(size, framesPerSecond,
            framesPerSecond * (size + 4)), null);
    }

    @Test
    void shouldTakeTheMiddleValueOrTheMeanOfTheTwoMiddleOnes() {
        assertThat(ThroughputRows.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
        assertThat(ThroughputRows.median(List.of(4.0, 1.0, 3.0, 10.0))).isEqualTo(3.5);
        assertThat(ThroughputRows.median(List.of(7.0))).isEqualTo(7.0);
        assertThat(ThroughputRows.median(List.of())).isNaN();
    }

    @Test
    void shouldReduceTheRoundsOfEachTransportAndSizeToMedianAndRange() {
        final List<RunResult> results = List.of(
            ok("peregrine-tcp", true, 32, 300), ok("netty", false, 32, 100),
            ok("peregrine-tcp", true, 32, 100), ok("netty", false, 32, 120),
            ok("peregrine-tcp", true, 32, 200), ok("netty", false, 32, 80),
            ok("netty", false, 256, 50));

        final List<ThroughputRows.Row> rows = ThroughputRows.of(results, List.of(floor(32, 1000), floor(32, 2000),
            floor(32, 1500)));

        assertThat(rows).extracting(ThroughputRows.Row::transport, ThroughputRows.Row::size, ThroughputRows.Row::rounds,
            ThroughputRows.Row::median, ThroughputRows.Row::min, ThroughputRows.Row::max).containsExactly(
                org.assertj.core.groups.Tuple.tuple("tcp-stream-c", 32, 3, 1500.0, 1000.0, 2000.0),
                org.assertj.core.groups.Tuple.tuple("peregrine-tcp", 32, 3, 200.0, 100.0, 300.0),
                org.assertj.core.groups.Tuple.tuple("netty", 32, 3, 100.0, 80.0, 120.0),
                org.assertj.core.groups.Tuple.tuple("netty", 256, 1, 50.0, 50.0, 50.0));
        assertThat(rows.get(1).messages()).isEqualTo(3000);
        assertThat(rows.get(1).bytesPerSecond()).isEqualTo(200.0 * 32);
        assertThat(ThroughputRows.floorFor(rows, 32)).isSameAs(rows.get(0));
        assertThat(ThroughputRows.floorFor(rows, 256)).isNull();
    }

    @Test
    void shouldTakeTheMedianOfTheRoundsThatMeasuredAndMarkTheRowPartial() {
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(
            ok("nio", false, 32, 100),
            run("nio", false, 32, Double.NaN, RunResult.Status.FAILED, "sequence gap: expected=5 got=7"),
            ok("nio", false, 32, 300)), List.of());

        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).rounds()).isEqualTo(3);
        assertThat(rows.get(0).median()).isEqualTo(200.0);
        assertThat(rows.get(0).status()).isEqualTo(RunResult.Status.PARTIAL);
        assertThat(rows.get(0).note()).isEqualTo("sequence gap: expected=5 got=7");
    }

    @Test
    void shouldMakeASkippedFloorRowWithTheReason() {
        final ThroughputRows.Row row = ThroughputRows.floorRow(64, List.of(
            new StreamFloor.Outcome(64, null, null, "no ../shared/floor/stream next to the repository")));

        assertThat(row.measured()).isFalse();
        assertThat(row.status()).isEqualTo(RunResult.Status.UNAVAILABLE);
        assertThat(row.note()).isEqualTo("skipped: no ../shared/floor/stream next to the repository");
    }

    @Test
    void shouldShowTheFloorRowFramesBytesAndTheRatioToTheFloorInTheTable() {
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(
            ok("peregrine-tcp", true, 32, 500_000), ok("netty", false, 32, 250_000),
            ok("peregrine-tcp", true, 32, 700_000), ok("netty", false, 32, 350_000)),
            List.of(floor(32, 1_000_000), floor(32, 1_000_000)));

        final String text = Summary.throughput(rows, Batch.ofMessages(64)).toText();

        assertThat(text).contains("batches of 64 messages", "/ tcp-stream-c", "MB/s");
        assertThat(line(text, "tcp-stream-c (C)")).contains("32", "1000000", "32.0", "1.00x", "floor");
        assertThat(line(text, "peregrine-tcp *")).contains("600000", "500000 - 700000", "19.2", "0.60x", "ok");
        assertThat(line(text, "netty ")).contains("300000", "250000 - 350000", "9.6", "0.30x");
    }

    @Test
    void shouldShowWhyTheFloorWasSkippedAndNoRatio() {
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(ok("nio", false, 32, 1000)),
            List.of(new StreamFloor.Outcome(32, null, null, "not run (--no-stream-floor)")));

        final String text = Summary.throughput(rows, Batch.ofMessages(256)).toText();

        assertThat(line(text, "tcp-stream-c (C)")).contains("skipped: not run (--no-stream-floor)");
        assertThat(line(text, "nio ")).contains("1000", "n/a");
    }

    @Test
    void shouldWriteMedianRangeBytesAndRatioToJsonWithTheFloorRowFirst() {
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(
            ok("netty", false, 32, 100), ok("netty", false, 32, 300),
            run("socket", false, 32, Double.NaN, RunResult.Status.FAILED, "refused")),
            List.of(floor(32, 400), floor(32, 400)));

        final List<JsonNode> json = Json.parse(JsonResults.throughput(rows, Batch.ofMessages(16))).valueStream().toList();

        assertThat(json).hasSize(2); // the failed socket row has no numbers
        final JsonNode floor = json.get(0);
        assertThat(floor.get("transport").asText()).isEqualTo("tcp-stream-c");
        assertThat(floor.get("floor").asBoolean()).isTrue();
        assertThat(floor.get("throughput_msgs_per_s").asDouble()).isEqualTo(400.0);
        assertThat(floor.get("ratio_to_tcp_stream_c").asDouble()).isEqualTo(1.0);
        assertThat(floor.get("batch").isNull()).isTrue();
        final JsonNode netty = json.get(1);
        assertThat(netty.get("transport").asText()).isEqualTo("netty");
        assertThat(netty.get("rounds").asInt()).isEqualTo(2);
        assertThat(netty.get("throughput_msgs_per_s").asDouble()).isEqualTo(200.0);
        assertThat(netty.get("throughput_msgs_per_s_min").asDouble()).isEqualTo(100.0);
        assertThat(netty.get("throughput_msgs_per_s_max").asDouble()).isEqualTo(300.0);
        assertThat(netty.get("bytes_per_s").asDouble()).isEqualTo(6400.0);
        assertThat(netty.get("ratio_to_tcp_stream_c").asDouble()).isEqualTo(0.5);
        assertThat(netty.get("batch").asInt()).isEqualTo(16);
        assertThat(netty.get("status").asText()).isEqualTo("ok");
        assertThat(netty.get("scenario").asText()).isEqualTo("throughput");
    }

    @Test
    void shouldWriteASkippedFloorToJsonWithItsReason() {
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(ok("nio", false, 32, 100)),
            List.of(new StreamFloor.Outcome(32, null, null, "no program")));

        final JsonNode json = Json.parse(JsonResults.throughput(rows, Batch.ofMessages(16)));

        assertThat(json.get(0).get("transport").asText()).isEqualTo("tcp-stream-c");
        assertThat(json.get(0).get("status").asText()).isEqualTo("skipped");
        assertThat(json.get(0).get("note").asText()).isEqualTo("skipped: no program");
        assertThat(json.get(0).get("throughput_msgs_per_s").isNull()).isTrue();
        assertThat(json.get(1).get("ratio_to_tcp_stream_c").isNull()).isTrue();
    }

    private static String line(final String text, final String start) {
        for (final String line : text.split("\n")) {
            if (line.strip().startsWith(start)) {
                return line;
            }
        }
        throw new AssertionError("no line starting with '" + start + "' in\n" + text);
    }
}
