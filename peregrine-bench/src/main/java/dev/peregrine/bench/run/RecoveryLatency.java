package dev.peregrine.bench.run;

import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;

/**
 * Recovery latency of a stream with a recovery layer (MoldUDP64): one value per gap filled, from its
 * detection to the arrival of its last message, in nanoseconds. This class ships such a histogram from the
 * receiver's JVM in one token, and merges rounds; the report shows it as text and JSON.
 */
public final class RecoveryLatency {
    private RecoveryLatency() {
    }

    /** The highest latency recorded as itself; a longer one is recorded as this (an hour). */
    static final long HIGHEST_NS = 3_600_000_000_000L;

    /**
     * An empty histogram from 1 ns to {@link #HIGHEST_NS}, 3 significant digits, made in full up front so that
     * recording allocates nothing.
     *
     * @return the histogram
     */
    static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_NS, 3);
    }

    /**
     * The histogram as one token without spaces: base64 of HdrHistogram's compressed form.
     *
     * @param histogram the histogram
     * @return the token
     */
    static String encode(final Histogram histogram) {
        final ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        final int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /**
     * Parses {@link #encode}.
     *
     * @param token the token
     * @return the histogram
     * @throws IllegalArgumentException if it is not one
     */
    static Histogram decode(final String token) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(token)), 0);
        } catch (final DataFormatException | RuntimeException ex) {
            throw new IllegalArgumentException("recovery=" + token + " is not an encoded histogram", ex);
        }
    }

    /**
     * The rounds' histograms added up.
     *
     * @param rounds the histograms, null where a round had none
     * @return the sum, or null if no round had one
     */
    public static Histogram merge(final List<Histogram> rounds) {
        Histogram sum = null;
        for (final Histogram h : rounds) {
            if (h != null) {
                if (sum == null) {
                    sum = newHistogram();
                }
                sum.add(h);
            }
        }
        return sum;
    }
}
