package dev.peregrine.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import dev.peregrine.bench.run.StreamFloor;
import dev.peregrine.bench.testing.Json;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JsonResultsTest {
    @Test
    void shouldWriteTheFoundationSchemaForOneRun() {
        final RunResult result = Fixtures.result("tcp", "tcp", true, 256, 10_000);

        final JsonNode json = Json.parse(JsonResults.toJson(List.of(result)));

        assertThat(json.isObject()).isTrue();
        assertThat(names(json)).containsExactly("transport", "size", "messages", "rate", "rtt_ns",
            "allocated_bytes_per_message", "scenario", "clients", "throughput_msgs_per_s", "status", "note");
        assertThat(json.get("transport").asText()).isEqualTo("tcp");
        assertThat(json.get("size").asInt()).isEqualTo(256);
        assertThat(json.get("messages").asLong()).isEqualTo(1000);
        assertThat(json.get("rate").isNull()).isTrue();
        assertThat(json.get("scenario").asText()).isEqualTo("pingpong");
        assertThat(json.get("clients").asInt()).isEqualTo(1);
        assertThat(json.get("allocated_bytes_per_message").asDouble()).isEqualTo(0.0);
        assertThat(json.get("throughput_msgs_per_s").asDouble()).isEqualTo(50_000.0);
        assertThat(json.get("status").asText()).isEqualTo("ok");
        assertThat(json.get("note").isNull()).isTrue();
        final JsonNode rtt = json.get("rtt_ns");
        assertThat(names(rtt)).containsExactly("mean", "p50", "p90", "p99", "p99_9", "p99_99", "p99_999", "max");
        assertThat(rtt.get("p50").asLong()).isBetween(10_490L, 10_510L);
        assertThat(rtt.get("max").asLong()).isBetween(10_990L, 11_010L);
        assertThat(rtt.get("mean").asDouble()).isBetween(10_490.0, 10_510.0);
    }

    @Test
    void shouldWriteAnArrayForSeveralRunsAndLeaveOutRunsWithoutNumbers() {
        final RunResult failed = RunResult.withoutNumbers("pingpong", "aeron-udp", "udp", false, 32, 0, 1,
            RunResult.Status.UNAVAILABLE, "needs \"more\" cores\n");
        final RunResult rated = new RunResult("load", "nio", "tcp", false, 32, 5000, 10_000, 5,
            Fixtures.histogram(20_000), 49_999.5, Double.NaN, Double.NaN, RuntimeCounters.UNKNOWN,
            RuntimeCounters.UNKNOWN, RunResult.Status.PARTIAL, "3 of 5003 messages lost");

        final JsonNode runs = Json.parse(JsonResults.toJson(
            List.of(Fixtures.result("tcp", "tcp", true, 32, 10_000), failed, rated)));

        assertThat(runs.isArray()).isTrue();
        assertThat(runs.size()).isEqualTo(2);
        final JsonNode load = runs.get(1);
        assertThat(load.get("rate").asLong()).isEqualTo(10_000);
        assertThat(load.get("clients").asInt()).isEqualTo(5);
        assertThat(load.get("scenario").asText()).isEqualTo("load");
        assertThat(load.get("allocated_bytes_per_message").isNull()).isTrue();
        assertThat(load.get("status").asText()).isEqualTo("partial");
        assertThat(load.get("note").asText()).isEqualTo("3 of 5003 messages lost");
    }

    @Test
    void shouldEscapeStrings() {
        final RunResult quoted = new RunResult("pingpong", "a\"b\\c\nd\u0001", "tcp", true, 32, 1000, 0, 1,
            Fixtures.histogram(10_000), 1.0, 0.0, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN,
            RunResult.Status.OK, "\t\"x\"");

        final JsonNode json = Json.parse(JsonResults.toJson(List.of(quoted)));

        assertThat(json.get("transport").asText()).isEqualTo("a\"b\\c\nd\u0001");
        assertThat(json.get("note").asText()).isEqualTo("\t\"x\"");
    }

    @Test
    void shouldWriteAnEmptyArrayWhenNothingWasMeasured() {
        final JsonNode json = Json.parse(JsonResults.toJson(List.of()));

        assertThat(json.isArray()).isTrue();
        assertThat(json.size()).isZero();
    }

    /**
     * The bytes the hand-written writer produced before Jackson (golden files kept under test resources): field
     * names, order, nesting, nulls, decimals with fixed places and no exponent, escapes and one run per line.
     */
    @Test
    void shouldWriteTheSameBytesAsTheHandWrittenWriterDid() throws IOException {
        final RunResult ping = Fixtures.result("tcp", "tcp", true, 256, 10_000);
        final RunResult load = new RunResult("load", "n\"i\\o\t\u0001é", "tcp", false, 32, 5000, 10_000, 5,
            Fixtures.histogram(20_000), 123_456_789.25, 0.125, Double.NaN, RuntimeCounters.UNKNOWN,
            RuntimeCounters.UNKNOWN, RunResult.Status.PARTIAL, "3 of 5003\nlost");
        final RunResult asymmetric = new RunResult("pingpong", "tcp", "tcp", true, 16, 100, 0, 1,
            Fixtures.histogram(1_000), 50_000.0, 0.0, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN,
            RunResult.Status.OK, null, 1024);

        assertThat(JsonResults.toJson(List.of(ping))).isEqualTo(golden("golden-a.json"));
        assertThat(JsonResults.toJson(List.of(ping, load, asymmetric))).isEqualTo(golden("golden-abc.json"));
        assertThat(JsonResults.toJson(List.of())).isEqualTo(golden("golden-empty.json"));
        assertThat(JsonResults.throughput(throughputRows(), Batch.ofMessages(16))).isEqualTo(golden("golden-tp.json"));
    }

    /**
     * A load run's sustained rate after {@code rate}, and the responder's period when it answered every Nth message
     * (golden bytes written by hand from the layout above, not by this writer).
     */
    @Test
    void shouldNameTheRateSustainedBesideTheRateOfferedAndThePeriodAnswered() throws IOException {
        final RunResult respondEvery = new RunResult("load", "peregrine-tcp", "tcp", true, 24, 5000, 1_000_000, 1,
            Fixtures.histogram(1_000), 1000.0, 0.0, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN,
            RunResult.Status.PARTIAL, "could not keep up: sustained 812346 msg/s of 1000000 offered")
            .withSending(1000, 812_345.678);
        final RunResult everyMessage = new RunResult("load", "nio", "tcp", false, 64, 1000, 10_000, 5,
            Fixtures.histogram(1_000), 50_000.0, 0.0, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN,
            RunResult.Status.OK, null).withSending(1, 10_000.0);

        assertThat(JsonResults.toJson(List.of(respondEvery, everyMessage))).isEqualTo(golden("golden-respond.json"));
    }

    private static List<ThroughputRows.Row> throughputRows() {
        final Histogram recovery = new Histogram(3);
        recovery.recordValue(1500);
        recovery.recordValue(2500);
        final RunResult netty = new RunResult("throughput", "netty", "tcp", false, 32, 1000, 0, 1, null,
            12_345_678.9, 0.0, 0.5, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, RunResult.Status.OK, null);
        final List<ThroughputRows.Row> rows = new ArrayList<>(ThroughputRows.of(List.of(netty), List.of(
            new StreamFloor.Outcome(32, "stream 32 2", new StreamFloor(32, 98_765_432.1, 98_765_432.1 * 36), null),
            new StreamFloor.Outcome(64, null, null, "no \"program\""))));
        final String path = rows.get(1).path();
        rows.add(new ThroughputRows.Row("mold", path, true, false, 32, 1, List.of(1000.0), 1000, 0.0, 0.0,
            RunResult.Status.OK, null, recovery));
        rows.add(new ThroughputRows.Row("mold2", path, true, false, 32, 1, List.of(1000.0), 1000, 0.0, 0.0,
            RunResult.Status.OK, null, new Histogram(3)));
        return rows;
    }

    private static List<String> names(final JsonNode object) {
        return object.properties().stream().map(Map.Entry::getKey).toList();
    }

    private static String golden(final String name) throws IOException {
        try (InputStream in = JsonResultsTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
