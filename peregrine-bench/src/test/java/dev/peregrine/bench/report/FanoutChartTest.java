package dev.peregrine.bench.report;

import dev.peregrine.bench.fanout.FanoutResult;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where {@code bench fanout}'s charts put their points: known rows in, exact coordinates out, computed here from the
 * chart's documented frame (820 x 400, plot from x=80 to 820-230=590 and from y=340 up to 40), its x scale (log10
 * of the reader count with a quarter decade of margin) and its y scale (whole decades around the values).
 */
class FanoutChartTest {
    private static final int[] READERS = {1, 2, 4, 8};

    private static double x(final int readers) {
        final double low = -0.25;
        final double high = Math.log10(8) + 0.25;
        return 80 + (Math.log10(readers) - low) / (high - low) * (590 - 80);
    }

    private static double y(final double value, final double lowDecade, final double highDecade) {
        return 340 + (Math.log10(value) - lowDecade) / (highDecade - lowDecade) * (40 - 340);
    }

    private static Histogram histogram(final long p50, final long p99) {
        // values below 2048 are held exactly; 98 of one and 2 of the other: p50 is the first, p99 the second
        final Histogram h = new Histogram(1, 3_600_000_000_000L, 3);
        h.recordValueWithCount(p50, 98);
        h.recordValueWithCount(p99, 2);
        return h;
    }

    private static List<FanoutResult> rows() {
        final long[] p50 = {100, 200, 400, 800};
        final long[] p99 = {1000, 1500, 1800, 2000};
        final double[] rates = {1e6, 2e6, 5e5, 1e5};
        final List<FanoutResult> rows = new ArrayList<>();
        for (int i = 0; i < READERS.length; i++) {
            // two readers: the worst is the first, whose every percentile is the higher
            rows.add(new FanoutResult("peregrine-broadcast", READERS[i], 32, true, 100_000,
                List.of(histogram(p50[i], p99[i]), histogram(p50[i] / 2, p99[i] / 2)), 100_000, 0, 0, null, List.of()));
            rows.add(new FanoutResult("peregrine-broadcast", READERS[i], 32, false, 0, List.of(), rates[i], 0, 0, null,
                List.of()));
        }
        rows.add(new FanoutResult("aeron-ipc", 1, 32, true, 100_000, List.of(), 0, 0, 0, "reader 0: gap", List.of()));
        return rows;
    }

    private static List<String> points(final String svg, final String measure) {
        final Matcher group = Pattern.compile("<g class=\"series\" data-transport=\"([^\"]+)\" data-measure=\""
            + Pattern.quote(measure) + "\">(.*?)</g>").matcher(svg);
        final List<String> found = new ArrayList<>();
        while (group.find()) {
            final Matcher p = Pattern.compile("data-readers=\"(\\d+)\" data-value=\"[^\"]+\" cx=\"([0-9.]+)\""
                + " cy=\"([0-9.]+)\"").matcher(group.group(2));
            while (p.find()) {
                found.add(group.group(1) + " " + p.group(1) + " " + p.group(2) + "," + p.group(3));
            }
        }
        return found;
    }

    private static String point(final String transport, final int readers, final double y) {
        return String.format(Locale.ROOT, "%s %d %.1f,%.1f", transport, readers, x(readers), y);
    }

    @Test
    void shouldPlotTheWorstReadersP50AndP99AgainstTheReaderCount() {
        final List<String> charts = FanoutChart.charts(rows());

        assertThat(charts).as("latency and throughput for the one size").hasSize(2);
        final String latency = charts.get(0);
        // values 0.1 us to 2 us: decades 10^-1 to 10^1
        assertThat(points(latency, "p50")).containsExactly(point("peregrine-broadcast", 1, y(0.1, -1, 1)),
            point("peregrine-broadcast", 2, y(0.2, -1, 1)), point("peregrine-broadcast", 4, y(0.4, -1, 1)),
            point("peregrine-broadcast", 8, y(0.8, -1, 1)));
        assertThat(points(latency, "p99")).containsExactly(point("peregrine-broadcast", 1, y(1.0, -1, 1)),
            point("peregrine-broadcast", 2, y(1.5, -1, 1)), point("peregrine-broadcast", 4, y(1.8, -1, 1)),
            point("peregrine-broadcast", 8, y(2.0, -1, 1)));
        assertThat(latency).as("the failed row is left out").doesNotContain("aeron-ipc");
    }

    @Test
    void shouldPlotTheThroughputAgainstTheReaderCount() {
        final String throughput = FanoutChart.charts(rows()).get(1);

        // 100 000 to 2 000 000 msg/s: decades 10^5 to 10^7
        assertThat(points(throughput, "msg/s")).containsExactly(point("peregrine-broadcast", 1, y(1e6, 5, 7)),
            point("peregrine-broadcast", 2, y(2e6, 5, 7)), point("peregrine-broadcast", 4, y(5e5, 5, 7)),
            point("peregrine-broadcast", 8, y(1e5, 5, 7)));
        assertThat(throughput).contains("<text x=\"16\" y=\"24\" class=\"title\">size 32: one-way throughput"
            + " against readers</text>");
    }

    @Test
    void shouldPutTheChartsAndTheTableInTheReport() {
        final String html = FanoutChart.html("./peregrine bench fanout --readers 1,2", "bench fanout\n<table>",
            FanoutChart.charts(rows()));

        assertThat(html).contains("<code>./peregrine bench fanout --readers 1,2</code>", "bench fanout\n&lt;table&gt;");
        assertThat(html.split("<svg class=\"chart\"", -1)).hasSize(3);
    }
}
