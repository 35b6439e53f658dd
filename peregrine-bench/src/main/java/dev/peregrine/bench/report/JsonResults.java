package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RecoveryLatency;
import dev.peregrine.bench.run.RunResult;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;

/**
 * The {@code --json} output: per run
 * <pre>{@code
 * {"transport":"tcp","size":256,"messages":1000000,"rate":null,
 *  "rtt_ns":{"mean":..,"p50":..,"p90":..,"p99":..,"p99_9":..,"p99_99":..,"p99_999":..,"max":..},
 *  "allocated_bytes_per_message":0.0,"scenario":"pingpong","clients":1,"throughput_msgs_per_s":..,
 *  "status":"ok","note":null}
 * }</pre>
 * one object for one run, an array for several; a run whose replies have another size than its messages
 * ({@code --reply-size}) has {@code "reply_size":N} after {@code size}. {@code rate} is null for one message in flight,
 * {@code rtt_ns} null for throughput runs, and any value that was not measured is null. {@code status} is
 * {@code ok} or {@code partial} (interrupted, stopped by an error or by the time limit: the numbers cover
 * what was measured), and {@code note} says why, or what else the numbers need to be read with, such as
 * messages a lossy transport lost. A Peregrine run ends with {@code "peregrine_counters":[{"type":..,"label":..,
 * "value":..},..]}: the responder's non-zero transport counters at the end of the run (back-pressure events,
 * rejected frames, drops, recoveries; {@code ./peregrine stat} names them), absent when it has no counters file.
 * Runs without numbers (failed, unavailable) are left out.
 */
public final class JsonResults {
    private JsonResults() {
    }

    /**
     * The JSON text of some runs.
     *
     * @param results the runs; those without numbers are skipped
     * @return one object if one run has numbers, else an array
     */
    public static String toJson(final List<RunResult> results) {
        final List<RunResult> measured = results.stream()
            .filter(r -> r.status() == RunResult.Status.OK || r.status() == RunResult.Status.PARTIAL).toList();
        if (measured.size() == 1) {
            return object(measured.get(0)) + "\n";
        }
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < measured.size(); i++) {
            out.append(i == 0 ? "\n  " : ",\n  ").append(object(measured.get(i)));
        }
        return out.append(measured.isEmpty() ? "]\n" : "\n]\n").toString();
    }

    /**
     * One run as a JSON object on one line.
     *
     * @param result the run
     * @return the object
     */
    public static String object(final RunResult result) {
        final StringBuilder out = new StringBuilder("{");
        out.append("\"transport\":").append(string(result.transport()));
        out.append(",\"size\":").append(result.size());
        if (result.replySize() != result.size()) {
            out.append(",\"reply_size\":").append(result.replySize());
        }
        out.append(",\"messages\":").append(result.messages());
        out.append(",\"rate\":").append(result.rate() > 0 ? Long.toString(result.rate()) : "null");
        out.append(",\"rtt_ns\":");
        if (result.hasLatency()) {
            final Histogram rtt = result.rtt();
            out.append("{\"mean\":").append(decimal(rtt.getMean(), 1));
            for (final LatencyTable.Percentile p : LatencyTable.PERCENTILES) {
                out.append(",\"").append(p.jsonKey()).append("\":").append(rtt.getValueAtPercentile(p.percentile()));
            }
            out.append(",\"max\":").append(rtt.getMaxValue()).append('}');
        } else {
            out.append("null");
        }
        out.append(",\"allocated_bytes_per_message\":").append(decimal(result.clientAllocatedPerMessage(), 2));
        out.append(",\"scenario\":").append(string(result.scenario()));
        out.append(",\"clients\":").append(result.clients());
        out.append(",\"throughput_msgs_per_s\":").append(decimal(result.throughputMsgsPerSecond(), 1));
        out.append(",\"status\":").append(string(result.status().name().toLowerCase(Locale.ROOT)));
        out.append(",\"note\":").append(string(result.note()));
        if (result.peregrineCounters() != null) {
            out.append(",\"peregrine_counters\":").append(dev.peregrine.bench.stat.RunCounters.json(result.peregrineCounters()));
        }
        return out.append('}').toString();
    }

    /**
     * The JSON text of a throughput summary ({@code bench throughput}): an array of one object per row,
     * <pre>{@code
     * {"transport":"netty","size":256,"messages":..,"rate":null,"rtt_ns":null,"allocated_bytes_per_message":..,
     *  "scenario":"throughput","clients":1,"throughput_msgs_per_s":<median>,"status":"ok","note":null,
     *  "rounds":3,"throughput_msgs_per_s_min":..,"throughput_msgs_per_s_max":..,"bytes_per_s":<median x size>,
     *  "ratio_to_tcp_stream_c":..,"floor":false,"batch":256,"recovery":null}
     * }</pre>
     * where {@code recovery}, for a stream with a recovery layer (MoldUDP64), is
     * {@code {"gaps":..,"p50_ns":..,"p99_ns":..,"p999_ns":..,"max_ns":..}}: the gaps filled in the measured windows
     * and their recovery latency;
     * the C floor's row first ({@code "transport":"tcp-stream-c","floor":true}, with {@code "status":"skipped"}
     * and the reason in {@code note} when it did not run). Transport rows without numbers are left out, as
     * in {@link #toJson}.
     *
     * @param rows the rows ({@link ThroughputRows#of})
     * @param batch messages offered between two flushes
     * @return the array
     */
    public static String throughput(final List<ThroughputRows.Row> rows, final int batch) {
        final List<ThroughputRows.Row> shown = rows.stream().filter(r -> r.floor() || r.measured()).toList();
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < shown.size(); i++) {
            final ThroughputRows.Row r = shown.get(i);
            final ThroughputRows.Row floor = ThroughputRows.floorFor(rows, r.size());
            out.append(i == 0 ? "\n  " : ",\n  ").append('{');
            out.append("\"transport\":").append(string(r.transport()));
            out.append(",\"size\":").append(r.size());
            out.append(",\"messages\":").append(r.messages());
            out.append(",\"rate\":null,\"rtt_ns\":null");
            out.append(",\"allocated_bytes_per_message\":").append(decimal(r.senderAllocated(), 2));
            out.append(",\"scenario\":\"throughput\",\"clients\":1");
            out.append(",\"throughput_msgs_per_s\":").append(decimal(r.median(), 1));
            out.append(",\"status\":").append(string(r.floor() && !r.measured() ? "skipped"
                : r.status().name().toLowerCase(Locale.ROOT)));
            out.append(",\"note\":").append(string(r.note()));
            out.append(",\"rounds\":").append(r.rounds());
            out.append(",\"throughput_msgs_per_s_min\":").append(decimal(r.min(), 1));
            out.append(",\"throughput_msgs_per_s_max\":").append(decimal(r.max(), 1));
            out.append(",\"bytes_per_s\":").append(decimal(r.bytesPerSecond(), 1));
            out.append(",\"ratio_to_tcp_stream_c\":").append(floor == null ? "null"
                : decimal(r.median() / floor.median(), 6));
            out.append(",\"floor\":").append(r.floor());
            out.append(",\"batch\":").append(r.floor() ? "null" : Integer.toString(batch));
            out.append(",\"recovery\":").append(RecoveryLatency.json(r.recovery()));
            out.append('}');
        }
        return out.append(shown.isEmpty() ? "]\n" : "\n]\n").toString();
    }

    private static String decimal(final double value, final int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null"
            : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /**
     * A JSON string literal.
     *
     * @param text the text, or null
     * @return the quoted, escaped literal, or {@code null}
     */
    public static String string(final String text) {
        if (text == null) {
            return "null";
        }
        final StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
