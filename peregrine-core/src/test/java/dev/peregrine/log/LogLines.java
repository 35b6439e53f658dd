package dev.peregrine.log;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parser of the log file's lines, written from the format in {@code docs/logging.md} and not from the formatter:
 * a line that does not match is a failure.
 */
final class LogLines {
    private static final Pattern LINE = Pattern.compile("(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z) "
        + "(DEBUG|INFO|WARN|ERROR) ([A-Z_]+) channel=(-?\\d+) a=(-?\\d+) b=(-?\\d+)"
        + "(?: length=(\\d+) (data|text)=\"((?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\\\\\|\\\\\"|\\\\x[0-9a-f]{2})*)\""
        + "( truncated)?)?");
    private static final Pattern ESCAPE = Pattern.compile("\\\\(x[0-9a-f]{2}|\\\\|\")");

    /** One parsed line; payload null when the line has none. */
    record Line(Instant time, String level, String event, long channel, long a, long b, int length, String kind,
                byte[] payload, boolean truncated) {
    }

    private LogLines() {
    }

    static List<Line> read(final Path file) throws IOException {
        final String content = Files.readString(file, StandardCharsets.US_ASCII);
        if (!content.isEmpty() && !content.endsWith("\n")) {
            throw new AssertionError("the file does not end with a whole line: ..."
                + content.substring(Math.max(0, content.length() - 80)));
        }
        final List<Line> lines = new ArrayList<>();
        for (final String text : content.lines().toList()) {
            lines.add(parse(text));
        }
        return lines;
    }

    static Line parse(final String text) {
        final Matcher m = LINE.matcher(text);
        if (!m.matches()) {
            throw new AssertionError("not a log line: " + text);
        }
        final byte[] payload = m.group(7) == null ? null : unescape(m.group(9));
        return new Line(Instant.parse(m.group(1)), m.group(2), m.group(3), Long.parseLong(m.group(4)),
            Long.parseLong(m.group(5)), Long.parseLong(m.group(6)), m.group(7) == null ? -1 : Integer.parseInt(m.group(7)),
            m.group(8), payload, m.group(10) != null);
    }

    private static byte[] unescape(final String escaped) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final Matcher m = ESCAPE.matcher(escaped);
        int at = 0;
        while (m.find()) {
            bytes.writeBytes(escaped.substring(at, m.start()).getBytes(StandardCharsets.US_ASCII));
            final String what = m.group(1);
            bytes.write(what.startsWith("x") ? Integer.parseInt(what.substring(1), 16) : what.charAt(0));
            at = m.end();
        }
        bytes.writeBytes(escaped.substring(at).getBytes(StandardCharsets.US_ASCII));
        return bytes.toByteArray();
    }
}
