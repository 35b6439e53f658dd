package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How the cost grows with the work ({@code bench load --clients 1,10,100,1000 --total-rates R}): round-trip latency
 * against the number of connections at one total rate, both axes logarithmic. One chart per message size and total
 * rate (per-client rate times clients) that ran at two client counts or more; in it each transport has a solid
 * line for its p99 and a dashed one for its p50, in one colour. Each line is a
 * {@code <g class="series" data-transport="..." data-percentile="...">} holding a {@code <path>} and one
 * {@code <circle class="point" data-clients="N">} per client count (hollow when a run was partial). With rounds, a
 * point is the median of its rounds' percentiles.
 */
final class ScalingChart {
    /** The percentiles drawn: p50 dashed, p99 solid. */
    static final double[] PERCENTILES = {50, 99};

    private ScalingChart() {
    }

    /**
     * One client count of a transport.
     *
     * @param clients connections
     * @param latencyNanos the percentile's round trip in nanoseconds
     * @param partial whether a run ended early
     */
    record Point(int clients, double latencyNanos, boolean partial) {
    }

    /**
     * One line: a transport's points at one percentile, in client order.
     *
     * @param transport the transport
     * @param percentile the percentile
     * @param points its points
     */
    record Line(String transport, double percentile, List<Point> points) {
    }

    /**
     * Every scaling chart of some results: one per size and total rate that ran at two client counts or more.
     *
     * @param results every run (other scenarios and runs without latency are left out)
     * @return the SVG elements, none if no total rate ran at two client counts
     */
    static List<String> charts(final List<RunResult> results) {
        final Map<String, List<RunResult>> groups = new LinkedHashMap<>();
        for (final RunResult r : results) {
            if (r.scenario().equals("load") && r.hasLatency() && r.rate() > 0 && r.respondEvery() == 1) {
                groups.computeIfAbsent("load size=" + r.size() + ", " + Svg.metric((double)r.rate() * r.clients())
                    + " msg/s in total", k -> new ArrayList<>()).add(r);
            }
        }
        final List<String> charts = new ArrayList<>();
        for (final Map.Entry<String, List<RunResult>> group : groups.entrySet()) {
            if (group.getValue().stream().mapToInt(RunResult::clients).distinct().count() > 1) {
                charts.add(svg(group.getKey() + ": p50 and p99 round trip against connections", lines(group.getValue())));
            }
        }
        return charts;
    }

    /**
     * The lines of one chart: for each transport, in the order they first ran, its p50 and its p99.
     *
     * @param runs the load runs of one size and total rate
     * @return the lines
     */
    static List<Line> lines(final List<RunResult> runs) {
        final Map<String, Map<Integer, List<RunResult>>> byTransport = new LinkedHashMap<>();
        for (final RunResult r : runs) {
            byTransport.computeIfAbsent(r.transport(), k -> new TreeMap<>())
                .computeIfAbsent(r.clients(), k -> new ArrayList<>()).add(r);
        }
        final List<Line> lines = new ArrayList<>();
        for (final Map.Entry<String, Map<Integer, List<RunResult>>> transport : byTransport.entrySet()) {
            for (final double percentile : PERCENTILES) {
                final List<Point> points = new ArrayList<>();
                for (final Map.Entry<Integer, List<RunResult>> count : transport.getValue().entrySet()) {
                    final double[] values = count.getValue().stream()
                        .mapToDouble(r -> r.rtt().getValueAtPercentile(percentile)).sorted().toArray();
                    final boolean partial = count.getValue().stream().anyMatch(r -> r.status() != RunResult.Status.OK);
                    points.add(new Point(count.getKey(), values[(values.length - 1) / 2], partial));
                }
                lines.add(new Line(transport.getKey(), percentile, List.copyOf(points)));
            }
        }
        return lines;
    }

    /**
     * Draws one chart.
     *
     * @param title the title
     * @param lines the lines, each with at least one point; a transport's lines share its colour
     * @return the SVG element
     */
    static String svg(final String title, final List<Line> lines) {
        final TreeSet<Long> counts = new TreeSet<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (final Line line : lines) {
            for (final Point p : line.points()) {
                counts.add((long)p.clients());
                low = Math.min(low, p.latencyNanos() / 1000.0);
                high = Math.max(high, p.latencyNanos() / 1000.0);
            }
        }
        final ChartAxes axes = new ChartAxes(counts, low, high);
        final StringBuilder out = new StringBuilder();
        Svg.open(out, "clients", "load", lines.size(), ChartAxes.WIDTH, ChartAxes.HEIGHT, title);
        axes.draw(out, Long::toString, "connections (log scale), the same total rate spread over them",
            "round-trip latency (us, log scale)");
        final Map<String, String> colours = new LinkedHashMap<>();
        boolean anyPartial = false;
        for (final Line line : lines) {
            final String colour = colours.computeIfAbsent(line.transport(), t -> ChartPalette.colour(colours.size()));
            final String dash = line.percentile() < 99 ? " stroke-dasharray=\"6 4\"" : "";
            final StringBuilder d = new StringBuilder();
            final StringBuilder points = new StringBuilder();
            for (final Point p : line.points()) {
                final double px = axes.x(p.clients());
                final double py = axes.y(p.latencyNanos() / 1000.0);
                d.append(d.isEmpty() ? "M" : " L").append(String.format(Locale.ROOT, "%.1f,%.1f", px, py));
                points.append(String.format(Locale.ROOT,
                    "<circle class=\"point\" data-clients=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" stroke=\"%s\""
                        + " stroke-width=\"2\" fill=\"%s\"/>", p.clients(), px, py, colour,
                    p.partial() ? "#ffffff" : colour));
                anyPartial |= p.partial();
            }
            out.append(String.format(Locale.ROOT,
                "<g class=\"series\" data-transport=\"%s\" data-percentile=\"%s\" data-colour=\"%s\"><path fill=\"none\""
                    + " stroke=\"%s\" stroke-width=\"2\"%s d=\"%s\"/>%s</g>%n",
                Html.escape(line.transport()), label(line.percentile()), colour, colour, dash, d, points));
        }
        out.append("<g class=\"legend\">\n");
        final int legendX = axes.legendX();
        int legendY = ChartAxes.TOP + 10;
        for (final Map.Entry<String, String> entry : colours.entrySet()) {
            Svg.legendEntry(out, legendX, legendY, entry.getValue(), null, entry.getKey());
            legendY += 20;
        }
        out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"legend\">solid: p99, dashed: p50</text>%n",
            legendX, legendY + 4));
        if (anyPartial) {
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"legend\">hollow point: partial run</text>%n",
                legendX, legendY + 24));
        }
        out.append("</g>\n");
        return out.append("</svg>\n").toString();
    }

    private static String label(final double percentile) {
        return percentile == Math.rint(percentile) ? Long.toString((long)percentile) : Double.toString(percentile);
    }
}
