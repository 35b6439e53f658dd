package dev.peregrine.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.peregrine.counters.CounterTypes;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How {@code ./peregrine stat} prints counters: a table with rates, JSON, or the OpenMetrics text format. */
final class StatFormats {
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
        .withZone(ZoneId.systemDefault());

    private StatFormats() {
    }

    static String startTime(final long startMillis) {
        return startMillis == 0 ? "?" : TIME.format(Instant.ofEpochMilli(startMillis));
    }

    /**
     * The counters as a table; with a previous reading, each counter's change per second too.
     *
     * @param now this reading
     * @param previous the one before, or null
     * @return the lines
     */
    static String table(final CountersSnapshot now, final CountersSnapshot previous) {
        final Map<Integer, CountersSnapshot.Entry> before = new LinkedHashMap<>();
        if (previous != null) {
            for (final CountersSnapshot.Entry entry : previous.counters()) {
                before.put(entry.id(), entry);
            }
        }
        final double seconds = previous == null ? 0 : (now.takenNanos() - previous.takenNanos()) / 1e9;
        final StringBuilder out = new StringBuilder();
        out.append("pid ").append(now.pid()).append("  started ").append(startTime(now.startMillis()))
            .append("  ").append(now.counters().size()).append(" counters  ").append(now.name()).append('\n');
        out.append(String.format(Locale.ROOT, "%5s  %-44s %20s %14s  %s%n", "ID", "COUNTER", "VALUE", "PER SECOND", "LABEL"));
        for (final CountersSnapshot.Entry entry : now.counters()) {
            final CountersSnapshot.Entry old = before.get(entry.id());
            final String rate;
            if (old == null || seconds <= 0 || CounterTypes.isGauge(entry.typeId()) || old.typeId() != entry.typeId()
                || !old.label().equals(entry.label())) {
                rate = "";
            } else {
                rate = String.format(Locale.ROOT, "%.1f", (entry.value() - old.value()) / seconds);
            }
            out.append(String.format(Locale.ROOT, "%5d  %-44s %20d %14s  %s%n", entry.id(),
                CounterTypes.name(entry.typeId()).replaceFirst("^peregrine_", ""), entry.value(), rate, entry.label()));
        }
        return out.toString();
    }

    /**
     * One reading as a JSON object:
     * {@code {"pid":..,"name":..,"startMillis":..,"counters":[{"id":..,"type":..,"typeId":..,"label":..,"value":..},..]}}.
     *
     * @param snapshot the reading
     * @return the JSON text
     */
    static String json(final CountersSnapshot snapshot) {
        final ObjectNode out = MAPPER.createObjectNode();
        out.put("pid", snapshot.pid());
        out.put("name", snapshot.name());
        out.put("startMillis", snapshot.startMillis());
        final ArrayNode counters = out.putArray("counters");
        for (final CountersSnapshot.Entry entry : snapshot.counters()) {
            counters.addObject().put("id", entry.id()).put("type", CounterTypes.name(entry.typeId()))
                .put("typeId", entry.typeId()).put("label", entry.label()).put("value", entry.value());
        }
        return write(out);
    }

    private static String write(final JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (final JsonProcessingException ex) {
            throw new IllegalStateException("a JSON tree could not be written: " + ex.getMessage(), ex);
        }
    }

    /**
     * Readings of one or more processes in the OpenMetrics text format: one family per counter type (with
     * {@code # TYPE} and {@code # HELP}), each sample labelled with its process, counter id and label, and
     * {@code # EOF} at the end.
     *
     * @param snapshots the readings
     * @return the exposition
     */
    static String openMetrics(final List<CountersSnapshot> snapshots) {
        final Map<Integer, StringBuilder> families = new java.util.TreeMap<>();
        for (final CountersSnapshot snapshot : snapshots) {
            for (final CountersSnapshot.Entry entry : snapshot.counters()) {
                final boolean gauge = CounterTypes.isGauge(entry.typeId());
                final String name = CounterTypes.name(entry.typeId());
                final StringBuilder family = families.computeIfAbsent(entry.typeId(), id -> new StringBuilder()
                    .append("# TYPE ").append(familyName(name, gauge)).append(gauge ? " gauge" : " counter").append('\n')
                    .append("# HELP ").append(familyName(name, gauge)).append(' ')
                    .append(escapeHelp(CounterTypes.help(entry.typeId()))).append('\n'));
                family.append(name).append("{pid=\"").append(snapshot.pid()).append("\",id=\"").append(entry.id())
                    .append("\",label=\"").append(escapeLabel(entry.label())).append("\"} ").append(entry.value()).append('\n');
            }
        }
        final StringBuilder out = new StringBuilder();
        for (final StringBuilder family : families.values()) {
            out.append(family);
        }
        return out.append("# EOF\n").toString();
    }

    /** A counter family is named without the {@code _total} its samples carry. */
    private static String familyName(final String name, final boolean gauge) {
        return !gauge && name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
    }

    static String escapeLabel(final String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private static String escapeHelp(final String value) {
        return value.replace("\\", "\\\\").replace("\n", "\\n");
    }
}
