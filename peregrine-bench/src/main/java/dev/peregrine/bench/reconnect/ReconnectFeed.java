package dev.peregrine.bench.reconnect;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The messages of {@code bench reconnect}: message {@code n} (its SoupBinTCP sequence number) is 16 bytes, {@code n}
 * and {@code n * 0x9E3779B97F4A7C15}, little-endian. The receiving side checks the content, not the numbers the
 * client hands it, so a client that skipped or repeated a message is caught by something other than its own count.
 */
final class ReconnectFeed {
    /** Bytes of each message. */
    static final int LENGTH = 16;
    private static final long MIX = 0x9E3779B97F4A7C15L;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ReconnectFeed() {
    }

    /** Writes message {@code n} at {@code offset}. */
    static void put(final MemorySegment segment, final long offset, final long n) {
        segment.set(LONG, offset, n);
        segment.set(LONG, offset + 8, n * MIX);
    }

    /**
     * The number a message carries.
     *
     * @return {@code n}, or -1 if the message is not one of the feed's
     */
    static long number(final MemorySegment segment, final long offset, final int length) {
        if (length != LENGTH) {
            return -1;
        }
        final long n = segment.get(LONG, offset);
        return segment.get(LONG, offset + 8) == n * MIX ? n : -1;
    }
}
