package dev.peregrine.bench.report;

import dev.peregrine.bench.run.FloorResult;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A latency-by-percentile chart as inline SVG, drawn the way HdrHistogram's plotter draws it: the x axis is
 * the percentile on a logarithmic "nines" scale (0%, 90%, 99%, ... 99.9999%, i.e. {@code log10(1/(1-p))}),
 * the y axis the latency (here logarithmic too, so that medians of microseconds and maxima of milliseconds
 * are both readable). One {@code <path class="series">} per transport, a dashed {@code <path class="floor">}
 * per floor line; the root is {@code <svg class="chart" data-kind="percentiles" data-series="N">}.
 */
public final class PercentileChart {
    /** The rightmost percentile drawn: 99.9999%, six nines. */
    public static final double MAX_NINES = 6.0;
    private static final int WIDTH = 980;
    private static final int HEIGHT = 460;
    private static final int LEFT = 80;
    private static final int RIGHT = 230;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;

    private PercentileChart() {
    }

    /**
     * One line of the chart.
     *
     * @param name the legend text
     * @param histogram latencies in nanoseconds
     */
    public record Series(String name, Histogram histogram) {
    }

    /** A point in data units: x in nines, y in microseconds. */
    private record Point(double nines, double micros) {
    }

    /**
     * The x position of a percentile in nines.
     *
     * @param percentile 0..100
     * @return {@code log10(100 / (100 - percentile))}, at most {@link #MAX_NINES}
     */
    public static double nines(final double percentile) {
        if (percentile >= 100.0) {
            return MAX_NINES;
        }
        return Math.min(MAX_NINES, Math.log10(100.0 / (100.0 - percentile)));
    }

    /**
     * Draws the chart.
     *
     * @param title the title inside the chart
     * @param series the lines, each with at least one value
     * @param floors floor lines to draw dashed, possibly none
     * @return the SVG element
     */
    public static String svg(final String title, final List<Series> series, final List<FloorResult> floors) {
        return svg("pingpong", title, series, floors);
    }

    /**
     * Draws the chart of a scenario.
     *
     * @param scenario the scenario of the runs drawn, for the root's {@code data-scenario}
     * @param title the title inside the chart
     * @param series the lines, each with at least one value
     * @param floors floor lines to draw dashed, possibly none
     * @return the SVG element
     */
    public static String svg(final String scenario, final String title, final List<Series> series,
                             final List<FloorResult> floors) {
        final List<List<Point>> lines = new ArrayList<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (final Series s : series) {
            final List<Point> points = points(s.histogram());
            lines.add(points);
            for (final Point p : points) {
                low = Math.min(low, p.micros());
                high = Math.max(high, p.micros());
            }
        }
        final List<List<Point>> floorLines = new ArrayList<>();
        for (final FloorResult floor : floors) {
            final List<Point> points = List.of(new Point(nines(50), floor.p50() / 1000.0),
                new Point(nines(90), floor.p90() / 1000.0), new Point(nines(99), floor.p99() / 1000.0),
                new Point(nines(99.9), floor.p999() / 1000.0), new Point(nines(99.99), floor.p9999() / 1000.0));
            floorLines.add(points);
            for (final Point p : points) {
                low = Math.min(low, p.micros());
                high = Math.max(high, p.micros());
            }
        }
        if (high <= 0) {
            low = 1;
            high = 10;
        }
        final int lowDecade = (int)Math.floor(Math.log10(Math.max(low, 1e-3)));
        final int highDecade = Math.max(lowDecade + 1, (int)Math.ceil(Math.log10(Math.max(high, 1e-3))));
        final Scale scale = new Scale(lowDecade, highDecade);

        final StringBuilder out = new StringBuilder();
        Svg.open(out, "percentiles", scenario, series.size(), WIDTH, HEIGHT, title);
        axes(out, scale);
        for (int i = 0; i < floorLines.size(); i++) {
            final FloorResult floor = floors.get(i);
            final Point end = floorLines.get(i).get(floorLines.get(i).size() - 1);
            out.append(String.format(Locale.ROOT,
                "<path class=\"floor\" data-floor=\"%s\" data-colour=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\""
                    + " stroke-dasharray=\"%s\" d=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%s</text>%n",
                Html.escape(floor.name()), floorColour(floor), floorColour(floor), floorDash(floor), path(floorLines.get(i), scale),
                scale.x(end.nines()) + 4, scale.y(end.micros()) + 4, Html.escape(floor.name())));
        }
        for (int i = 0; i < lines.size(); i++) {
            out.append(String.format(Locale.ROOT,
                "<path class=\"series\" data-transport=\"%s\" data-colour=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\""
                    + " d=\"%s\"/>%n",
                Html.escape(series.get(i).name()), ChartPalette.colour(i), ChartPalette.colour(i), path(lines.get(i), scale)));
        }
        legend(out, series, floors);
        return out.append("</svg>\n").toString();
    }

    private static List<Point> points(final Histogram histogram) {
        final List<Point> points = new ArrayList<>();
        if (histogram.getTotalCount() == 0) {
            return points;
        }
        for (final HistogramIterationValue value : histogram.percentiles(5)) {
            final double x = nines(value.getPercentileLevelIteratedTo());
            final double y = Math.max(1e-3, histogram.highestEquivalentValue(value.getValueIteratedTo()) / 1000.0);
            points.add(new Point(x, y));
            if (x >= MAX_NINES) {
                break;
            }
        }
        return points;
    }

    private static String path(final List<Point> points, final Scale scale) {
        final StringBuilder d = new StringBuilder();
        for (final Point p : points) {
            d.append(d.isEmpty() ? "M" : " L").append(String.format(Locale.ROOT, "%.1f,%.1f", scale.x(p.nines()),
                scale.y(p.micros())));
        }
        return d.toString();
    }

    private static void axes(final StringBuilder out, final Scale scale) {
        final int plotRight = WIDTH - RIGHT;
        final int plotBottom = HEIGHT - BOTTOM;
        out.append(String.format(Locale.ROOT, "<g class=\"axes\" stroke=\"#333333\" stroke-width=\"1\">"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>%n",
            LEFT, TOP, LEFT, plotBottom, LEFT, plotBottom, plotRight, plotBottom));
        final String[] xLabels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"};
        for (int n = 0; n <= (int)MAX_NINES; n++) {
            final double x = scale.x(n);
            out.append(String.format(Locale.ROOT,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%s</text>%n",
                x, TOP, x, plotBottom, x, plotBottom + 18, xLabels[n]));
        }
        for (int decade = scale.lowDecade; decade <= scale.highDecade; decade++) {
            final double micros = Math.pow(10, decade);
            final double y = scale.y(micros);
            out.append(String.format(Locale.ROOT,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>%n",
                LEFT, y, plotRight, y, LEFT - 6, y + 4, Svg.micros(micros)));
        }
        Svg.axisLabels(out, LEFT, plotRight, TOP, plotBottom, HEIGHT, "percentile (log scale of nines)",
            "round-trip latency (us, log scale)");
    }

    private static void legend(final StringBuilder out, final List<Series> series, final List<FloorResult> floors) {
        out.append("<g class=\"legend\">\n");
        final int x = WIDTH - RIGHT + 16;
        int y = TOP + 10;
        for (int i = 0; i < series.size(); i++) {
            Svg.legendEntry(out, x, y, ChartPalette.colour(i), null, series.get(i).name());
            y += 20;
        }
        for (final FloorResult floor : floors) {
            out.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\" class=\"legend\">floor %s (C)</text>%n",
                x, y, x + 24, y, floorColour(floor), floorDash(floor), x + 30, y + 4, Html.escape(floor.name())));
            y += 20;
        }
    }

    private static String floorColour(final FloorResult floor) {
        return switch (floor.path()) {
            case "tcp" -> "#333333";
            case "udp" -> "#8c6d31";
            case "shm" -> "#7b4173";
            default -> "#777777";
        };
    }

    private static String floorDash(final FloorResult floor) {
        return switch (floor.path()) {
            case "tcp" -> "6 4";
            case "udp" -> "2 3";
            default -> "10 3 2 3";
        };
    }

    /** Maps data units to SVG coordinates. */
    private record Scale(int lowDecade, int highDecade) {
        double x(final double nines) {
            return LEFT + nines / MAX_NINES * (WIDTH - RIGHT - LEFT);
        }

        double y(final double micros) {
            final double fraction = (Math.log10(Math.max(micros, 1e-3)) - lowDecade) / (highDecade - lowDecade);
            return HEIGHT - BOTTOM - fraction * (HEIGHT - BOTTOM - TOP);
        }
    }
}
