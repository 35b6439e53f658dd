package dev.peregrine.bench.run;

import java.util.Locale;
import java.util.StringJoiner;

/**
 * How many messages the throughput sender offers between two flushes: a count of messages, or as many as
 * fill a payload size. The default is a size, {@link #DEFAULT} (64 KiB), so that a flush hands the kernel about
 * the same bytes at every message size, as an application flushing once per duty cycle of a busy stream does:
 * 2048 messages of 32 B, 256 of 256 B. A paced run ({@code --rate}) flushes every {@link #PACED_DEFAULT}
 * messages instead, so that its bursts stay short (a paced MoldUDP64 run measures recovery between them).
 *
 * @param messages the count, or 0 when the batch is a payload size
 * @param bytes the payload size, or 0 when the batch is a count
 */
public record Batch(int messages, int bytes) {
    /** The largest count or size accepted. */
    public static final int MAX = 1 << 30;
    /** The batch of an unpaced run unless told otherwise: 64 KiB of payload. */
    public static final Batch DEFAULT = ofBytes(64 * 1024);
    /** The batch of a paced run unless told otherwise: 256 messages. */
    public static final Batch PACED_DEFAULT = ofMessages(256);

    /**
     * Checks the values.
     *
     * @param messages the count, or 0 when the batch is a payload size
     * @param bytes the payload size, or 0 when the batch is a count
     */
    public Batch {
        if ((messages == 0) == (bytes == 0) || messages < 0 || bytes < 0 || messages > MAX || bytes > MAX) {
            throw new IllegalArgumentException("a batch is a count of messages or a payload size, 1 to " + MAX
                + ", not messages=" + messages + " bytes=" + bytes);
        }
    }

    /**
     * A batch of a count of messages.
     *
     * @param messages the count, 1 to {@link #MAX}
     * @return the batch
     */
    public static Batch ofMessages(final int messages) {
        return new Batch(messages, 0);
    }

    /**
     * A batch of as many messages as fill a payload size (at least one).
     *
     * @param bytes the size, 1 to {@link #MAX}
     * @return the batch
     */
    public static Batch ofBytes(final int bytes) {
        return new Batch(0, bytes);
    }

    /**
     * The batch a run uses when not told: {@link #DEFAULT}, or {@link #PACED_DEFAULT} when paced.
     *
     * @param rate messages offered per second, 0 for unpaced
     * @return the batch
     */
    public static Batch defaultFor(final long rate) {
        return rate > 0 ? PACED_DEFAULT : DEFAULT;
    }

    /**
     * Parses a count ({@code 2048}) or a payload size with a unit ({@code 64KiB}, {@code 1MiB}, {@code 9000B}).
     *
     * @param text the value
     * @return the batch
     * @throws IllegalArgumentException naming what is accepted
     */
    public static Batch parse(final String text) {
        final String value = text.trim();
        int digits = 0;
        while (digits < value.length() && Character.isDigit(value.charAt(digits))) {
            digits++;
        }
        final String unit = value.substring(digits).toLowerCase(Locale.ROOT);
        final long scale = switch (unit) {
            case "" -> 0;
            case "b" -> 1;
            case "k", "kib" -> 1024;
            case "m", "mib" -> 1024 * 1024;
            default -> -1;
        };
        final long number = digits == 0 || digits > 10 ? -1 : Long.parseLong(value.substring(0, digits));
        final long amount = scale == 0 ? number : number * scale;
        if (scale < 0 || number < 1 || amount > MAX) {
            throw new IllegalArgumentException("'" + text + "' is not a batch: give a count of messages (e.g. 2048)"
                + " or a payload size (e.g. 64KiB, 1MiB, 9000B), 1 to " + MAX);
        }
        return scale == 0 ? ofMessages((int)amount) : ofBytes((int)amount);
    }

    /**
     * The messages offered between two flushes at one message size.
     *
     * @param size the payload size of each message, at least 1
     * @return the count, at least 1
     */
    public int messagesAt(final int size) {
        return messages > 0 ? messages : Math.max(1, bytes / Math.max(1, size));
    }

    /**
     * Says what the batch is, for a table's title: {@code 256 messages} or {@code 64 KiB of payload (2048
     * messages of 32 B, 256 of 256 B)} for the sizes given.
     *
     * @param sizes the message sizes of the runs
     * @return the text
     */
    public String describe(final Iterable<Integer> sizes) {
        if (messages > 0) {
            return messages + " messages";
        }
        final StringJoiner counts = new StringJoiner(", ", " (", ")").setEmptyValue("");
        for (final int size : sizes) {
            counts.add(messagesAt(size) + (counts.length() == 0 ? " messages of " : " of ") + size + " B");
        }
        return size(bytes) + " of payload" + counts;
    }

    @Override
    public String toString() {
        return messages > 0 ? Integer.toString(messages) : size(bytes);
    }

    private static String size(final int bytes) {
        return bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MiB"
            : bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " B";
    }
}
