package dev.peregrine.bench.report;

import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RuntimeCounters;
import dev.peregrine.bench.run.StreamFloor;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The report's pictures of the three scenarios, from synthetic results: what each chart draws, its labels,
 * legend and floor marker, and that no two series of a chart share a colour.
 */
class ReportChartsTest {
    private static final Pattern SVG = Pattern.compile(
        "<svg class=\"chart\" data-kind=\"\\w+\" data-scenario=\"(\\w+)\".*?</svg>", Pattern.DOTALL);

    static RunResult pingpong(final String transport, final String path, final boolean peregrine, final long base) {
        return Fixtures.result(transport, path, peregrine, 256, base);
    }

    static RunResult load(final String transport, final String path, final long rate, final long base,
                          final RunResult.Status status) {
        return new RunResult("load", transport, path, transport.startsWith("peregrine"), 256, 1000, rate, 5,
            Fixtures.histogram(base), rate * 5.0, 0.0, 0.0, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, status,
            null);
    }

    static RunResult throughput(final String transport, final String path, final int size, final double rate) {
        return new RunResult("throughput", transport, path, transport.startsWith("peregrine"), size, 1000, 0, 1, null,
            rate, 0.0, 0.0, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, RunResult.Status.OK, null);
    }

    static StreamFloor.Outcome streamFloor(final int size, final double framesPerSecond) {
        return new StreamFloor.Outcome(size, "stream " + size + " 2", new StreamFloor(size, framesPerSecond,
            framesPerSecond * (size + 4)), null);
    }

    /** Ping-pong on all three paths, load of three transports at three rates, throughput over three rounds. */
    static HtmlReport.Data allScenarios() {
        final List<RunResult> results = new ArrayList<>(List.of(
            pingpong("peregrine-tcp", "tcp", true, 10_000), pingpong("netty", "tcp", false, 20_000),
            pingpong("nio", "tcp", false, 15_000), pingpong("socket", "tcp", false, 14_000),
            pingpong("peregrine-udp", "udp", true, 12_000), pingpong("aeron-udp", "udp", false, 13_000),
            pingpong("peregrine-shm", "shm", true, 500), pingpong("aeron-ipc", "shm", false, 700)));
        for (final long rate : new long[] {1_000, 10_000, 100_000}) {
            results.add(load("peregrine-tcp", "tcp", rate, 10_000 + rate, RunResult.Status.OK));
            results.add(load("netty", "tcp", rate, 20_000 + rate, RunResult.Status.OK));
            results.add(load("peregrine-shm", "shm", rate, 1_000 + rate,
                rate == 100_000 ? RunResult.Status.PARTIAL : RunResult.Status.OK));
        }
        final List<StreamFloor.Outcome> floors = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            results.add(throughput("peregrine-tcp", "tcp", 256, 1_000_000 + round * 100_000));
            results.add(throughput("netty", "tcp", 256, 400_000 + round * 50_000));
            results.add(throughput("peregrine-shm", "shm", 256, 5_000_000 + round * 200_000));
            floors.add(streamFloor(256, 2_000_000 + round * 100_000));
        }
        final List<FloorResult> floorLines = FloorResult.parseAll(
            "tcp-c size=256 rtt ns: p50=10871 p90=12307 p99=26631 p99.9=41129 p99.99=150637 max=187954\n"
                + "udp-c size=256 rtt ns: p50=9871 p90=11307 p99=25631 p99.9=40129 p99.99=140637 max=177954\n"
                + "shm-c rtt ns: p50=467 p90=500 p99=633 p99.9=2897 p99.99=48702 max=168499");
        final List<ThroughputRows.Row> rows = ThroughputRows.of(results, floors);
        return new HtmlReport.Data("./peregrine bench compare --full", Map.of("sizes", "[256]"), Map.of("CPU", "test"),
            List.of(), results, List.of(Summary.pingpong(results, floorLines), Summary.load(results),
                Summary.throughput(rows, Batch.ofMessages(64))), floorLines, "floor: 3 lines", List.of(), rows);
    }

    /** Each chart of the report as kind and SVG text, in page order. */
    static List<String[]> charts(final String html) {
        final List<String[]> charts = new ArrayList<>();
        final Matcher m = SVG.matcher(html);
        while (m.find()) {
            charts.add(new String[] {m.group(1), m.group()});
        }
        return charts;
    }

    private static List<String> all(final String regex, final String text) {
        final List<String> found = new ArrayList<>();
        final Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    private static List<String> ofKind(final String html, final String scenario, final String kind) {
        return charts(html).stream().filter(c -> c[0].equals(scenario) && c[1].contains("data-kind=\"" + kind + "\""))
            .map(c -> c[1]).toList();
    }

    @Test
    void shouldDrawPingPongAsOneChartPerPathWithThatPathsFloor() {
        final List<String> charts = ofKind(HtmlReport.render(allScenarios()), "pingpong", "percentiles");

        assertThat(charts).hasSize(3);
        assertThat(all("data-transport=\"([^\"]+)\"", charts.get(0)))
            .containsExactly("peregrine-tcp", "netty", "nio", "socket");
        assertThat(all("data-transport=\"([^\"]+)\"", charts.get(1))).containsExactly("peregrine-udp", "aeron-udp");
        assertThat(all("data-transport=\"([^\"]+)\"", charts.get(2))).containsExactly("peregrine-shm", "aeron-ipc");
        assertThat(all("data-floor=\"([^\"]+)\"", charts.get(0))).containsExactly("tcp-c");
        assertThat(all("data-floor=\"([^\"]+)\"", charts.get(1))).containsExactly("udp-c");
        assertThat(all("data-floor=\"([^\"]+)\"", charts.get(2))).containsExactly("shm-c");
        assertThat(charts.get(0)).contains("class=\"title\">pingpong tcp size=256</text>", "data-series=\"4\"");
    }

    @Test
    void shouldDrawLoadAsP50P99AndP999AgainstRateWithOneLinePerTransport() {
        final List<String> charts = ofKind(HtmlReport.render(allScenarios()), "load", "rate");

        assertThat(charts).hasSize(3);
        assertThat(charts.get(0)).contains("load size=256, 5 clients: p50 round trip against offered rate");
        assertThat(charts.get(1)).contains(": p99 round trip");
        assertThat(charts.get(2)).contains(": p99.9 round trip");
        for (final String chart : charts) {
            assertThat(chart).contains("data-series=\"3\"", "offered rate per client (msg/s, log scale)",
                "round-trip latency (us, log scale)", "class=\"legend\"", "hollow point: partial run");
            assertThat(all("<g class=\"series\" data-transport=\"([^\"]+)\"", chart))
                .containsExactly("peregrine-tcp", "netty", "peregrine-shm");
            assertThat(all("<circle class=\"point\" data-rate=\"(\\d+)\"", chart)).containsExactly(
                "1000", "10000", "100000", "1000", "10000", "100000", "1000", "10000", "100000");
            // each line has a point per rate, joined left to right
            for (final String d : all("<g class=\"series\"[^>]*><path [^>]* d=\"([^\"]+)\"", chart)) {
                assertThat(d.split(" L")).hasSize(3);
            }
        }
    }

    @Test
    void shouldDrawHigherLatencyHigherOnTheLoadChart() {
        final RunResult slow = load("netty", "tcp", 1_000, 100_000, RunResult.Status.OK);
        final RunResult fast = load("peregrine-tcp", "tcp", 1_000, 10_000, RunResult.Status.OK);
        final String chart = LoadChart.svg("t", 5, LoadChart.lines(List.of(fast, slow), 99));

        final List<String> ys = all("<circle class=\"point\" data-rate=\"1000\" cx=\"[0-9.]+\" cy=\"([0-9.]+)\"", chart);
        assertThat(ys).hasSize(2);
        // SVG's y grows downwards
        assertThat(Double.parseDouble(ys.get(0))).isGreaterThan(Double.parseDouble(ys.get(1)));
    }

    @Test
    void shouldDrawThroughputAsBarsWithWhiskersAndTheStreamFloor() {
        final List<String> charts = ofKind(HtmlReport.render(allScenarios()), "throughput", "bars");

        assertThat(charts).hasSize(1);
        final String chart = charts.get(0);
        assertThat(all("<rect class=\"series bar\" data-transport=\"([^\"]+)\"", chart))
            .containsExactly("peregrine-tcp", "netty", "peregrine-shm");
        assertThat(all("<rect class=\"series bar\" data-transport=\"[^\"]+\" data-colour=\"[^\"]+\" data-median=\"(\\d+)\"",
            chart)).containsExactly("1100000", "450000", "5200000");
        assertThat(all("<g class=\"whisker\" data-transport=\"([^\"]+)\"", chart))
            .containsExactly("peregrine-tcp", "netty", "peregrine-shm");
        assertThat(chart).contains("<line class=\"floor\" data-floor=\"tcp-stream-c\" data-median=\"2100000\"",
            "median of 3 rounds", "messages per second", "payload MB/s (256 bytes x messages/s)",
            "floor tcp-stream-c (C)", "slowest to fastest round");
    }

    @Test
    void shouldLeaveTheFloorAndWhiskersOutWhenThereAreNone() {
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(throughput("peregrine-tcp", "tcp", 64, 1e6),
            throughput("nio", "tcp", 64, 5e5)), List.of());

        final String chart = ThroughputChart.svg(64, rows);

        assertThat(all("<rect class=\"series bar\" data-transport=\"([^\"]+)\"", chart)).containsExactly("peregrine-tcp", "nio");
        assertThat(chart).doesNotContain("class=\"floor\"", "class=\"whisker\"", "rounds")
            .contains("no tcp-stream-c floor at this size");
    }

    @Test
    void shouldLeaveTheFloorOutWhenItWasSkipped() {
        final List<ThroughputRows.Row> rows = ThroughputRows.of(List.of(throughput("nio", "tcp", 64, 5e5)),
            List.of(new StreamFloor.Outcome(64, null, null, "no C compiler")));

        assertThat(ThroughputChart.svg(64, rows)).doesNotContain("class=\"floor\"");
    }

    @Test
    void shouldGiveEverySeriesOfAChartItsOwnColour() {
        final List<RunResult> results = new ArrayList<>();
        for (int i = 0; i < 14; i++) {
            results.add(pingpong("t" + i, "tcp", false, 10_000 + i * 1000L));
            results.add(load("t" + i, "tcp", 1000, 10_000 + i * 1000L, RunResult.Status.OK));
            results.add(throughput("t" + i, "tcp", 256, 1e5 * (i + 1)));
        }
        final HtmlReport.Data many = new HtmlReport.Data("c", Map.of(), Map.of(), List.of(), results, List.of(),
            FloorResult.parseAll("tcp-c size=256 rtt ns: p50=10871 p90=12307 p99=26631 p99.9=41129 p99.99=150637 max=187954"),
            "", List.of(), ThroughputRows.of(results, List.of(streamFloor(256, 3e6))));
        final List<String[]> charts = new ArrayList<>(charts(HtmlReport.render(many)));
        charts.addAll(charts(HtmlReport.render(allScenarios())));

        assertThat(charts).extracting(c -> c[0]).contains("pingpong", "load", "throughput");
        for (final String[] chart : charts) {
            final List<String> colours = all("data-colour=\"(#[0-9a-f]{6})\"", chart[1]);
            assertThat(colours).as(chart[1].substring(0, 200)).isNotEmpty().doesNotHaveDuplicates();
            final int series = Integer.parseInt(all("data-series=\"(\\d+)\"", chart[1]).get(0));
            assertThat(all("class=\"(?:series[^\"]*)\" data-transport=\"[^\"]+\" data-colour=\"(#[0-9a-f]{6})\"", chart[1]))
                .hasSize(series);
        }
    }

    @Test
    void shouldGiveDistinctColoursToManySeries() {
        final Set<String> colours = new HashSet<>();
        for (int i = 0; i < 256; i++) {
            assertThat(ChartPalette.colour(i)).matches("#[0-9a-f]{6}");
            colours.add(ChartPalette.colour(i));
        }
        assertThat(colours).hasSize(256).doesNotContain("#333333", "#8c6d31", "#7b4173", "#777777", "#ffffff");
    }

    @Test
    void shouldTitleLabelAndLegendEveryChart() {
        for (final String[] chart : charts(HtmlReport.render(allScenarios()))) {
            assertThat(all("class=\"title\">([^<]+)<", chart[1])).hasSize(1);
            assertThat(all("class=\"axis-label\"[^>]*>([^<]+)<", chart[1])).hasSizeGreaterThanOrEqualTo(2)
                .allMatch(label -> label.contains("(") || label.equals("transport"));
            assertThat(chart[1]).contains("<g class=\"legend\">");
        }
    }

    @Test
    void shouldSayThereIsNothingToDrawWithoutMeasurements() {
        final List<RunResult> results = List.of(RunResult.withoutNumbers("pingpong", "nio", "tcp", false, 256, 0, 1,
            RunResult.Status.FAILED, "refused"));
        final String html = HtmlReport.render(new HtmlReport.Data("c", Map.of(), Map.of(), List.of(), results,
            List.of(), List.of(), "", List.of()));

        assertThat(html).contains("Nothing was measured").doesNotContain("<svg");
    }

    @Test
    void shouldGroupARunWithoutAPathUnderOther() {
        final Histogram h = Fixtures.histogram(1000);
        final RunResult noPath = new RunResult("pingpong", "mystery", "", false, 256, 1000, 0, 1, h, 1.0, 0.0, 0.0,
            RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, RunResult.Status.OK, null);

        assertThat(HtmlReport.chartPath(noPath)).isEqualTo("other");
        assertThat(HtmlReport.chartPath(pingpong("aeron-ipc", "shm", false, 1))).isEqualTo("shm");
    }
}
