package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import dev.peregrine.bench.testing.TinyJson;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JsonResultsTest {
    @Test
    @SuppressWarnings("unchecked")
    void shouldWriteTheFoundationSchemaForOneRun() {
        final RunResult result = Fixtures.result("tcp", "tcp", true, 256, 10_000);

        final Object parsed = TinyJson.parse(JsonResults.toJson(List.of(result)));

        assertThat(parsed).isInstanceOf(Map.class);
        final Map<String, Object> json = (Map<String, Object>)parsed;
        assertThat(json.keySet()).containsExactly("transport", "size", "messages", "rate", "rtt_ns",
            "allocated_bytes_per_message", "scenario", "clients", "throughput_msgs_per_s", "status", "note");
        assertThat(json).containsEntry("transport", "tcp").containsEntry("size", 256.0)
            .containsEntry("messages", 1000.0).containsEntry("rate", null).containsEntry("scenario", "pingpong")
            .containsEntry("clients", 1.0).containsEntry("allocated_bytes_per_message", 0.0)
            .containsEntry("throughput_msgs_per_s", 50_000.0).containsEntry("status", "ok").containsEntry("note", null);
        final Map<String, Object> rtt = (Map<String, Object>)json.get("rtt_ns");
        assertThat(rtt.keySet()).containsExactly("mean", "p50", "p90", "p99", "p99_9", "p99_99", "p99_999", "max");
        assertThat((Double)rtt.get("p50")).isBetween(10_490.0, 10_510.0);
        assertThat((Double)rtt.get("max")).isBetween(10_990.0, 11_010.0);
        assertThat((Double)rtt.get("mean")).isBetween(10_490.0, 10_510.0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldWriteAnArrayForSeveralRunsAndLeaveOutRunsWithoutNumbers() {
        final RunResult failed = RunResult.withoutNumbers("pingpong", "aeron-udp", "udp", false, 32, 0, 1,
            RunResult.Status.UNAVAILABLE, "needs \"more\" cores\n");
        final RunResult rated = new RunResult("load", "nio", "tcp", false, 32, 5000, 10_000, 5,
            Fixtures.histogram(20_000), 49_999.5, Double.NaN, Double.NaN, RuntimeCounters.UNKNOWN,
            RuntimeCounters.UNKNOWN, RunResult.Status.PARTIAL, "3 of 5003 messages lost");

        final Object parsed = TinyJson.parse(JsonResults.toJson(
            List.of(Fixtures.result("tcp", "tcp", true, 32, 10_000), failed, rated)));

        assertThat(parsed).isInstanceOf(List.class);
        final List<Map<String, Object>> runs = (List<Map<String, Object>>)parsed;
        assertThat(runs).hasSize(2);
        assertThat(runs.get(1)).containsEntry("rate", 10_000.0).containsEntry("clients", 5.0)
            .containsEntry("scenario", "load").containsEntry("allocated_bytes_per_message", null)
            .containsEntry("status", "partial").containsEntry("note", "3 of 5003 messages lost");
    }

    @Test
    void shouldEscapeStrings() {
        assertThat(TinyJson.parse(JsonResults.string("a\"b\\c\nd\u0001"))).isEqualTo("a\"b\\c\nd\u0001");
    }

    @Test
    void shouldWriteAnEmptyArrayWhenNothingWasMeasured() {
        assertThat(TinyJson.parse(JsonResults.toJson(List.of()))).isEqualTo(List.of());
    }
}
