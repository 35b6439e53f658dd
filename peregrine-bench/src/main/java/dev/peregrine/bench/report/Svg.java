package dev.peregrine.bench.report;

import java.util.Locale;

/**
 * What the report's charts share: the root element, the title, axis labels, legend entries and a
 * logarithmic scale. Every chart is {@code <svg class="chart" data-kind="..." data-scenario="..." data-series="N">}
 * with a
 * {@code <text class="title">}, two {@code <text class="axis-label">} and a {@code <g class="legend">}.
 */
final class Svg {
    /** The width of the legend column on the right of a chart. */
    static final int LEGEND_WIDTH = 230;

    private Svg() {
    }

    /**
     * Opens a chart: the root element, a white background and the title.
     *
     * @param out where to write
     * @param kind {@code percentiles}, {@code rate} or {@code bars}
     * @param scenario {@code pingpong}, {@code load} or {@code throughput}
     * @param series how many series the chart draws
     * @param width in pixels
     * @param height in pixels
     * @param title the title
     */
    static void open(final StringBuilder out, final String kind, final String scenario, final int series, final int width, final int height,
                     final String title) {
        out.append(String.format(Locale.ROOT,
            "<svg class=\"chart\" data-kind=\"%s\" data-scenario=\"%s\" data-series=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
                + " height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">%n",
            kind, scenario, series, width, height, width, height, Html.escape(title)));
        out.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n",
            width, height));
        out.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"24\" class=\"title\">%s</text>%n", Html.escape(title)));
    }

    /**
     * The x axis label, centred under the plot, and the y axis label, turned, left of it.
     *
     * @param out where to write
     * @param left the plot's left edge
     * @param right the plot's right edge
     * @param top the plot's top edge
     * @param bottom the plot's bottom edge
     * @param height the chart's height
     * @param xLabel the x axis label with its unit
     * @param yLabel the y axis label with its unit
     */
    static void axisLabels(final StringBuilder out, final int left, final int right, final int top, final int bottom,
                           final int height, final String xLabel, final String yLabel) {
        out.append(String.format(Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis-label\">%s</text>%n",
            (left + right) / 2, height - 14, Html.escape(xLabel)));
        final int middle = (top + bottom) / 2;
        out.append(String.format(Locale.ROOT,
            "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" class=\"axis-label\" transform=\"rotate(-90 18 %d)\">%s</text>%n",
            middle, middle, Html.escape(yLabel)));
    }

    /**
     * One legend entry: a short line in the series' colour and dash, and its text.
     *
     * @param out where to write
     * @param x left of the sample line
     * @param y its height
     * @param colour the colour
     * @param dash a {@code stroke-dasharray}, or null for a solid line
     * @param text the text
     */
    static void legendEntry(final StringBuilder out, final int x, final int y, final String colour, final String dash,
                            final String text) {
        out.append(String.format(Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"%s/>"
                + "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>%n",
            x, y, x + 24, y, colour, dash == null ? "" : " stroke-dasharray=\"" + dash + "\"", x + 30, y + 4,
            Html.escape(text)));
    }

    /**
     * A latency tick: {@code 10 us}, {@code 1 ms}, {@code 0.1 us}.
     *
     * @param micros the value in microseconds
     * @return the label
     */
    static String micros(final double micros) {
        if (micros >= 1000) {
            return String.format(Locale.ROOT, "%.0f ms", micros / 1000);
        }
        return micros >= 1 ? String.format(Locale.ROOT, "%.0f us", micros) : String.format(Locale.ROOT, "%s us",
            Double.toString(micros));
    }

    /**
     * A count with a metric suffix: {@code 500}, {@code 25k}, {@code 1.5M}.
     *
     * @param value the value
     * @return the label
     */
    static String metric(final double value) {
        if (value >= 1e9) {
            return trim(value / 1e9) + "G";
        }
        if (value >= 1e6) {
            return trim(value / 1e6) + "M";
        }
        if (value >= 1e3) {
            return trim(value / 1e3) + "k";
        }
        return trim(value);
    }

    private static String trim(final double value) {
        final String text = String.format(Locale.ROOT, "%.1f", value);
        return text.endsWith(".0") ? text.substring(0, text.length() - 2) : text;
    }

    /**
     * A logarithmic scale from data to pixels.
     *
     * @param low the lowest log10 shown
     * @param high the highest log10 shown, above {@code low}
     * @param from the pixel of {@code low}
     * @param to the pixel of {@code high}
     */
    record LogScale(double low, double high, double from, double to) {
        /**
         * The scale over whole decades around some values.
         *
         * @param min the smallest value, above 0
         * @param max the largest value
         * @param from the pixel of the lowest decade
         * @param to the pixel of the highest decade
         * @return the scale, at least one decade wide
         */
        static LogScale decades(final double min, final double max, final double from, final double to) {
            final double low = Math.floor(Math.log10(Math.max(min, 1e-3)));
            final double high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(max, 1e-3))));
            return new LogScale(low, high, from, to);
        }

        /**
         * The pixel of a value.
         *
         * @param value the value, above 0
         * @return its pixel
         */
        double at(final double value) {
            final double fraction = (Math.log10(Math.max(value, 1e-3)) - low) / (high - low);
            return from + fraction * (to - from);
        }
    }
}
