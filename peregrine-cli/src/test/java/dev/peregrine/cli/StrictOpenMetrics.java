package dev.peregrine.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict parser of the OpenMetrics text format (the subset of counters and gauges), written from the
 * specification for the tests: it refuses anything the format does not allow rather than guess.
 */
final class StrictOpenMetrics {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\\.[0-9]+(?:[eE][+-]?[0-9]+)?|Inf|inf|NaN)");

    /**
     * One sample.
     *
     * @param name the sample's name
     * @param labels its labels, unescaped
     * @param value its value
     */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /**
     * One metric family.
     *
     * @param name the family's name
     * @param type counter or gauge
     * @param help the help text, unescaped
     * @param samples its samples
     */
    record Family(String name, String type, String help, List<Sample> samples) {
    }

    private StrictOpenMetrics() {
    }

    /**
     * Parses an exposition.
     *
     * @param text the exposition
     * @return the families by name
     * @throws IllegalArgumentException naming the line and the fault
     */
    static Map<String, Family> parse(final String text) {
        if (!text.endsWith("# EOF\n") && !text.endsWith("# EOF")) {
            throw new IllegalArgumentException("no # EOF at the end");
        }
        final String[] lines = text.split("\n", -1);
        final int last = text.endsWith("\n") ? lines.length - 2 : lines.length - 1;
        final Map<String, Family> families = new LinkedHashMap<>();
        final Set<String> sampleKeys = new HashSet<>();
        Family current = null;
        for (int i = 0; i < last; i++) {
            final String line = lines[i];
            final String where = "line " + (i + 1) + " '" + line + "': ";
            if (line.isEmpty()) {
                throw new IllegalArgumentException(where + "empty line");
            }
            if (line.startsWith("# ")) {
                final String[] parts = line.split(" ", 4);
                if (parts.length < 4) {
                    throw new IllegalArgumentException(where + "short metadata line");
                }
                final String name = parts[2];
                if (!METRIC_NAME.matcher(name).matches()) {
                    throw new IllegalArgumentException(where + "bad metric name");
                }
                if (parts[1].equals("TYPE")) {
                    if (families.containsKey(name)) {
                        throw new IllegalArgumentException(where + "family declared twice");
                    }
                    if (!parts[3].equals("counter") && !parts[3].equals("gauge")) {
                        throw new IllegalArgumentException(where + "type not counter or gauge");
                    }
                    current = new Family(name, parts[3], null, new ArrayList<>());
                    families.put(name, current);
                } else if (parts[1].equals("HELP")) {
                    if (current == null || !current.name().equals(name) || current.help() != null || !current.samples().isEmpty()) {
                        throw new IllegalArgumentException(where + "HELP not right after its family's TYPE");
                    }
                    current = new Family(name, current.type(), unescape(parts[3], false, where), current.samples());
                    families.put(name, current);
                } else {
                    throw new IllegalArgumentException(where + "unknown metadata");
                }
                continue;
            }
            if (line.startsWith("#")) {
                throw new IllegalArgumentException(where + "bad comment");
            }
            if (current == null) {
                throw new IllegalArgumentException(where + "sample before any family");
            }
            final Sample sample = sample(line, where);
            final String expected = current.type().equals("counter") ? current.name() + "_total" : current.name();
            if (!sample.name().equals(expected)) {
                throw new IllegalArgumentException(where + "sample " + sample.name() + " outside its family " + current.name());
            }
            if (!sampleKeys.add(sample.name() + sample.labels())) {
                throw new IllegalArgumentException(where + "duplicate sample");
            }
            if (current.type().equals("counter") && !(sample.value() >= 0)) {
                throw new IllegalArgumentException(where + "negative or NaN counter");
            }
            current.samples().add(sample);
        }
        if (!lines[last].equals("# EOF")) {
            throw new IllegalArgumentException("last line is not # EOF");
        }
        return families;
    }

    private static Sample sample(final String line, final String where) {
        int at = 0;
        while (at < line.length() && line.charAt(at) != '{' && line.charAt(at) != ' ') {
            at++;
        }
        final String name = line.substring(0, at);
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(where + "bad metric name");
        }
        final Map<String, String> labels = new TreeMap<>();
        if (at < line.length() && line.charAt(at) == '{') {
            at++;
            while (true) {
                final int equals = line.indexOf('=', at);
                if (equals < 0) {
                    throw new IllegalArgumentException(where + "label without =");
                }
                final String labelName = line.substring(at, equals);
                if (!LABEL_NAME.matcher(labelName).matches()) {
                    throw new IllegalArgumentException(where + "bad label name '" + labelName + "'");
                }
                if (equals + 1 >= line.length() || line.charAt(equals + 1) != '"') {
                    throw new IllegalArgumentException(where + "label value not quoted");
                }
                int end = equals + 2;
                final StringBuilder raw = new StringBuilder();
                while (end < line.length() && line.charAt(end) != '"') {
                    if (line.charAt(end) == '\\') {
                        if (end + 1 >= line.length()) {
                            throw new IllegalArgumentException(where + "escape at the end");
                        }
                        raw.append(line, end, end + 2);
                        end += 2;
                    } else {
                        raw.append(line.charAt(end));
                        end++;
                    }
                }
                if (end >= line.length()) {
                    throw new IllegalArgumentException(where + "unterminated label value");
                }
                if (labels.put(labelName, unescape(raw.toString(), true, where)) != null) {
                    throw new IllegalArgumentException(where + "label repeated");
                }
                at = end + 1;
                if (at < line.length() && line.charAt(at) == ',') {
                    at++;
                } else if (at < line.length() && line.charAt(at) == '}') {
                    at++;
                    break;
                } else {
                    throw new IllegalArgumentException(where + "expected , or }");
                }
            }
        }
        if (at >= line.length() || line.charAt(at) != ' ') {
            throw new IllegalArgumentException(where + "no space before the value");
        }
        final String value = line.substring(at + 1);
        if (!NUMBER.matcher(value).matches()) {
            throw new IllegalArgumentException(where + "value '" + value + "' is not a number");
        }
        return new Sample(name, labels, value.endsWith("nf") ? (value.startsWith("-") ? Double.NEGATIVE_INFINITY
            : Double.POSITIVE_INFINITY) : Double.parseDouble(value));
    }

    private static String unescape(final String text, final boolean quotes, final String where) {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (c == '\n' || quotes && c == '"') {
                throw new IllegalArgumentException(where + "unescaped " + (c == '"' ? "quote" : "newline"));
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (i + 1 >= text.length()) {
                throw new IllegalArgumentException(where + "escape at the end");
            }
            final char next = text.charAt(++i);
            switch (next) {
                case '\\' -> out.append('\\');
                case 'n' -> out.append('\n');
                case '"' -> out.append('"');
                default -> throw new IllegalArgumentException(where + "bad escape \\" + next);
            }
        }
        return out.toString();
    }
}
