package dev.peregrine.bench.report;

import java.util.Locale;
import java.util.SortedSet;
import java.util.function.LongFunction;

/**
 * The frame, grid and ticks shared by the latency charts against a logarithmic x axis ({@link LoadChart},
 * {@link ScalingChart}): an 820 x 400 drawing with the plot on the left and the legend on the right, a tick and a
 * vertical grid line at each x value measured (a quarter of a decade of room at each end), and round-trip
 * latency in microseconds on a logarithmic y axis with a grid line per decade.
 */
final class ChartAxes {
    /** The drawing's width. */
    static final int WIDTH = 820;
    /** The drawing's height. */
    static final int HEIGHT = 400;
    private static final int LEFT = 80;
    private static final int RIGHT = 200;
    /** The plot's top edge; the legend starts level with it. */
    static final int TOP = 40;
    private static final int BOTTOM = 60;

    private final SortedSet<Long> ticks;
    private final Svg.LogScale x;
    private final Svg.LogScale y;

    /**
     * Scales the axes to the values drawn.
     *
     * @param ticks the x values measured, one tick each; if empty, the chart is drawn for x = 1 and 1 to 10 us
     * @param lowMicros the lowest latency drawn, in microseconds
     * @param highMicros the highest latency drawn, in microseconds
     */
    ChartAxes(final SortedSet<Long> ticks, final double lowMicros, final double highMicros) {
        final boolean empty = ticks.isEmpty();
        this.ticks = empty ? new java.util.TreeSet<>(java.util.List.of(1L)) : ticks;
        // a quarter of a decade of room on each side, so that the end points are not on the frame
        this.x = new Svg.LogScale(Math.log10(this.ticks.first()) - 0.25, Math.log10(this.ticks.last()) + 0.25, LEFT,
            plotRight());
        this.y = Svg.LogScale.decades(empty ? 1 : lowMicros, empty ? 10 : highMicros, plotBottom(), TOP);
    }

    /**
     * Where an x value is drawn.
     *
     * @param value the value
     * @return the horizontal coordinate
     */
    double x(final double value) {
        return x.at(value);
    }

    /**
     * Where a latency is drawn.
     *
     * @param micros the latency in microseconds
     * @return the vertical coordinate
     */
    double y(final double micros) {
        return y.at(micros);
    }

    /**
     * Where the legend's entries start, right of the plot.
     *
     * @return the horizontal coordinate
     */
    int legendX() {
        return plotRight() + 16;
    }

    /**
     * Draws the frame, the grid with its tick labels, and the axis labels.
     *
     * @param out where the SVG goes
     * @param tickLabel the label of an x tick
     * @param xLabel the x axis's label
     * @param yLabel the y axis's label
     */
    void draw(final StringBuilder out, final LongFunction<String> tickLabel, final String xLabel, final String yLabel) {
        final int plotRight = plotRight();
        final int plotBottom = plotBottom();
        out.append(String.format(Locale.ROOT, "<g class=\"axes\" stroke=\"#333333\" stroke-width=\"1\">"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>%n",
            LEFT, TOP, LEFT, plotBottom, LEFT, plotBottom, plotRight, plotBottom));
        for (final long tick : ticks) {
            final double px = x.at(tick);
            out.append(String.format(Locale.ROOT,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%s</text>%n",
                px, TOP, px, plotBottom, px, plotBottom + 18, tickLabel.apply(tick)));
        }
        for (int decade = (int)y.low(); decade <= (int)y.high(); decade++) {
            final double micros = Math.pow(10, decade);
            final double py = y.at(micros);
            out.append(String.format(Locale.ROOT,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>%n",
                LEFT, py, plotRight, py, LEFT - 6, py + 4, Svg.micros(micros)));
        }
        Svg.axisLabels(out, LEFT, plotRight, TOP, plotBottom, HEIGHT, xLabel, yLabel);
    }

    private static int plotRight() {
        return WIDTH - RIGHT;
    }

    private static int plotBottom() {
        return HEIGHT - BOTTOM;
    }
}
