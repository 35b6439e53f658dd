package dev.peregrine.bench.run;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One line of the machine's physical floor ({@code ../shared/floor/run}): a C ping-pong's round trip, e.g.
 * {@code tcp-c size=256 rtt ns: p50=10871 p90=12307 p99=26631 p99.9=41129 p99.99=150637 max=187954}
 * (the {@code shm-c} line has no size).
 *
 * @param name e.g. {@code tcp-c}
 * @param size message size, or -1 if the line names none (it then applies to every size)
 * @param p50 median round trip in ns
 * @param p90 in ns
 * @param p99 in ns
 * @param p999 99.9th percentile in ns
 * @param p9999 99.99th percentile in ns
 * @param max in ns
 */
public record FloorResult(String name, int size, long p50, long p90, long p99, long p999, long p9999, long max) {
    private static final Pattern LINE = Pattern.compile(
        "^\\s*(\\S+)(?:\\s+size=(\\d+))?\\s+rtt ns:\\s+p50=(\\d+)\\s+p90=(\\d+)\\s+p99=(\\d+)\\s+p99\\.9=(\\d+)"
            + "\\s+p99\\.99=(\\d+)\\s+max=(\\d+)\\s*$");

    /**
     * The path the floor line measures: the name up to its first {@code -} ({@code tcp-c} is {@code tcp}).
     *
     * @return {@code tcp}, {@code udp}, {@code shm} or the name
     */
    public String path() {
        final int dash = name.indexOf('-');
        return dash < 0 ? name : name.substring(0, dash);
    }

    /**
     * Whether this line applies to a message size.
     *
     * @param messageSize the size
     * @return true if it names that size or none
     */
    public boolean appliesTo(final int messageSize) {
        return size < 0 || size == messageSize;
    }

    /**
     * Parses one line.
     *
     * @param line a line of the floor's output
     * @return the result, or null if the line is not a floor line
     */
    public static FloorResult parse(final String line) {
        final Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            return null;
        }
        try {
            return new FloorResult(m.group(1), m.group(2) == null ? -1 : Integer.parseInt(m.group(2)),
                Long.parseLong(m.group(3)), Long.parseLong(m.group(4)), Long.parseLong(m.group(5)),
                Long.parseLong(m.group(6)), Long.parseLong(m.group(7)), Long.parseLong(m.group(8)));
        } catch (final NumberFormatException ex) {
            return null; // a number too large for a long is not a floor we can use
        }
    }

    /**
     * Parses every floor line of some output, ignoring the other lines.
     *
     * @param output the whole output
     * @return the floor lines found
     */
    public static List<FloorResult> parseAll(final String output) {
        final List<FloorResult> found = new ArrayList<>();
        for (final String line : output.split("\\R")) {
            final FloorResult result = parse(line);
            if (result != null) {
                found.add(result);
            }
        }
        return found;
    }

    /**
     * The floor for a path and size among some results.
     *
     * @param floors the results
     * @param path the path
     * @param messageSize the size
     * @return the matching line (one naming the size preferred), or null
     */
    public static FloorResult find(final List<FloorResult> floors, final String path, final int messageSize) {
        FloorResult any = null;
        for (final FloorResult floor : floors) {
            if (floor.path().equals(path) && floor.appliesTo(messageSize)) {
                if (floor.size() == messageSize) {
                    return floor;
                }
                any = floor;
            }
        }
        return any;
    }

    /**
     * The floor of runs made in rounds: one line per name and size, each figure the median over the rounds that
     * printed that line (the mean of the two middle ones for an even count, as the transports' medians are).
     *
     * @param rounds the lines of each round
     * @return one line per name and size, in the order they first appeared
     */
    public static List<FloorResult> medians(final List<List<FloorResult>> rounds) {
        final java.util.Map<String, List<FloorResult>> byLine = new java.util.LinkedHashMap<>();
        for (final List<FloorResult> round : rounds) {
            for (final FloorResult floor : withoutRepeats(round)) {
                byLine.computeIfAbsent(floor.name() + "\u0000" + floor.size(), k -> new ArrayList<>()).add(floor);
            }
        }
        final List<FloorResult> medians = new ArrayList<>();
        for (final List<FloorResult> lines : byLine.values()) {
            final FloorResult first = lines.get(0);
            medians.add(new FloorResult(first.name(), first.size(), median(lines, FloorResult::p50),
                median(lines, FloorResult::p90), median(lines, FloorResult::p99), median(lines, FloorResult::p999),
                median(lines, FloorResult::p9999), median(lines, FloorResult::max)));
        }
        return medians;
    }

    private static long median(final List<FloorResult> lines, final java.util.function.ToLongFunction<FloorResult> field) {
        final long[] values = lines.stream().mapToLong(field).sorted().toArray();
        final int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }

    /**
     * Drops repeated lines that name no size (the shared-memory floor is printed once per run of the script,
     * whatever the size), keeping the first of each name.
     *
     * @param floors the lines
     * @return the lines without such repeats
     */
    public static List<FloorResult> withoutRepeats(final List<FloorResult> floors) {
        final List<FloorResult> kept = new ArrayList<>();
        final java.util.Set<String> sizeless = new java.util.HashSet<>();
        for (final FloorResult floor : floors) {
            if (floor.size() >= 0 || sizeless.add(floor.name())) {
                kept.add(floor);
            }
        }
        return kept;
    }
}
