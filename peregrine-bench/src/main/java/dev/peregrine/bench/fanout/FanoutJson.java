package dev.peregrine.bench.fanout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * {@code bench fanout --json FILE}: one object per row, with every round's bytes per message on the writer's thread
 * and on each reader's, so that a one-off in one round can be told from a cost every round pays. Per row:
 * {@code transport}, {@code readers}, {@code size}, {@code mode} ({@code latency} or {@code throughput}),
 * {@code failure} (null if none), {@code messages_per_second}, {@code worst_p99_us} (latency rows),
 * {@code b_per_msg_writer} and {@code b_per_msg_readers} (the most of any round, as the table shows), and
 * {@code rounds}: {@code [{"round": 1, "writer": 0.0, "readers": [0.0, 0.1], "writer_cpu": 0.97,
 * "readers_cpu": [0.41, 0.45]}, ...]}, the CPU figures each thread's CPU time over its window's wall time (1.0: a
 * whole core). A figure not measured is null (a reader a scenario played on, or a JVM that cannot tell).
 */
public final class FanoutJson {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

    private FanoutJson() {
    }

    /**
     * The JSON text of the rows.
     *
     * @param rows the table's rows
     * @return an array, one row per line
     */
    public static String toJson(final List<FanoutResult> rows) {
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < rows.size(); i++) {
            out.append(i == 0 ? "\n  " : ",\n  ").append(write(node(rows.get(i))));
        }
        return out.append(rows.isEmpty() ? "]\n" : "\n]\n").toString();
    }

    private static ObjectNode node(final FanoutResult row) {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("transport", row.transport());
        node.put("readers", row.readers());
        node.put("size", row.size());
        node.put("mode", row.latency() ? "latency" : "throughput");
        node.put("failure", row.failure());
        node.set("messages_per_second", decimal(row.failed() ? Double.NaN : row.messagesPerSecond(), 0));
        node.set("worst_p99_us", decimal(row.latency() && !row.failed() ? row.worst(99) / 1000.0 : Double.NaN, 2));
        node.set("b_per_msg_writer", decimal(row.writerAllocated(), 2));
        node.set("b_per_msg_readers", decimal(row.readersAllocated(), 2));
        final ArrayNode rounds = node.putArray("rounds");
        for (int i = 0; i < row.allocations().size(); i++) {
            final FanoutResult.Allocation a = row.allocations().get(i);
            final ObjectNode round = rounds.addObject();
            round.put("round", i + 1);
            round.set("writer", decimal(a.writer(), 2));
            final ArrayNode readers = round.putArray("readers");
            for (final double reader : a.readers()) {
                readers.add(decimal(reader, 2));
            }
            round.set("writer_cpu", decimal(a.writerCpu(), 2));
            final ArrayNode readersCpu = round.putArray("readers_cpu");
            for (final double reader : a.readersCpu()) {
                readersCpu.add(decimal(reader, 2));
            }
        }
        return node;
    }

    private static String write(final JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (final JsonProcessingException ex) {
            throw new IllegalStateException("a JSON tree could not be written: " + ex.getMessage(), ex);
        }
    }

    /** A number rounded half up to {@code decimals}, or null when unknown (NaN, infinite or negative). */
    private static JsonNode decimal(final double value, final int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) || value < 0 ? NullNode.getInstance()
            : DecimalNode.valueOf(BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP));
    }
}
