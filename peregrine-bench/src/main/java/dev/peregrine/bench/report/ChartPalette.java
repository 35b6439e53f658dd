package dev.peregrine.bench.report;

import java.util.Locale;

/**
 * The colours of the report's series: ten well-separated colours first (the "category10" set), then hues
 * spread by the golden angle at two lightnesses, so that every index gets a colour no other index of the
 * same chart has. Floor lines use greys and browns outside this set.
 */
final class ChartPalette {
    private static final String[] FIRST = {
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
    };
    private static final double GOLDEN_ANGLE = 137.50776405003785;

    private ChartPalette() {
    }

    /**
     * The colour of the series at an index of a chart.
     *
     * @param index 0, 1, 2, ...
     * @return {@code #rrggbb}, different for every index below 256 (a test checks it)
     */
    static String colour(final int index) {
        if (index < 0) {
            throw new IllegalArgumentException("index=" + index);
        }
        if (index < FIRST.length) {
            return FIRST[index];
        }
        final int n = index - FIRST.length;
        final double hue = (n * GOLDEN_ANGLE) % 360.0;
        // alternate two lightnesses and step the saturation slowly, so no two indices land on the same RGB
        final double lightness = n % 2 == 0 ? 0.38 : 0.55;
        final double saturation = 0.95 - (n / 2 % 8) * 0.05;
        return hsl(hue, saturation, lightness);
    }

    private static String hsl(final double hue, final double saturation, final double lightness) {
        final double c = (1 - Math.abs(2 * lightness - 1)) * saturation;
        final double h = hue / 60.0;
        final double x = c * (1 - Math.abs(h % 2 - 1));
        // the RGB order of (c, x, 0) in each 60-degree sector of the hue circle
        final double[][] sectors = {{c, x, 0}, {x, c, 0}, {0, c, x}, {0, x, c}, {x, 0, c}, {c, 0, x}};
        final double[] rgb = sectors[Math.min(5, (int)h)];
        final double m = lightness - c / 2;
        return String.format(Locale.ROOT, "#%02x%02x%02x", channel(rgb[0] + m), channel(rgb[1] + m),
            channel(rgb[2] + m));
    }

    private static int channel(final double value) {
        return (int)Math.round(Math.max(0, Math.min(1, value)) * 255);
    }
}
