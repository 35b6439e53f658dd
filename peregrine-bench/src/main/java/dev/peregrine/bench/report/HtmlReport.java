package dev.peregrine.bench.report;

import dev.peregrine.bench.run.FloorResult;
import dev.peregrine.bench.run.RunResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report: one self-contained HTML file (no network, no external script or style) with the charts as
 * inline SVG, the summary tables, the machine, the exact command and options, each transport's
 * configuration, JIT/GC counts, and the machine's floor. The charts: ping-pong latency by percentile, one
 * chart per path (tcp, udp, shm) and size with its C floor dashed; load p50, p99 and p99.9 against the
 * offered rate, one line per transport; throughput as bars per transport with the C stream floor marked.
 */
public final class HtmlReport {
    private HtmlReport() {
    }

    /**
     * A transport as the report lists it.
     *
     * @param name its name
     * @param path tcp, udp or shm
     * @param peregrine whether it is Peregrine's own
     * @param description its configuration
     * @param unavailable why it cannot run here, or null
     */
    public record TransportInfo(String name, String path, boolean peregrine, String description, String unavailable) {
    }

    /**
     * Everything the report shows.
     *
     * @param command the exact command line
     * @param options the options in effect
     * @param machine the machine
     * @param transports every transport found
     * @param results every run
     * @param tables the summary tables
     * @param floors the floor lines
     * @param floorNote how the floor was obtained, or why there is none
     * @param notes anything else worth saying (interruptions, timings)
     * @param throughput the throughput rows ({@link ThroughputRows#of}) with the C stream floor's rows if it ran
     */
    public record Data(String command, Map<String, String> options, Map<String, String> machine,
                       List<TransportInfo> transports, List<RunResult> results, List<Table> tables,
                       List<FloorResult> floors, String floorNote, List<String> notes,
                       List<ThroughputRows.Row> throughput) {
        /**
         * Everything the report shows, the throughput rows made from the results without a stream floor.
         *
         * @param command the exact command line
         * @param options the options in effect
         * @param machine the machine
         * @param transports every transport found
         * @param results every run
         * @param tables the summary tables
         * @param floors the floor lines
         * @param floorNote how the floor was obtained, or why there is none
         * @param notes anything else worth saying (interruptions, timings)
         */
        public Data(final String command, final Map<String, String> options, final Map<String, String> machine,
                    final List<TransportInfo> transports, final List<RunResult> results, final List<Table> tables,
                    final List<FloorResult> floors, final String floorNote, final List<String> notes) {
            this(command, options, machine, transports, results, tables, floors, floorNote, notes,
                ThroughputRows.of(results, List.of()));
        }
    }

    /**
     * Renders the report.
     *
     * @param data what to show
     * @return the HTML document
     */
    public static String render(final Data data) {
        final StringBuilder out = new StringBuilder(64 * 1024);
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
            .append("<title>Peregrine benchmark report</title>\n<style>\n")
            .append("body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}")
            .append("table{border-collapse:collapse;margin:8px 0 16px}")
            .append("th,td{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}")
            .append("td.num{text-align:right;font-family:monospace}tr.group td{background:#eef;font-weight:bold}")
            .append("th{background:#f4f4f4}pre{background:#f6f6f6;padding:8px;overflow-x:auto}")
            .append(".note{font-size:12px;color:#555}svg.chart{border:1px solid #ddd;margin:8px 0}")
            .append("svg text{font-family:sans-serif}svg .title{font-size:15px;font-weight:bold}")
            .append("svg .tick{font-size:11px;fill:#444}svg .legend{font-size:12px}svg .axis-label{font-size:12px}")
            .append("div.chart-box{display:block}")
            .append("\n</style>\n</head>\n<body>\n");
        out.append("<h1>Peregrine benchmark report</h1>\n");
        out.append("<p>Command: <code>").append(Html.escape(data.command())).append("</code></p>\n");
        for (final String note : data.notes()) {
            out.append("<p class=\"note\">").append(Html.escape(note)).append("</p>\n");
        }
        out.append("<h2>Charts</h2>\n");
        charts(out, data);
        out.append("<h2>Summary</h2>\n");
        for (final Table table : data.tables()) {
            out.append(table.toHtml());
        }
        out.append("<h2>Floor of this machine</h2>\n<p>").append(Html.escape(data.floorNote())).append("</p>\n");
        if (!data.floors().isEmpty()) {
            final Table floorTable = new Table("Floor (C ping-pong, round trip in microseconds)",
                List.of("name", "size", "p50", "p90", "p99", "p99.9", "p99.99", "max"));
            for (final FloorResult f : data.floors()) {
                floorTable.row(List.of(f.name(), f.size() < 0 ? "any" : Integer.toString(f.size()),
                    LatencyTable.micros(f.p50()), LatencyTable.micros(f.p90()), LatencyTable.micros(f.p99()),
                    LatencyTable.micros(f.p999()), LatencyTable.micros(f.p9999()), LatencyTable.micros(f.max())));
            }
            out.append(floorTable.toHtml());
        }
        out.append("<h2>Runs in detail</h2>\n");
        for (final RunResult result : data.results()) {
            out.append("<pre>").append(Html.escape(LatencyTable.format(result))).append("</pre>\n");
            out.append(RunCountersHtml.of(result));
        }
        out.append("<h2>Transports</h2>\n<table>\n<tr><th>name</th><th>path</th><th>kind</th><th>configuration</th>")
            .append("<th>available here</th></tr>\n");
        for (final TransportInfo t : data.transports()) {
            out.append("<tr><td>").append(Html.escape(t.name())).append("</td><td>").append(Html.escape(t.path()))
                .append("</td><td>").append(t.peregrine() ? "Peregrine" : "peer").append("</td><td>")
                .append(Html.escape(t.description())).append("</td><td>")
                .append(t.unavailable() == null ? "yes" : "no: " + Html.escape(t.unavailable())).append("</td></tr>\n");
        }
        out.append("</table>\n<h2>Machine</h2>\n<table>\n");
        for (final Map.Entry<String, String> entry : data.machine().entrySet()) {
            out.append("<tr><th>").append(Html.escape(entry.getKey())).append("</th><td>")
                .append(Html.escape(entry.getValue())).append("</td></tr>\n");
        }
        out.append("</table>\n<h2>Options</h2>\n<table>\n");
        for (final Map.Entry<String, String> entry : data.options().entrySet()) {
            out.append("<tr><th>").append(Html.escape(entry.getKey())).append("</th><td>")
                .append(Html.escape(entry.getValue())).append("</td></tr>\n");
        }
        out.append("</table>\n");
        // Marks what the browser laid out, so that a headless browser's DOM shows it: each line's length, each
        // chart's size and how many of its series have an area (or, for a line, a length), and any script error.
        out.append("<script>\nwindow.addEventListener('error',function(){var b=document.body;")
            .append("b.setAttribute('data-script-errors',1+Number(b.getAttribute('data-script-errors')||0));});\n")
            .append("document.addEventListener('DOMContentLoaded',function(){var n=0;")
            .append("document.querySelectorAll('svg.chart path.series').forEach(function(p){")
            .append("var l=Math.round(p.getTotalLength());p.setAttribute('data-rendered-length',l);if(l>0){n++;}});")
            .append("document.body.setAttribute('data-series-drawn',n);")
            .append("document.querySelectorAll('svg.chart').forEach(function(c){var r=c.getBoundingClientRect();")
            .append("c.setAttribute('data-rendered-size',Math.round(r.width)+'x'+Math.round(r.height));var d=0;")
            .append("c.querySelectorAll('.series').forEach(function(s){var b=s.getBBox();")
            .append("if((b.width>0&&b.height>0)||(s.tagName==='path'&&s.getTotalLength()>0)){d++;}});")
            .append("c.setAttribute('data-series-rendered',d);});});\n</script>\n");
        return out.append("</body>\n</html>\n").toString();
    }

    private static void charts(final StringBuilder out, final Data data) {
        final Map<String, List<PercentileChart.Series>> pingpong = percentileSeries(data.results(), "pingpong");
        final List<String> load = LoadChart.charts(data.results());
        final Map<String, List<PercentileChart.Series>> loadDistributions = percentileSeries(data.results(), "load");
        final List<String> throughput = ThroughputChart.charts(data.throughput());
        if (pingpong.isEmpty() && load.isEmpty() && throughput.isEmpty()) {
            out.append("<p>Nothing was measured, so there is nothing to draw.</p>\n");
            return;
        }
        if (!pingpong.isEmpty()) {
            out.append("<h3>Ping-pong: round trip by percentile, one chart per path</h3>\n");
            for (final Map.Entry<String, List<PercentileChart.Series>> chart : pingpong.entrySet()) {
                final String[] key = chart.getKey().split(" ");
                final String path = key[1];
                // the C floor echoes the message: it is no floor for replies of another size
                final List<FloorResult> floors = chart.getKey().contains(" reply=") ? List.of()
                    : data.floors().stream().filter(f -> f.path().equals(path) && f.appliesTo(sizeOf(chart.getKey())))
                    .toList();
                box(out, PercentileChart.svg("pingpong", chart.getKey(), chart.getValue(), floors));
            }
        }
        if (!load.isEmpty()) {
            out.append("<h3>Load: latency against the offered rate</h3>\n");
            load.forEach(svg -> box(out, svg));
        }
        final List<String> scaling = ScalingChart.charts(data.results());
        if (!scaling.isEmpty()) {
            out.append("<h3>Load: latency against the number of connections, at one total rate</h3>\n");
            scaling.forEach(svg -> box(out, svg));
        }
        if (!throughput.isEmpty()) {
            out.append("<h3>Throughput</h3>\n");
            throughput.forEach(svg -> box(out, svg));
        }
        if (!loadDistributions.isEmpty()) {
            out.append("<h3>Load: round trip by percentile at each rate</h3>\n");
            for (final Map.Entry<String, List<PercentileChart.Series>> chart : loadDistributions.entrySet()) {
                box(out, PercentileChart.svg("load", chart.getKey(), chart.getValue(), List.of()));
            }
        }
    }

    private static void box(final StringBuilder out, final String svg) {
        out.append("<div class=\"chart-box\">\n").append(svg).append("</div>\n");
    }

    /**
     * The path a run's chart groups it under: the path its transport declares ({@code tcp} for
     * peregrine-tcp, nio, netty, socket; {@code udp} for peregrine-udp, aeron-udp; {@code shm} for
     * peregrine-shm, aeron-ipc), or {@code other} when it declares none.
     *
     * @param result the run
     * @return the path, without spaces
     */
    static String chartPath(final RunResult result) {
        final String path = result.path();
        return path == null || path.isBlank() ? "other" : path.strip().replace(' ', '-');
    }

    /**
     * Chart title (e.g. {@code pingpong tcp size=256}) to its series, for one scenario, in the order the runs
     * happened: one chart per path, size, reply size, rate and number of clients, so that lines of different
     * paths never share a chart.
     */
    private static Map<String, List<PercentileChart.Series>> percentileSeries(final List<RunResult> results,
                                                                              final String scenario) {
        final Map<String, List<PercentileChart.Series>> charts = new LinkedHashMap<>();
        for (final RunResult r : results) {
            if (!r.hasLatency() || !r.scenario().equals(scenario)) {
                continue;
            }
            final String key = r.scenario() + " " + chartPath(r) + " size=" + r.size()
                + (r.replySize() != r.size() ? " reply=" + r.replySize() : "")
                + (r.rate() > 0 ? " rate=" + r.rate() + "/s per client" : "")
                + (r.clients() > 1 ? " clients=" + r.clients() : "");
            charts.computeIfAbsent(key, k -> new ArrayList<>())
                .add(new PercentileChart.Series(r.transport() + (r.status() == RunResult.Status.OK ? "" : " (partial)"),
                    r.rtt()));
        }
        return charts;
    }

    private static int sizeOf(final String chartKey) {
        final int at = chartKey.indexOf("size=");
        int end = at + 5;
        while (end < chartKey.length() && Character.isDigit(chartKey.charAt(end))) {
            end++;
        }
        return Integer.parseInt(chartKey.substring(at + 5, end));
    }
}
