package dev.peregrine.bench.report;

import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.PingPongLoop;
import dev.peregrine.bench.run.RunResult;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the charts put things: known values in, exact SVG coordinates and bar lengths out. Every expected number is
 * computed here from the chart's documented geometry (its frame in pixels and its scale: linear from zero to a round
 * top for throughput, whole decades of a log scale for latency, a quarter decade of margin around the offered rates
 * for load), never by calling the chart's own scale code.
 */
class ReportChartGeometryTest {
    private static String f1(final double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static List<String> all(final String regex, final String text) {
        final List<String> found = new ArrayList<>();
        final Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            found.add(m.groupCount() == 1 ? m.group(1) : m.group());
        }
        return found;
    }

    // ThroughputChart's frame: 980 wide, bars from x=190 to 980-230=750, the first bar's slot at y=90, 32 per bar
    // and 22 high (centred: 5 above); the axis runs from 0 to a round top (1, 2 or 5 x 10^n steps above 1.4 x the
    // largest rate): here the largest is the floor's 4 000 000, 1.4 x that is 5 600 000, the step 2 000 000, the top
    // 6 000 000.
    private static double throughputX(final double rate) {
        return 190 + rate / 6_000_000.0 * (750 - 190);
    }

    @Test
    void shouldDrawEachThroughputBarAsLongAsItsMedianOnALinearScaleFromZero() {
        final List<ThroughputRows.Row> rows = List.of(
            new ThroughputRows.Row("netty", "tcp", false, false, 64, 1, List.of(500_000.0), 1000, 0, 0,
                RunResult.Status.OK, null),
            new ThroughputRows.Row("peregrine-tcp", "tcp", true, false, 64, 3, List.of(3_000_000.0, 1_000_000.0, 2_000_000.0),
                3000, 0, 0, RunResult.Status.OK, null),
            new ThroughputRows.Row("tcp-stream-c", "tcp", false, true, 64, 1, List.of(4_000_000.0), 1000, Double.NaN,
                Double.NaN, RunResult.Status.OK, null));

        final String chart = ThroughputChart.svg(64, rows);

        // Peregrine's bar first: median 2 000 000 (the middle of three rounds given out of order), then netty's 500 000
        assertThat(all("<rect class=\"series bar\"[^>]*/>", chart)).containsExactly(
            "<rect class=\"series bar\" data-transport=\"peregrine-tcp\" data-colour=\"" + ChartPalette.colour(0)
                + "\" data-median=\"2000000\" x=\"190\" y=\"95.0\" width=\"" + f1(throughputX(2_000_000) - 190)
                + "\" height=\"22\" fill=\"" + ChartPalette.colour(0) + "\"/>",
            "<rect class=\"series bar\" data-transport=\"netty\" data-colour=\"" + ChartPalette.colour(1)
                + "\" data-median=\"500000\" x=\"190\" y=\"127.0\" width=\"" + f1(throughputX(500_000) - 190)
                + "\" height=\"22\" fill=\"" + ChartPalette.colour(1) + "\"/>");
        assertThat(f1(throughputX(2_000_000) - 190)).isEqualTo("186.7"); // 560 x 1/3, written out once
        // the whisker spans the slowest round to the fastest at the bar's middle (95 + 11); netty had one round
        final String from = f1(throughputX(1_000_000));
        final String to = f1(throughputX(3_000_000));
        assertThat(all("<g class=\"whisker\".*?</g>", chart)).containsExactly(
            "<g class=\"whisker\" data-transport=\"peregrine-tcp\" stroke=\"#222222\" stroke-width=\"1.5\">"
                + "<line x1=\"" + from + "\" y1=\"106.0\" x2=\"" + to + "\" y2=\"106.0\"/>"
                + "<line x1=\"" + from + "\" y1=\"100.0\" x2=\"" + from + "\" y2=\"112.0\"/>"
                + "<line x1=\"" + to + "\" y1=\"100.0\" x2=\"" + to + "\" y2=\"112.0\"/></g>");
        // the floor: a dashed line at its median, from just above the bars (90 - 4) to the bottom of the second slot
        final String floorX = f1(throughputX(4_000_000));
        assertThat(chart).contains("<line class=\"floor\" data-floor=\"tcp-stream-c\" data-median=\"4000000\" x1=\""
            + floorX + "\" y1=\"86\" x2=\"" + floorX + "\" y2=\"154\"");
        // the grid: 0, 2M, 4M and 6M
        assertThat(all("<line class=\"grid\" x1=\"([\\d.]+)\"", chart)).containsExactly(
            f1(throughputX(0)), f1(throughputX(2_000_000)), f1(throughputX(4_000_000)), f1(throughputX(6_000_000)));
    }

    // PercentileChart's frame: 980 x 460, x from 80 to 980-230=750 over 0..6 nines, y from 460-60=400 (the lowest
    // decade) up to 40 (the highest), log10 of microseconds.
    private static double percentileX(final double percentile) {
        return 80 + Math.log10(100.0 / (100.0 - percentile)) / 6 * (750 - 80);
    }

    private static double percentileY(final double micros, final int lowDecade, final int highDecade) {
        return 400 - (Math.log10(micros) - lowDecade) / (highDecade - lowDecade) * (400 - 40);
    }

    @Test
    void shouldPlotEachFloorPercentileAtItsNinesAndItsDecade() {
        // 1, 10, 100, 1000 and 10 000 us at p50, p90, p99, p99.9 and p99.99: one decade per percentile
        final List<FloorResult> floors = FloorResult.parseAll(
            "tcp-c size=256 rtt ns: p50=1000 p90=10000 p99=100000 p99.9=1000000 p99.99=10000000 max=20000000");
        final Histogram flat = PingPongLoop.newHistogram();
        flat.recordValueWithCount(1000, 1000); // every round trip 1 us: below 2048 the histogram is exact

        final String chart = PercentileChart.svg("pingpong", "t", List.of(new PercentileChart.Series("flat", flat)), floors);

        // the values span 1 us to 10 000 us: decades 0 to 4
        final StringBuilder d = new StringBuilder();
        final double[] percentiles = {50, 90, 99, 99.9, 99.99};
        for (int i = 0; i < percentiles.length; i++) {
            d.append(i == 0 ? "M" : " L").append(f1(percentileX(percentiles[i]))).append(',')
                .append(f1(percentileY(Math.pow(10, i), 0, 4)));
        }
        assertThat(d.toString()).isEqualTo("M113.6,400.0 L191.7,310.0 L303.3,220.0 L415.0,130.0 L526.7,40.0");
        assertThat(all("<path class=\"floor\"[^>]* d=\"([^\"]+)\"", chart)).containsExactly(d.toString());
        // its name is written just right of and below its last point
        assertThat(chart).contains("<text x=\"" + f1(percentileX(99.99) + 4) + "\" y=\"" + f1(percentileY(10_000, 0, 4) + 4)
            + "\" class=\"tick\">tcp-c</text>");
        // the flat series: every point on the 1 us line (the lowest decade), starting at 0 nines
        final String series = all("<path class=\"series\"[^>]* d=\"([^\"]+)\"", chart).get(0);
        assertThat(series).startsWith("M80.0,400.0");
        assertThat(all("[ML]([\\d.]+),", series)).allSatisfy(x -> assertThat(Double.parseDouble(x)).isBetween(80.0, 750.0));
        assertThat(all(",([\\d.]+)", series)).isNotEmpty().containsOnly("400.0");
        // the decade grid lines, 1 us to 10 ms
        assertThat(all("<line class=\"grid\" x1=\"80\" y1=\"([\\d.]+)\"", chart))
            .containsExactly("400.0", "310.0", "220.0", "130.0", "40.0");
    }

    // LoadChart's frame: 820 x 400, x from 80 to 820-200=620 over log10 of the rates with a quarter decade either
    // side, y from 400-60=340 (the lowest decade) up to 40 (the highest).
    private static double loadX(final double rate, final double lowestRate, final double highestRate) {
        final double low = Math.log10(lowestRate) - 0.25;
        final double high = Math.log10(highestRate) + 0.25;
        return 80 + (Math.log10(rate) - low) / (high - low) * (620 - 80);
    }

    private static double loadY(final double micros, final int lowDecade, final int highDecade) {
        return 340 - (Math.log10(micros) - lowDecade) / (highDecade - lowDecade) * (340 - 40);
    }

    @Test
    void shouldPlotEachLoadPointAtItsRateAndLatencyOnLogScales() {
        final List<LoadChart.Line> lines = List.of(
            new LoadChart.Line("a", List.of(new LoadChart.Point(1_000, 10_000, false),
                new LoadChart.Point(100_000, 1_000_000, true))),
            new LoadChart.Line("b", List.of(new LoadChart.Point(10_000, 100_000, false))));

        final String chart = LoadChart.svg("t", 2, lines);

        // rates 1k to 100k; latencies 10 us to 1000 us: decades 1 to 3
        final String ax1 = f1(loadX(1_000, 1_000, 100_000));
        final String ax2 = f1(loadX(100_000, 1_000, 100_000));
        final String bx = f1(loadX(10_000, 1_000, 100_000));
        assertThat(List.of(ax1, ax2, bx)).containsExactly("134.0", "566.0", "350.0");
        assertThat(all("<g class=\"series\" data-transport=\"a\"[^>]*><path [^>]* d=\"([^\"]+)\"", chart))
            .containsExactly("M" + ax1 + "," + f1(loadY(10, 1, 3)) + " L" + ax2 + "," + f1(loadY(1000, 1, 3)));
        assertThat(all("<circle class=\"point\" data-rate=\"\\d+\" cx=\"[\\d.]+\" cy=\"[\\d.]+\"", chart)).containsExactly(
            "<circle class=\"point\" data-rate=\"1000\" cx=\"" + ax1 + "\" cy=\"" + f1(loadY(10, 1, 3)) + "\"",
            "<circle class=\"point\" data-rate=\"100000\" cx=\"" + ax2 + "\" cy=\"" + f1(loadY(1000, 1, 3)) + "\"",
            "<circle class=\"point\" data-rate=\"10000\" cx=\"" + bx + "\" cy=\"" + f1(loadY(100, 1, 3)) + "\"");
        assertThat(f1(loadY(100, 1, 3))).isEqualTo("190.0");
        // the partial run's point is hollow
        assertThat(chart).contains("data-rate=\"100000\" cx=\"" + ax2 + "\" cy=\"40.0\" r=\"3.5\" stroke=\""
            + ChartPalette.colour(0) + "\" stroke-width=\"2\" fill=\"#ffffff\"/>");
    }
    // ScalingChart's frame is LoadChart's: x from 80 to 620 over log10 of the client counts with a quarter decade
    // either side, y from 340 (the lowest decade) up to 40 (the highest).
    @Test
    void shouldPlotEachScalingPointAtItsConnectionsAndLatencyOnLogScalesWithP50Dashed() {
        final List<ScalingChart.Line> lines = List.of(
            new ScalingChart.Line("a", 50, List.of(new ScalingChart.Point(1, 10_000, false),
                new ScalingChart.Point(1000, 100_000, false))),
            new ScalingChart.Line("a", 99, List.of(new ScalingChart.Point(1, 100_000, false),
                new ScalingChart.Point(1000, 1_000_000, true))),
            new ScalingChart.Line("b", 99, List.of(new ScalingChart.Point(10, 100_000, false))));

        final String chart = ScalingChart.svg("t", lines);

        // connections 1 to 1000: log10 0 to 3, a quarter decade either side; latencies 10 us to 1000 us: decades 1 to 3
        final String x1 = f1(80 + (0 + 0.25) / 3.5 * 540);
        final String x10 = f1(80 + (1 + 0.25) / 3.5 * 540);
        final String x1000 = f1(80 + (3 + 0.25) / 3.5 * 540);
        assertThat(List.of(x1, x10, x1000)).containsExactly("118.6", "272.9", "581.4");
        assertThat(all("<g class=\"series\" data-transport=\"a\" data-percentile=\"50\"[^>]*><path [^>]*"
            + "stroke-dasharray=\"6 4\" d=\"([^\"]+)\"", chart)).containsExactly("M" + x1 + ",340.0 L" + x1000 + ",190.0");
        assertThat(all("<g class=\"series\" data-transport=\"a\" data-percentile=\"99\"[^>]*><path [^>]*"
            + "stroke-width=\"2\" d=\"([^\"]+)\"", chart)).containsExactly("M" + x1 + ",190.0 L" + x1000 + ",40.0");
        assertThat(all("<circle class=\"point\" data-clients=\"\\d+\" cx=\"[\\d.]+\" cy=\"[\\d.]+\"", chart))
            .containsExactly(
                "<circle class=\"point\" data-clients=\"1\" cx=\"" + x1 + "\" cy=\"340.0\"",
                "<circle class=\"point\" data-clients=\"1000\" cx=\"" + x1000 + "\" cy=\"190.0\"",
                "<circle class=\"point\" data-clients=\"1\" cx=\"" + x1 + "\" cy=\"190.0\"",
                "<circle class=\"point\" data-clients=\"1000\" cx=\"" + x1000 + "\" cy=\"40.0\"",
                "<circle class=\"point\" data-clients=\"10\" cx=\"" + x10 + "\" cy=\"190.0\"");
        // a transport keeps one colour for both its lines; the partial run's point is hollow
        assertThat(all("data-transport=\"(\\w)\" data-percentile=\"\\d+\" data-colour=\"([^\"]+)\"", chart)).hasSize(3);
        assertThat(chart).contains("data-transport=\"a\" data-percentile=\"50\" data-colour=\"" + ChartPalette.colour(0))
            .contains("data-transport=\"a\" data-percentile=\"99\" data-colour=\"" + ChartPalette.colour(0))
            .contains("data-transport=\"b\" data-percentile=\"99\" data-colour=\"" + ChartPalette.colour(1))
            .contains("data-clients=\"1000\" cx=\"" + x1000 + "\" cy=\"40.0\" r=\"3.5\" stroke=\""
                + ChartPalette.colour(0) + "\" stroke-width=\"2\" fill=\"#ffffff\"/>");
        // the tick of each client count, the grid of each decade
        assertThat(all("class=\"tick\">(\\d+)</text>", chart)).containsExactly("1", "10", "1000");
        assertThat(all("<line class=\"grid\" x1=\"80\" y1=\"([\\d.]+)\"", chart)).containsExactly("340.0", "190.0", "40.0");
    }
}
