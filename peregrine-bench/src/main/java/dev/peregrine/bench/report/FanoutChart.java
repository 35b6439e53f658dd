package dev.peregrine.bench.report;

import dev.peregrine.bench.fanout.FanoutResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The charts of {@code bench fanout --report}: per message size, the worst reader's p50 (dashed) and p99 (solid)
 * against the reader count, and the throughput against the reader count; both axes logarithmic. Each line is a
 * {@code <g class="series" data-transport="..." data-measure="p50|p99|msg/s">} holding a {@code <path>} and one
 * {@code <circle class="point" data-readers="N" data-value="V">} per reader count. Failed rows are left out.
 */
public final class FanoutChart {
    private static final int WIDTH = 820;
    private static final int HEIGHT = 400;
    private static final int LEFT = 80;
    private static final int RIGHT = Svg.LEGEND_WIDTH;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;

    private FanoutChart() {
    }

    /**
     * One point.
     *
     * @param readers the reader count
     * @param value microseconds for latency, messages per second for throughput
     */
    record Point(int readers, double value) {
    }

    /**
     * One line.
     *
     * @param transport the transport
     * @param measure {@code p50}, {@code p99} or {@code msg/s}
     * @param points its points, in reader order
     */
    record Line(String transport, String measure, List<Point> points) {
    }

    /**
     * Every chart of a run: per size, latency then throughput, each only when it has a point.
     *
     * @param results the rows
     * @return SVG elements
     */
    public static List<String> charts(final List<FanoutResult> results) {
        final List<String> charts = new ArrayList<>();
        final TreeSet<Integer> sizes = new TreeSet<>();
        results.forEach(r -> sizes.add(r.size()));
        for (final int size : sizes) {
            final List<Line> latency = lines(results, size, true);
            if (!latency.isEmpty()) {
                charts.add(svg("size " + size + ": worst reader's one-way latency against readers", latency,
                    "one-way latency of the worst reader (us, log scale)"));
            }
            final List<Line> throughput = lines(results, size, false);
            if (!throughput.isEmpty()) {
                charts.add(svg("size " + size + ": one-way throughput against readers", throughput,
                    "messages per second every reader received (log scale)"));
            }
        }
        return charts;
    }

    /**
     * The lines of one chart.
     *
     * @param results every row
     * @param size the size
     * @param latency latency lines (p50 and p99 per transport) or throughput lines
     * @return the lines, each with a point at least
     */
    static List<Line> lines(final List<FanoutResult> results, final int size, final boolean latency) {
        final Map<String, List<FanoutResult>> byTransport = new LinkedHashMap<>();
        for (final FanoutResult r : results) {
            if (r.size() == size && r.latency() == latency && !r.failed() && r.notes().isEmpty()) {
                byTransport.computeIfAbsent(r.transport(), k -> new ArrayList<>()).add(r);
            }
        }
        final List<Line> lines = new ArrayList<>();
        for (final Map.Entry<String, List<FanoutResult>> entry : byTransport.entrySet()) {
            final List<FanoutResult> rows = entry.getValue().stream()
                .sorted(java.util.Comparator.comparingInt(FanoutResult::readers)).toList();
            if (latency) {
                lines.add(new Line(entry.getKey(), "p50", rows.stream()
                    .map(r -> new Point(r.readers(), r.worst(50) / 1000.0)).toList()));
                lines.add(new Line(entry.getKey(), "p99", rows.stream()
                    .map(r -> new Point(r.readers(), r.worst(99) / 1000.0)).toList()));
            } else {
                lines.add(new Line(entry.getKey(), "msg/s", rows.stream()
                    .map(r -> new Point(r.readers(), r.messagesPerSecond())).toList()));
            }
        }
        return lines;
    }

    /**
     * Draws one chart.
     *
     * @param title the title
     * @param lines the lines, at least one point in all
     * @param yLabel the y axis label
     * @return the SVG element
     */
    static String svg(final String title, final List<Line> lines, final String yLabel) {
        final TreeSet<Integer> counts = new TreeSet<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (final Line line : lines) {
            for (final Point p : line.points()) {
                counts.add(p.readers());
                low = Math.min(low, p.value());
                high = Math.max(high, p.value());
            }
        }
        final int plotRight = WIDTH - RIGHT;
        final int plotBottom = HEIGHT - BOTTOM;
        // a quarter of a decade of room on each side, so that the end points are not on the frame
        final Svg.LogScale x = new Svg.LogScale(Math.log10(counts.first()) - 0.25, Math.log10(counts.last()) + 0.25,
            LEFT, plotRight);
        final Svg.LogScale y = Svg.LogScale.decades(low, high, plotBottom, TOP);
        final boolean latency = lines.get(0).measure().startsWith("p");
        final StringBuilder out = new StringBuilder();
        Svg.open(out, latency ? "fanout-latency" : "fanout-throughput", "fanout", lines.size(), WIDTH, HEIGHT, title);
        out.append(String.format(Locale.ROOT, "<g class=\"axes\" stroke=\"#333333\" stroke-width=\"1\">"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>%n",
            LEFT, TOP, LEFT, plotBottom, LEFT, plotBottom, plotRight, plotBottom));
        for (final int count : counts) {
            final double px = x.at(count);
            out.append(String.format(Locale.ROOT,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%d</text>%n",
                px, TOP, px, plotBottom, px, plotBottom + 18, count));
        }
        for (int decade = (int)y.low(); decade <= (int)y.high(); decade++) {
            final double value = Math.pow(10, decade);
            final double py = y.at(value);
            out.append(String.format(Locale.ROOT,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>%n",
                LEFT, py, plotRight, py, LEFT - 6, py + 4, latency ? Svg.micros(value) : Svg.metric(value)));
        }
        Svg.axisLabels(out, LEFT, plotRight, TOP, plotBottom, HEIGHT, "reader processes (log scale)", yLabel);
        final Map<String, String> colours = new LinkedHashMap<>();
        for (final Line line : lines) {
            final String colour = colours.computeIfAbsent(line.transport(), t -> ChartPalette.colour(colours.size()));
            final String dash = line.measure().equals("p50") ? " stroke-dasharray=\"6 4\"" : "";
            final StringBuilder d = new StringBuilder();
            final StringBuilder points = new StringBuilder();
            for (final Point p : line.points()) {
                final double px = x.at(p.readers());
                final double py = y.at(p.value());
                d.append(d.isEmpty() ? "M" : " L").append(String.format(Locale.ROOT, "%.1f,%.1f", px, py));
                points.append(String.format(Locale.ROOT,
                    "<circle class=\"point\" data-readers=\"%d\" data-value=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\""
                        + " stroke=\"%s\" stroke-width=\"2\" fill=\"%s\"/>", p.readers(), Double.toString(p.value()),
                    px, py, colour, colour));
            }
            out.append(String.format(Locale.ROOT,
                "<g class=\"series\" data-transport=\"%s\" data-measure=\"%s\"><path fill=\"none\" stroke=\"%s\""
                    + " stroke-width=\"2\"%s d=\"%s\"/>%s</g>%n",
                Html.escape(line.transport()), line.measure(), colour, dash, d, points));
        }
        out.append("<g class=\"legend\">\n");
        final int legendX = plotRight + 16;
        int legendY = TOP + 10;
        for (final Map.Entry<String, String> entry : colours.entrySet()) {
            Svg.legendEntry(out, legendX, legendY, entry.getValue(), null, entry.getKey());
            legendY += 20;
        }
        if (latency) {
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"legend\">solid: p99, dashed: p50"
                + "</text>%n", legendX, legendY + 4));
        }
        out.append("</g>\n");
        return out.append("</svg>\n").toString();
    }

    /**
     * The HTML page of a run: the command, the table as text, the charts.
     *
     * @param commandLine the command line
     * @param table the text table
     * @param charts the SVG elements
     * @return the page
     */
    public static String html(final String commandLine, final String table, final List<String> charts) {
        final StringBuilder out = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            + "<title>bench fanout</title><style>body{font-family:sans-serif;margin:24px}pre{font-size:12px}"
            + " .tick,.legend{font-size:12px}.title{font-size:15px;font-weight:bold}.axis-label{font-size:13px}"
            + "</style></head><body>\n<h1>bench fanout</h1>\n<p><code>")
            .append(Html.escape(commandLine)).append("</code></p>\n<pre>").append(Html.escape(table)).append("</pre>\n");
        for (final String chart : charts) {
            out.append("<div>").append(chart).append("</div>\n");
        }
        return out.append("</body></html>\n").toString();
    }
}
