package dev.peregrine.bench.report;

import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.RunResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class HtmlReportTest {
    static HtmlReport.Data sample() {
        final List<RunResult> results = List.of(Fixtures.result("tcp", "tcp", true, 256, 10_000),
            Fixtures.result("netty", "tcp", false, 256, 20_000), Fixtures.result("shm", "shm", true, 256, 1_000),
            RunResult.withoutNumbers("pingpong", "aeron-udp", "udp", false, 256, 0, 1, RunResult.Status.UNAVAILABLE,
                "Aeron UDP needs <3> cores"));
        final List<FloorResult> floors = FloorResult.parseAll(
            "tcp-c size=256 rtt ns: p50=10871 p90=12307 p99=26631 p99.9=41129 p99.99=150637 max=187954\n"
                + "shm-c rtt ns: p50=467 p90=500 p99=633 p99.9=2897 p99.99=48702 max=168499");
        return new HtmlReport.Data("./peregrine bench compare --size 256", Map.of("sizes", "[256]"),
            MachineInfo.describe(),
            List.of(new HtmlReport.TransportInfo("tcp", "tcp", true, "Peregrine TCP, busy-spin reactor", null),
                new HtmlReport.TransportInfo("aeron-udp", "udp", false, "Aeron 1.51 embedded driver", "Aeron UDP needs <3> cores")),
            results, List.of(Summary.pingpong(results, floors)), floors, "floor: 2 lines", List.of("a note"));
    }

    @Test
    void shouldDrawOneSeriesPathPerMeasuredTransportInTheChartOfItsPath() {
        final String html = HtmlReport.render(sample());

        assertThat(html).contains("data-scenario=\"pingpong\" data-series=\"2\"", "aria-label=\"pingpong tcp size=256\"",
            "data-scenario=\"pingpong\" data-series=\"1\"", "aria-label=\"pingpong shm size=256\"");
        final Matcher paths = Pattern.compile("<path class=\"series\" data-transport=\"([^\"]+)\"[^>]* d=\"(M[^\"]+)\"")
            .matcher(html);
        final List<String> transports = new java.util.ArrayList<>();
        while (paths.find()) {
            transports.add(paths.group(1));
            assertThat(paths.group(2).split(" L").length).isGreaterThan(5);
        }
        assertThat(transports).containsExactly("tcp", "netty", "shm");
        assertThat(html).contains("<path class=\"floor\" data-floor=\"tcp-c\"", "<path class=\"floor\" data-floor=\"shm-c\"");
    }

    @Test
    void shouldBeSelfContainedAndEscaped() {
        final String html = HtmlReport.render(sample());

        assertThat(html).doesNotContain("<link", "src=\"http", "src='http", "@import", "url(http");
        assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://", "https://");
        assertThat(html).contains("Aeron UDP needs &lt;3&gt; cores").doesNotContain("<3>");
    }

    @Test
    void shouldShowTheMachineCommandFloorAndConfiguration() {
        final String html = HtmlReport.render(sample());

        assertThat(html).contains("./peregrine bench compare --size 256", "Peregrine TCP, busy-spin reactor",
            "Aeron 1.51 embedded driver", "tcp-c", "JDK", "Kernel", "CPU", "JIT 12 ms");
    }

    @Test
    void shouldPlacePercentilesOnTheNinesAxis() {
        assertThat(PercentileChart.nines(0)).isEqualTo(0.0);
        assertThat(PercentileChart.nines(90)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(PercentileChart.nines(99.9)).isCloseTo(3.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(PercentileChart.nines(100)).isEqualTo(PercentileChart.MAX_NINES);
        assertThat(PercentileChart.nines(99.999999999)).isEqualTo(PercentileChart.MAX_NINES);
    }
}
