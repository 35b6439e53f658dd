package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.StreamFloor;
import dev.peregrine.bench.transports.Transports;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The throughput scenario as bars, one chart per message size: a horizontal bar per transport at the median
 * rate of its rounds, whiskers from the slowest to the fastest round when there were several, and the C
 * stream floor ({@value StreamFloor#NAME}) of that size as a dashed vertical line when it was measured. The
 * bottom axis is messages per second, the top axis the same bars in payload megabytes per second. A bar is a
 * {@code <rect class="series bar" data-transport="...">}, a whisker a {@code <g class="whisker">}, the floor
 * a {@code <line class="floor" data-floor="tcp-stream-c">}.
 */
final class ThroughputChart {
    private static final int WIDTH = 980;
    private static final int LEFT = 190;
    private static final int TOP = 90;
    private static final int BOTTOM = 76;
    private static final int BAR = 22;
    private static final int STEP = 32;
    private static final String FLOOR_COLOUR = "#333333";

    private ThroughputChart() {
    }

    /**
     * One chart per size that has a measured transport, in size order.
     *
     * @param rows the throughput rows ({@link ThroughputRows#of}), floor rows included
     * @return the SVG elements, none if no transport measured a rate
     */
    static List<String> charts(final List<ThroughputRows.Row> rows) {
        final Set<Integer> sizes = new LinkedHashSet<>();
        rows.stream().filter(r -> !r.floor() && r.measured()).map(ThroughputRows.Row::size).sorted()
            .forEach(sizes::add);
        final List<String> charts = new ArrayList<>();
        for (final int size : sizes) {
            charts.add(svg(size, rows));
        }
        return charts;
    }

    /**
     * The chart of one size.
     *
     * @param size the message size
     * @param rows every row (other sizes are left out)
     * @return the SVG element
     */
    static String svg(final int size, final List<ThroughputRows.Row> rows) {
        final List<ThroughputRows.Row> bars = new ArrayList<>();
        ThroughputRows.Row floorRow = null;
        for (final ThroughputRows.Row r : rows) {
            if (r.size() != size) {
                continue;
            }
            if (r.floor()) {
                floorRow = r;
            } else if (r.measured()) {
                bars.add(r);
            }
        }
        bars.sort(Comparator.comparingInt((ThroughputRows.Row r) -> Transports.pathRank(r.path()))
            .thenComparing(r -> r.peregrine() ? 0 : 1));
        final ThroughputRows.Row floor = floorRow != null && floorRow.measured() ? floorRow : null;
        double max = 0;
        int rounds = 0;
        for (final ThroughputRows.Row r : bars) {
            max = Math.max(max, r.max());
            rounds = Math.max(rounds, r.rounds());
        }
        if (floor != null) {
            max = Math.max(max, floor.max());
        }
        // room right of the longest bar for its label
        final double step = niceStep(max * 1.4);
        final double top = Math.max(step, Math.ceil(max * 1.4 / step) * step);
        final int plotRight = WIDTH - Svg.LEGEND_WIDTH;
        final int plotBottom = TOP + Math.max(1, bars.size()) * STEP;
        final int height = plotBottom + BOTTOM;
        final String title = "throughput size=" + size + ": messages/s per transport"
            + (rounds > 1 ? " (median of " + rounds + " rounds, whiskers min to max)" : "");

        final StringBuilder out = new StringBuilder();
        Svg.open(out, "bars", "throughput", bars.size(), WIDTH, height, title);
        axes(out, top, step, size, plotRight, plotBottom);
        Svg.axisLabels(out, LEFT, plotRight, TOP, plotBottom, height, "messages per second (msg/s)",
            "transport");
        out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis-label\">"
            + "payload MB/s (%d bytes x messages/s)</text>%n", (LEFT + plotRight) / 2, TOP - 34, size));
        boolean anyWhisker = false;
        for (int i = 0; i < bars.size(); i++) {
            final ThroughputRows.Row r = bars.get(i);
            final String colour = ChartPalette.colour(i);
            final double y = TOP + i * STEP + (STEP - BAR) / 2.0;
            final double end = x(r.median(), top, plotRight);
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>%n",
                LEFT - 6, y + BAR / 2.0 + 4, Html.escape(r.transport() + (r.status() == RunResult.Status.OK ? "" : " (partial)"))));
            out.append(String.format(Locale.ROOT,
                "<rect class=\"series bar\" data-transport=\"%s\" data-colour=\"%s\" data-median=\"%.0f\" x=\"%d\""
                    + " y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                Html.escape(r.transport()), colour, r.median(), LEFT, y, Math.max(1, end - LEFT), BAR, colour));
            double labelX = end + 6;
            if (r.rates().size() > 1) {
                anyWhisker = true;
                final double from = x(r.min(), top, plotRight);
                final double to = x(r.max(), top, plotRight);
                final double middle = y + BAR / 2.0;
                out.append(String.format(Locale.ROOT,
                    "<g class=\"whisker\" data-transport=\"%s\" stroke=\"#222222\" stroke-width=\"1.5\">"
                        + "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        + "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        + "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>%n",
                    Html.escape(r.transport()), from, middle, to, middle, from, middle - 6, from, middle + 6, to,
                    middle - 6, to, middle + 6));
                labelX = Math.max(labelX, to + 6);
            }
            out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%s msg/s, %s MB/s</text>%n",
                labelX, y + BAR / 2.0 + 4, Svg.metric(r.median()), LatencyTable.number(r.bytesPerSecond() / 1e6, 1)));
        }
        if (floor != null) {
            final double fx = x(floor.median(), top, plotRight);
            out.append(String.format(Locale.ROOT,
                "<line class=\"floor\" data-floor=\"%s\" data-median=\"%.0f\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
                    + " stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>%n",
                StreamFloor.NAME, floor.median(), fx, TOP - 4, fx, plotBottom, FLOOR_COLOUR));
            out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">floor %s"
                + "</text>%n", fx, plotBottom + 32, Svg.metric(floor.median())));
        }
        out.append("<g class=\"legend\">\n");
        final int legendX = plotRight + 16;
        int legendY = TOP + 10;
        for (int i = 0; i < bars.size(); i++) {
            Svg.legendEntry(out, legendX, legendY, ChartPalette.colour(i), null, bars.get(i).transport());
            legendY += 20;
        }
        if (floor != null) {
            Svg.legendEntry(out, legendX, legendY, FLOOR_COLOUR, "6 4", "floor " + StreamFloor.NAME + " (C)");
            legendY += 20;
        } else {
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"legend\">no %s floor at this size</text>%n",
                legendX, legendY + 4, StreamFloor.NAME));
            legendY += 20;
        }
        if (anyWhisker) {
            out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222222\""
                + " stroke-width=\"1.5\"/><text x=\"%d\" y=\"%d\" class=\"legend\">slowest to fastest round</text>%n",
                legendX, legendY, legendX + 24, legendY, legendX + 30, legendY + 4));
        }
        out.append("</g>\n");
        return out.append("</svg>\n").toString();
    }

    private static void axes(final StringBuilder out, final double top, final double step, final int size,
                             final int plotRight, final int plotBottom) {
        out.append(String.format(Locale.ROOT, "<g class=\"axes\" stroke=\"#333333\" stroke-width=\"1\">"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>%n",
            LEFT, TOP, LEFT, plotBottom, LEFT, plotBottom, plotRight, plotBottom, LEFT, TOP, plotRight, TOP));
        for (double value = 0; value <= top + step / 2; value += step) {
            final double px = x(value, top, plotRight);
            out.append(String.format(Locale.ROOT,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%s</text>%n",
                px, TOP, px, plotBottom, px, plotBottom + 18, Svg.metric(value)));
        }
        // the top axis shows the same scale in payload megabytes per second, at round values of its own
        final double topMegabytes = top * size / 1e6;
        final double megabyteStep = niceStep(topMegabytes);
        for (double megabytes = 0; megabytes <= topMegabytes + megabyteStep / 1000; megabytes += megabyteStep) {
            final double px = x(megabytes * 1e6 / size, top, plotRight);
            out.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333333\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%s</text>%n",
                px, TOP - 5, px, TOP, px, TOP - 10, Svg.metric(megabytes)));
        }
    }

    private static double x(final double value, final double top, final int plotRight) {
        return LEFT + value / top * (plotRight - LEFT);
    }

    /**
     * A round step (1, 2 or 5 times a power of ten) that cuts {@code 0..max} into four to ten parts.
     *
     * @param max the largest value, or 0
     * @return the step, above 0
     */
    static double niceStep(final double max) {
        if (!(max > 0)) {
            return 1;
        }
        final double raw = max / 5;
        final double power = Math.pow(10, Math.floor(Math.log10(raw)));
        final double fraction = raw / power;
        return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
    }
}
