package dev.peregrine.tcp;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reference encoder and decoder for the framing specs, written from their definitions in {@link Framing}'s
 * javadoc with plain arrays and loops, and sharing no code with the codecs: the oracle of
 * {@link FrameCodecPropertyTest}. Slow and allocating on purpose; only for tests.
 */
final class ReferenceFraming {
    private static final Pattern LENGTH = Pattern.compile("length:([1248])(be|le)(\\+self)?");

    private ReferenceFraming() {
    }

    /**
     * The delimiter of a delimiter framing.
     *
     * @param spec line, crlf or delimiter:HEX
     * @return its bytes
     */
    static byte[] delimiterOf(final String spec) {
        if (spec.equals("line")) {
            return new byte[] {'\n'};
        }
        if (spec.equals("crlf")) {
            return new byte[] {'\r', '\n'};
        }
        if (!spec.startsWith("delimiter:")) {
            throw new IllegalArgumentException("spec=" + spec + " has no delimiter");
        }
        final String hex = spec.substring("delimiter:".length());
        final byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte)Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    /** The first index at or after 0 where {@code pattern} occurs in {@code data}, or -1: a naive search. */
    static int indexOf(final byte[] data, final byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= data.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static byte[] concat(final byte[] first, final byte[] second) {
        final byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    /**
     * The payload, changed where needed so that with the delimiter after it the first delimiter is that one:
     * each byte where an earlier occurrence starts becomes {@code x}, which no delimiter of these tests holds.
     */
    static byte[] withoutDelimiter(final byte[] payload, final byte[] delimiter) {
        final byte[] framed = concat(payload, delimiter);
        int at;
        while ((at = indexOf(framed, delimiter)) < payload.length) {
            framed[at] = 'x';
        }
        return java.util.Arrays.copyOf(framed, payload.length);
    }

    /**
     * Encodes frames back to back.
     *
     * @param spec a framing spec other than raw
     * @param frames the payloads
     * @return the stream
     */
    static byte[] encode(final String spec, final List<byte[]> frames) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Matcher length = LENGTH.matcher(spec);
        for (final byte[] frame : frames) {
            if (length.matches()) {
                final int width = Integer.parseInt(length.group(1));
                final long value = frame.length + (length.group(3) != null ? width : 0);
                for (int i = 0; i < width; i++) {
                    // big-endian: the most significant byte first
                    final int shift = length.group(2).equals("be") ? 8 * (width - 1 - i) : 8 * i;
                    out.write((int)(value >>> shift) & 0xFF);
                }
                out.writeBytes(frame);
            } else if (spec.startsWith("fixed:")) {
                out.writeBytes(frame);
            } else {
                out.writeBytes(frame);
                out.writeBytes(delimiterOf(spec));
            }
        }
        return out.toByteArray();
    }

    /**
     * Decodes a whole stream of complete frames.
     *
     * @param spec a framing spec other than raw
     * @param stream complete frames back to back
     * @return the payloads in order
     * @throws IllegalArgumentException if the stream ends inside a frame
     */
    static List<byte[]> decode(final String spec, final byte[] stream) {
        final List<byte[]> frames = new ArrayList<>();
        final Matcher length = LENGTH.matcher(spec);
        int position = 0;
        while (position < stream.length) {
            final int start;
            final int end;
            final int next;
            if (length.matches()) {
                final int width = Integer.parseInt(length.group(1));
                long value = 0;
                for (int i = 0; i < width; i++) {
                    final int shift = length.group(2).equals("be") ? 8 * (width - 1 - i) : 8 * i;
                    value |= (long)(stream[position + i] & 0xFF) << shift;
                }
                start = position + width;
                end = start + (int)(value - (length.group(3) != null ? width : 0));
                next = end;
            } else if (spec.startsWith("fixed:")) {
                start = position;
                end = start + Integer.parseInt(spec.substring("fixed:".length()));
                next = end;
            } else {
                final byte[] delimiter = delimiterOf(spec);
                final byte[] rest = java.util.Arrays.copyOfRange(stream, position, stream.length);
                final int at = indexOf(rest, delimiter);
                if (at < 0) {
                    throw new IllegalArgumentException("stream ends inside a frame at " + position);
                }
                start = position;
                end = position + at;
                next = end + delimiter.length;
            }
            if (end > stream.length) {
                throw new IllegalArgumentException("stream ends inside a frame at " + position);
            }
            frames.add(java.util.Arrays.copyOfRange(stream, start, end));
            position = next;
        }
        return frames;
    }
}
