package dev.peregrine.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static dev.peregrine.log.LogRingDescriptor.A_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.B_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.CHANNEL_ID_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.EVENT_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.FLAGS_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.FLAG_PAYLOAD;
import static dev.peregrine.log.LogRingDescriptor.FLAG_TEXT;
import static dev.peregrine.log.LogRingDescriptor.LEVEL_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.PAYLOAD_LENGTH_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.log.LogRingDescriptor.TIMESTAMP_OFFSET;

/**
 * Formats one record of the ring into one line of text, writing bytes and digits itself: nothing is allocated.
 * The line, documented in {@code docs/logging.md}:
 * <pre>
 * 2026-11-27T05:15:40.123456789Z INFO ACCEPTED channel=3 a=1 b=0 length=15 text="127.0.0.1:40312"
 * 2026-11-27T05:15:40.123460001Z DEBUG MESSAGE_IN channel=3 a=0 b=0 length=300 data="hello\x0a..." truncated
 * </pre>
 * The payload part is there only when the record has one. Bytes from {@code 0x20} to {@code 0x7e} are shown as
 * they are, except {@code "} and {@code \}, which are escaped with a backslash; every other byte is {@code \xhh}.
 */
final class LogLineFormat {
    private static final byte[][] LEVELS = names(LogLevel.values());
    private static final byte[][] EVENTS = names(LogEvent.values());
    private static final byte[] CHANNEL = ascii(" channel=");
    private static final byte[] A = ascii(" a=");
    private static final byte[] B = ascii(" b=");
    private static final byte[] LENGTH = ascii(" length=");
    private static final byte[] DATA = ascii(" data=\"");
    private static final byte[] TEXT = ascii(" text=\"");
    private static final byte[] TRUNCATED = ascii(" truncated");
    private static final byte[] HEX = ascii("0123456789abcdef");
    private static final byte[] MIN_LONG = ascii(Long.toString(Long.MIN_VALUE));
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private LogLineFormat() {
    }

    /**
     * The longest line a record of at most {@code maxPayloadLength} payload bytes formats to.
     *
     * @param maxPayloadLength bytes
     * @return bytes
     */
    static int maxLineLength(final int maxPayloadLength) {
        return 256 + 4 * maxPayloadLength;
    }

    /**
     * Formats a committed record.
     *
     * @param ring the ring's memory
     * @param record where the record starts
     * @param recordLength header plus payload shown
     * @param out where the line goes
     * @param at where in {@code out}; {@link #maxLineLength} bytes must fit from there
     * @return where the line ends (after its line feed)
     */
    static long format(final MemorySegment ring, final long record, final int recordLength, final MemorySegment out,
                       final long at) {
        long p = timestamp(out, at, ring.get(ValueLayout.JAVA_LONG, record + TIMESTAMP_OFFSET));
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)' ');
        p = bytes(out, p, LEVELS[ring.get(ValueLayout.JAVA_BYTE, record + LEVEL_OFFSET) & 0xFF]);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)' ');
        p = bytes(out, p, EVENTS[ring.get(ValueLayout.JAVA_SHORT, record + EVENT_OFFSET) & 0xFFFF]);
        p = bytes(out, p, CHANNEL);
        p = decimal(out, p, ring.get(ValueLayout.JAVA_LONG, record + CHANNEL_ID_OFFSET));
        p = bytes(out, p, A);
        p = decimal(out, p, ring.get(ValueLayout.JAVA_LONG, record + A_OFFSET));
        p = bytes(out, p, B);
        p = decimal(out, p, ring.get(ValueLayout.JAVA_LONG, record + B_OFFSET));
        final int flags = ring.get(ValueLayout.JAVA_BYTE, record + FLAGS_OFFSET);
        if ((flags & FLAG_PAYLOAD) != 0) {
            final int length = ring.get(ValueLayout.JAVA_INT, record + PAYLOAD_LENGTH_OFFSET);
            final int shown = recordLength - RECORD_HEADER_LENGTH;
            p = bytes(out, p, LENGTH);
            p = decimal(out, p, length);
            p = bytes(out, p, (flags & FLAG_TEXT) != 0 ? TEXT : DATA);
            final long payload = record + RECORD_HEADER_LENGTH;
            for (int i = 0; i < shown; i++) {
                p = escaped(out, p, ring.get(ValueLayout.JAVA_BYTE, payload + i));
            }
            out.set(ValueLayout.JAVA_BYTE, p++, (byte)'"');
            if (shown < length) {
                p = bytes(out, p, TRUNCATED);
            }
        }
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)'\n');
        return p;
    }

    /** ISO-8601 UTC with nanoseconds, {@code yyyy-MM-ddTHH:mm:ss.nnnnnnnnnZ}; years 0 to 9999. */
    static long timestamp(final MemorySegment out, final long at, final long epochNanos) {
        final long days = Math.floorDiv(epochNanos, NANOS_PER_DAY);
        final long nanosOfDay = epochNanos - days * NANOS_PER_DAY;
        // civil from days: Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms"
        final long z = days + 719_468;
        final long era = Math.floorDiv(z, 146_097);
        final long dayOfEra = z - era * 146_097;
        final long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        final long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        final long mp = (5 * dayOfYear + 2) / 153;
        final long day = dayOfYear - (153 * mp + 2) / 5 + 1;
        final long month = mp < 10 ? mp + 3 : mp - 9;
        final long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        long p = fixed(out, at, year, 4);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)'-');
        p = fixed(out, p, month, 2);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)'-');
        p = fixed(out, p, day, 2);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)'T');
        final long seconds = nanosOfDay / 1_000_000_000L;
        p = fixed(out, p, seconds / 3600, 2);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)':');
        p = fixed(out, p, seconds / 60 % 60, 2);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)':');
        p = fixed(out, p, seconds % 60, 2);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)'.');
        p = fixed(out, p, nanosOfDay % 1_000_000_000L, 9);
        out.set(ValueLayout.JAVA_BYTE, p++, (byte)'Z');
        return p;
    }

    /** A signed decimal, without leading zeros. */
    static long decimal(final MemorySegment out, final long at, final long value) {
        if (value == Long.MIN_VALUE) {
            return bytes(out, at, MIN_LONG);
        }
        long p = at;
        long v = value;
        if (v < 0) {
            out.set(ValueLayout.JAVA_BYTE, p++, (byte)'-');
            v = -v;
        }
        int digits = 1;
        for (long rest = v / 10; rest != 0; rest /= 10) {
            digits++;
        }
        return fixed(out, p, v, digits);
    }

    private static long fixed(final MemorySegment out, final long at, final long value, final int digits) {
        long v = value;
        for (int i = digits - 1; i >= 0; i--) {
            out.set(ValueLayout.JAVA_BYTE, at + i, (byte)('0' + v % 10));
            v /= 10;
        }
        return at + digits;
    }

    private static long escaped(final MemorySegment out, final long at, final byte b) {
        long p = at;
        if (b == '"' || b == '\\') {
            out.set(ValueLayout.JAVA_BYTE, p++, (byte)'\\');
            out.set(ValueLayout.JAVA_BYTE, p++, b);
        } else if (b >= 0x20 && b <= 0x7e) {
            out.set(ValueLayout.JAVA_BYTE, p++, b);
        } else {
            out.set(ValueLayout.JAVA_BYTE, p++, (byte)'\\');
            out.set(ValueLayout.JAVA_BYTE, p++, (byte)'x');
            out.set(ValueLayout.JAVA_BYTE, p++, HEX[(b >> 4) & 0xF]);
            out.set(ValueLayout.JAVA_BYTE, p++, HEX[b & 0xF]);
        }
        return p;
    }

    private static long bytes(final MemorySegment out, final long at, final byte[] bytes) {
        MemorySegment.copy(bytes, 0, out, ValueLayout.JAVA_BYTE, at, bytes.length);
        return at + bytes.length;
    }

    private static byte[] ascii(final String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[][] names(final Enum<?>[] values) {
        final byte[][] names = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            names[i] = ascii(values[i].name());
        }
        return names;
    }
}
