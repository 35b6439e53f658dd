package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The load scenario as Chronicle plots it: latency against the offered rate, one line per transport, both
 * axes logarithmic. For each message size and number of clients there are three charts, p50, p99 and p99.9;
 * a transport keeps its colour in all three. Each line is a {@code <g class="series" data-transport="...">}
 * holding a {@code <path>} and one {@code <circle class="point">} per rate (hollow when the run was partial).
 */
final class LoadChart {
    /** The percentiles drawn, one chart each. */
    static final double[] PERCENTILES = {50, 99, 99.9};

    private LoadChart() {
    }

    /**
     * One measured rate of a transport.
     *
     * @param rate offered messages per second per client
     * @param latencyNanos the percentile's round trip in nanoseconds
     * @param partial whether the run ended early
     */
    record Point(long rate, double latencyNanos, boolean partial) {
    }

    /**
     * One line: a transport's points in rate order.
     *
     * @param transport the transport
     * @param points its points
     */
    record Line(String transport, List<Point> points) {
    }

    /**
     * Every load chart of some results: for each size and number of clients (in the order they ran), the
     * p50, p99 and p99.9 charts.
     *
     * @param results every run (other scenarios and runs without latency are left out)
     * @return the SVG elements, none if no load run measured latency
     */
    static List<String> charts(final List<RunResult> results) {
        final Map<String, List<RunResult>> groups = new LinkedHashMap<>();
        for (final RunResult r : results) {
            if (r.scenario().equals("load") && r.hasLatency() && r.rate() > 0) {
                groups.computeIfAbsent("load size=" + r.size() + ", " + r.clients() + (r.clients() == 1 ? " client" : " clients"),
                    k -> new ArrayList<>()).add(r);
            }
        }
        final List<String> charts = new ArrayList<>();
        for (final Map.Entry<String, List<RunResult>> group : groups.entrySet()) {
            final int clients = group.getValue().get(0).clients();
            for (final double percentile : PERCENTILES) {
                charts.add(svg(group.getKey() + ": " + label(percentile) + " round trip against offered rate", clients,
                    lines(group.getValue(), percentile)));
            }
        }
        return charts;
    }

    /**
     * The lines of one chart: one per transport, in the order the transports first ran.
     *
     * @param runs the load runs of one size and number of clients
     * @param percentile the percentile drawn
     * @return the lines
     */
    static List<Line> lines(final List<RunResult> runs, final double percentile) {
        final Map<String, List<Point>> byTransport = new LinkedHashMap<>();
        for (final RunResult r : runs) {
            byTransport.computeIfAbsent(r.transport(), k -> new ArrayList<>()).add(new Point(r.rate(),
                r.rtt().getValueAtPercentile(percentile), r.status() != RunResult.Status.OK));
        }
        final List<Line> lines = new ArrayList<>();
        for (final Map.Entry<String, List<Point>> entry : byTransport.entrySet()) {
            final List<Point> points = new ArrayList<>(entry.getValue());
            points.sort((a, b) -> Long.compare(a.rate(), b.rate()));
            lines.add(new Line(entry.getKey(), List.copyOf(points)));
        }
        return lines;
    }

    /**
     * Draws one chart.
     *
     * @param title the title
     * @param clients concurrent clients, for the axis label
     * @param lines the lines, each with at least one point
     * @return the SVG element
     */
    static String svg(final String title, final int clients, final List<Line> lines) {
        final TreeSet<Long> rates = new TreeSet<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (final Line line : lines) {
            for (final Point p : line.points()) {
                rates.add(p.rate());
                low = Math.min(low, p.latencyNanos() / 1000.0);
                high = Math.max(high, p.latencyNanos() / 1000.0);
            }
        }
        final ChartAxes axes = new ChartAxes(rates, low, high);
        final StringBuilder out = new StringBuilder();
        Svg.open(out, "rate", "load", lines.size(), ChartAxes.WIDTH, ChartAxes.HEIGHT, title);
        axes.draw(out, Svg::metric, "offered rate per client (msg/s, log scale); all clients together: " + clients
            + " x that", "round-trip latency (us, log scale)");
        boolean anyPartial = false;
        for (int i = 0; i < lines.size(); i++) {
            final Line line = lines.get(i);
            final String colour = ChartPalette.colour(i);
            final StringBuilder d = new StringBuilder();
            final StringBuilder points = new StringBuilder();
            for (final Point p : line.points()) {
                final double px = axes.x(p.rate());
                final double py = axes.y(p.latencyNanos() / 1000.0);
                d.append(d.isEmpty() ? "M" : " L").append(String.format(Locale.ROOT, "%.1f,%.1f", px, py));
                points.append(String.format(Locale.ROOT,
                    "<circle class=\"point\" data-rate=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" stroke=\"%s\""
                        + " stroke-width=\"2\" fill=\"%s\"/>", p.rate(), px, py, colour, p.partial() ? "#ffffff" : colour));
                anyPartial |= p.partial();
            }
            out.append(String.format(Locale.ROOT,
                "<g class=\"series\" data-transport=\"%s\" data-colour=\"%s\"><path fill=\"none\" stroke=\"%s\""
                    + " stroke-width=\"2\" d=\"%s\"/>%s</g>%n",
                Html.escape(line.transport()), colour, colour, d, points));
        }
        out.append("<g class=\"legend\">\n");
        final int legendX = axes.legendX();
        int legendY = ChartAxes.TOP + 10;
        for (int i = 0; i < lines.size(); i++) {
            Svg.legendEntry(out, legendX, legendY, ChartPalette.colour(i), null, lines.get(i).transport());
            legendY += 20;
        }
        if (anyPartial) {
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"legend\">hollow point: partial run</text>%n",
                legendX, legendY + 4));
        }
        out.append("</g>\n");
        return out.append("</svg>\n").toString();
    }

    private static String label(final double percentile) {
        return percentile == Math.rint(percentile) ? "p" + (long)percentile : "p" + percentile;
    }
}
