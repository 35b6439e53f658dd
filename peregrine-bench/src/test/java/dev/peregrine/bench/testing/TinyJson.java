package dev.peregrine.bench.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON parser for tests: objects become LinkedHashMaps, arrays Lists, numbers Doubles.
 */
public final class TinyJson {
    private final String text;
    private int at;

    private TinyJson(final String text) {
        this.text = text;
    }

    public static Object parse(final String text) {
        final TinyJson parser = new TinyJson(text);
        final Object value = parser.value();
        parser.space();
        if (parser.at != text.length()) {
            throw new IllegalArgumentException("trailing text at " + parser.at);
        }
        return value;
    }

    private Object value() {
        space();
        final char c = text.charAt(at);
        if (c == '{') {
            return object();
        }
        if (c == '[') {
            return array();
        }
        if (c == '"') {
            return string();
        }
        if (text.startsWith("null", at)) {
            at += 4;
            return null;
        }
        if (text.startsWith("true", at)) {
            at += 4;
            return Boolean.TRUE;
        }
        if (text.startsWith("false", at)) {
            at += 5;
            return Boolean.FALSE;
        }
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        if (start == at) {
            throw new IllegalArgumentException("unexpected '" + c + "' at " + at);
        }
        return Double.parseDouble(text.substring(start, at));
    }

    private Map<String, Object> object() {
        final Map<String, Object> map = new LinkedHashMap<>();
        at++;
        space();
        if (text.charAt(at) == '}') {
            at++;
            return map;
        }
        while (true) {
            space();
            final String key = string();
            space();
            expect(':');
            if (map.put(key, value()) != null) {
                throw new IllegalArgumentException("duplicate key " + key);
            }
            space();
            if (text.charAt(at) == ',') {
                at++;
            } else {
                expect('}');
                return map;
            }
        }
    }

    private List<Object> array() {
        final List<Object> list = new ArrayList<>();
        at++;
        space();
        if (text.charAt(at) == ']') {
            at++;
            return list;
        }
        while (true) {
            list.add(value());
            space();
            if (text.charAt(at) == ',') {
                at++;
            } else {
                expect(']');
                return list;
            }
        }
    }

    private String string() {
        expect('"');
        final StringBuilder out = new StringBuilder();
        while (true) {
            final char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw new IllegalArgumentException("control character in string at " + at);
            }
            if (c == '\\') {
                final char e = text.charAt(at++);
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        out.append((char)Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> throw new IllegalArgumentException("bad escape at " + at);
                }
            } else {
                out.append(c);
            }
        }
    }

    private void expect(final char c) {
        if (text.charAt(at) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + at + " found '" + text.charAt(at) + "'");
        }
        at++;
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }
}
