package dev.peregrine.bench.report;

import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyTableTest {
    @Test
    void shouldPrintOneWayAndRoundTripRowsInMicroseconds() {
        final String table = LatencyTable.format(Fixtures.result("tcp", "tcp", true, 256, 10_000));
        final List<String> lines = table.lines().toList();

        assertThat(lines.get(0)).contains("transport=tcp", "size=256", "one message in flight");
        assertThat(lines.get(1)).contains("~ one way", "round trip");
        final List<String> labels = lines.subList(2, 10).stream().map(l -> l.trim().split("\\s+")[0]).toList();
        assertThat(labels).containsExactly("mean", "p50", "p90", "p99", "p99.9", "p99.99", "p99.999", "max");
        // p50 of 10000..10999 ns is ~10.5 us round trip, ~5.25 us one way
        assertThat(lines.get(3)).matches("\\s+p50\\s+5\\.2\\d\\d us\\s+10\\.5\\d\\d us");
        assertThat(table).contains("measurements: 1000").contains("allocated per message: client 0.00 B, responder n/a")
            .contains("client JVM JIT 12 ms, GC 0 (0 ms)").contains("responder JVM n/a");
    }

    @Test
    void shouldPrintTheReasonInsteadOfNumbersForAFailedRun() {
        final String table = LatencyTable.format(RunResult.withoutNumbers("pingpong", "netty", "tcp", false, 32, 0, 1,
            RunResult.Status.FAILED, "connection refused"));

        assertThat(table).contains("FAILED: connection refused").doesNotContain(" us");
    }

    @Test
    void shouldGroupTheSummaryByPathWithRatiosToTheBestPeerAndTheFloor() {
        final List<RunResult> results = List.of(Fixtures.result("tcp", "tcp", true, 256, 10_000),
            Fixtures.result("netty", "tcp", false, 256, 20_000), Fixtures.result("socket", "tcp", false, 256, 40_000),
            Fixtures.result("shm", "shm", true, 256, 1_000),
            RunResult.withoutNumbers("pingpong", "aeron-udp", "udp", false, 256, 0, 1,
                RunResult.Status.UNAVAILABLE, "needs more cores"));
        final List<FloorResult> floors = List.of(
            FloorResult.parse("tcp-c size=256 rtt ns: p50=10000 p90=12307 p99=26631 p99.9=41129 p99.99=150637 max=187954"));

        final String text = Summary.pingpong(results, floors).toText();

        assertThat(text).contains("[tcp]", "[udp]", "[shm]");
        assertThat(text.indexOf("[tcp]")).isLessThan(text.indexOf("[udp]"));
        assertThat(text.indexOf("[udp]")).isLessThan(text.indexOf("[shm]"));
        final String tcpRow = text.lines().filter(l -> l.startsWith("tcp *")).findFirst().orElseThrow();
        assertThat(tcpRow).contains("0.51x (netty)").contains("1.05x");
        assertThat(text).contains("UNAVAILABLE: needs more cores").contains("floor tcp-c (C)");
    }

    @Test
    void shouldNameThePeriodAnsweredAndTheRateSustainedBesideTheRateOffered() {
        final RunResult result = new RunResult("load", "peregrine-tcp", "tcp", true, 24, 5000, 1_000_000, 1,
            Fixtures.histogram(1_000), 1000.0, 0.0, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN,
            RunResult.Status.PARTIAL, "could not keep up: sustained 812346 msg/s of 1000000 offered")
            .withSending(1000, 812_345.678);

        final String table = LatencyTable.format(result);

        assertThat(table).startsWith("load: transport=peregrine-tcp size=24 rate=1000000 msg/s per client (latency from"
            + " intended send time) respond-every=1000 (latency of the answered messages)\n");
        assertThat(table).contains("  PARTIAL: could not keep up: sustained 812346 msg/s of 1000000 offered\n");
        assertThat(table).contains("  sustained: 812346 msg/s per client of 1000000 offered (81.2%)\n");
        assertThat(Summary.load(List.of(result)).toText())
            .containsPattern("peregrine-tcp \\* +24 +1 +1000000/1000 +812346 +1\\.499 ");
    }
}
