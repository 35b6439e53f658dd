package dev.peregrine.bench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.stat.RunCounter;
import org.HdrHistogram.Histogram;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code --json} output: per run
 * <pre>{@code
 * {"transport":"tcp","size":256,"messages":1000000,"rate":null,
 *  "rtt_ns":{"mean":..,"p50":..,"p90":..,"p99":..,"p99_9":..,"p99_99":..,"p99_999":..,"max":..},
 *  "allocated_bytes_per_message":0.0,"scenario":"pingpong","clients":1,"throughput_msgs_per_s":..,
 *  "status":"ok","note":null}
 * }</pre>
 * one object for one run, an array for several; a run whose replies have another size than its messages
 * ({@code --reply-size}) has {@code "reply_size":N} after {@code size}. A fixed-rate run whose clients' sustained
 * rate was measured ({@code bench load}, one client thread) has {@code "sent_rate":..} after {@code rate}: messages per
 * second each client sent, to read beside the rate offered; one whose responder answered only every Nth message
 * ({@code --respond-every}) then has {@code "respond_every":N}, and its {@code messages} and {@code rtt_ns} are of
 * the answered ones. {@code rate} is null for one message in flight,
 * {@code rtt_ns} null for throughput runs, and any value that was not measured is null. {@code status} is
 * {@code ok} or {@code partial} (interrupted, stopped by an error or by the time limit: the numbers cover
 * what was measured), and {@code note} says why, or what else the numbers need to be read with, such as
 * messages a lossy transport lost. A Peregrine run ends with {@code "peregrine_counters":[{"type":..,"label":..,
 * "value":..},..]}: the responder's non-zero transport counters at the end of the run (back-pressure events,
 * rejected frames, drops, recoveries; {@code ./peregrine stat} names them), absent when it has no counters file.
 * Runs without numbers (failed, unavailable) are left out. Runs made in rounds ({@code bench load --rounds N}) are
 * always an array, and each object ends with {@code "round":K}.
 *
 * <p>Jackson writes every object (its tree model, so the fields keep this order) and the layout is kept: an
 * array has one run per line; decimals have a fixed number of places ({@code 0.00}, {@code 50000.0}), never an
 * exponent.
 */
public final class JsonResults {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

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
        return array(measured.stream().map(JsonResults::node).toList());
    }

    /**
     * The JSON text of runs made in rounds ({@code bench load --rounds N}): always an array, each run's object
     * ending with {@code "round":K}, the round (from 1) it ran in.
     *
     * @param results the runs; those without numbers are skipped
     * @param rounds the round of each run, in the same order
     * @return the array
     * @throws IllegalArgumentException if the lists differ in length
     */
    public static String toJson(final List<RunResult> results, final List<Integer> rounds) {
        if (rounds.size() != results.size()) {
            throw new IllegalArgumentException(results.size() + " runs but " + rounds.size() + " rounds");
        }
        final List<ObjectNode> nodes = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            final RunResult result = results.get(i);
            if (result.status() == RunResult.Status.OK || result.status() == RunResult.Status.PARTIAL) {
                nodes.add(node(result).put("round", rounds.get(i)));
            }
        }
        return array(nodes);
    }

    /**
     * One run as a JSON object on one line.
     *
     * @param result the run
     * @return the object
     */
    public static String object(final RunResult result) {
        return write(node(result));
    }

    private static ObjectNode node(final RunResult result) {
        final ObjectNode out = MAPPER.createObjectNode();
        out.put("transport", result.transport());
        out.put("size", result.size());
        if (result.replySize() != result.size()) {
            out.put("reply_size", result.replySize());
        }
        out.put("messages", result.messages());
        out.put("rate", result.rate() > 0 ? Long.valueOf(result.rate()) : null);
        if (!Double.isNaN(result.sentRate())) {
            out.set("sent_rate", decimal(result.sentRate(), 1));
        }
        if (result.respondEvery() > 1) {
            out.put("respond_every", result.respondEvery());
        }
        if (result.hasLatency()) {
            final Histogram rtt = result.rtt();
            final ObjectNode latency = out.putObject("rtt_ns");
            latency.set("mean", decimal(rtt.getMean(), 1));
            for (final LatencyTable.Percentile p : LatencyTable.PERCENTILES) {
                latency.put(p.jsonKey(), rtt.getValueAtPercentile(p.percentile()));
            }
            latency.put("max", rtt.getMaxValue());
        } else {
            out.putNull("rtt_ns");
        }
        out.set("allocated_bytes_per_message", decimal(result.clientAllocatedPerMessage(), 2));
        out.put("scenario", result.scenario());
        out.put("clients", result.clients());
        out.set("throughput_msgs_per_s", decimal(result.throughputMsgsPerSecond(), 1));
        out.put("status", result.status().name().toLowerCase(Locale.ROOT));
        out.put("note", result.note());
        if (result.peregrineCounters() != null) {
            final ArrayNode counters = out.putArray("peregrine_counters");
            for (final RunCounter counter : result.peregrineCounters()) {
                counters.addObject().put("type", counter.type()).put("label", counter.label()).put("value", counter.value());
            }
        }
        return out;
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
     * and their recovery latency (null percentiles when no gap was filled);
     * the C floor's row first ({@code "transport":"tcp-stream-c","floor":true}, with {@code "status":"skipped"}
     * and the reason in {@code note} when it did not run). Transport rows without numbers are left out, as
     * in {@link #toJson}.
     *
     * @param rows the rows ({@link ThroughputRows#of})
     * @param batch what the sender offered between two flushes ({@code "batch"} is the count of messages it
     *     made at the row's size)
     * @return the array
     */
    public static String throughput(final List<ThroughputRows.Row> rows, final Batch batch) {
        final List<ObjectNode> nodes = new ArrayList<>();
        for (final ThroughputRows.Row r : rows) {
            if (!r.floor() && !r.measured()) {
                continue;
            }
            final ThroughputRows.Row floor = ThroughputRows.floorFor(rows, r.size());
            final ObjectNode out = MAPPER.createObjectNode();
            out.put("transport", r.transport());
            out.put("size", r.size());
            out.put("messages", r.messages());
            out.putNull("rate");
            out.putNull("rtt_ns");
            out.set("allocated_bytes_per_message", decimal(r.senderAllocated(), 2));
            out.put("scenario", "throughput");
            out.put("clients", 1);
            out.set("throughput_msgs_per_s", decimal(r.median(), 1));
            out.put("status", r.floor() && !r.measured() ? "skipped" : r.status().name().toLowerCase(Locale.ROOT));
            out.put("note", r.note());
            out.put("rounds", r.rounds());
            out.set("throughput_msgs_per_s_min", decimal(r.min(), 1));
            out.set("throughput_msgs_per_s_max", decimal(r.max(), 1));
            out.set("bytes_per_s", decimal(r.bytesPerSecond(), 1));
            out.set("ratio_to_tcp_stream_c", floor == null ? NullNode.getInstance()
                : decimal(r.median() / floor.median(), 6));
            out.put("floor", r.floor());
            out.put("batch", r.floor() ? null : Integer.valueOf(batch.messagesAt(r.size())));
            out.set("recovery", recovery(r.recovery()));
            nodes.add(out);
        }
        return array(nodes);
    }

    private static JsonNode recovery(final Histogram histogram) {
        if (histogram == null) {
            return NullNode.getInstance();
        }
        final boolean any = histogram.getTotalCount() > 0;
        final ObjectNode out = MAPPER.createObjectNode();
        out.put("gaps", histogram.getTotalCount());
        out.put("p50_ns", any ? Long.valueOf(histogram.getValueAtPercentile(50)) : null);
        out.put("p99_ns", any ? Long.valueOf(histogram.getValueAtPercentile(99)) : null);
        out.put("p999_ns", any ? Long.valueOf(histogram.getValueAtPercentile(99.9)) : null);
        out.put("max_ns", any ? Long.valueOf(histogram.getMaxValue()) : null);
        return out;
    }

    /**
     * The JSON text of some runs ({@link #toJson(List)}, or with rounds {@link #toJson(List, List)}), each run's
     * object ending with the given fields: what is true of every run of the command, such as
     * {@code "client_wait":"block"} ({@code bench pingpong --client-wait}), before {@code round}.
     *
     * @param results the runs; those without numbers are skipped
     * @param rounds the round of each run, in the same order, or null for runs not made in rounds
     * @param fields names and values, in their order
     * @return the text
     * @throws IllegalArgumentException if the lists differ in length
     */
    public static String toJson(final List<RunResult> results, final List<Integer> rounds,
                                final Map<String, String> fields) {
        if (rounds != null && rounds.size() != results.size()) {
            throw new IllegalArgumentException(results.size() + " runs but " + rounds.size() + " rounds");
        }
        final List<ObjectNode> nodes = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            final RunResult result = results.get(i);
            if (result.status() == RunResult.Status.OK || result.status() == RunResult.Status.PARTIAL) {
                final ObjectNode node = node(result);
                fields.forEach(node::put);
                if (rounds != null) {
                    node.put("round", rounds.get(i));
                }
                nodes.add(node);
            }
        }
        return rounds == null && nodes.size() == 1 ? write(nodes.get(0)) + "\n" : array(nodes);
    }

    /** An array with one element per line, as the hand-written writer laid it out, so runs stay greppable. */
    private static String array(final List<ObjectNode> nodes) {
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < nodes.size(); i++) {
            out.append(i == 0 ? "\n  " : ",\n  ").append(write(nodes.get(i)));
        }
        return out.append(nodes.isEmpty() ? "]\n" : "\n]\n").toString();
    }

    private static String write(final JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (final JsonProcessingException ex) {
            throw new IllegalStateException("a JSON tree could not be written: " + ex.getMessage(), ex);
        }
    }

    /**
     * A number with a fixed count of decimals, rounded half up as {@code %.Nf} does, or null when not measured.
     * A {@link DecimalNode} is written as it is, trailing zeros included ({@code 0.00}).
     */
    private static JsonNode decimal(final double value, final int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? NullNode.getInstance()
            : DecimalNode.valueOf(BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP));
    }
}
