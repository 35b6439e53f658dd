package dev.peregrine.mold;

/**
 * How long a subscriber waits for an answer before it asks again: the measured round trip of answered
 * requests, smoothed as TCP smooths its own (RFC 6298: mean plus four times the mean deviation), doubled
 * for each further attempt of the same request, capped. Only requests sent once are timed (Karn: the answer
 * to a repeated request may answer any of its copies). Before the first sample, and as an upper bound of
 * the first wait, it is the configured request timeout.
 *
 * <p>Not thread-safe: the subscriber's reactor thread.
 */
final class MoldUDP64RequestTimeout {
    /** The shortest first wait, whatever the round trip: the scheduling noise of a busy host. */
    static final long MIN_TIMEOUT_NS = 100_000L;
    private static final int MAX_BACKOFF_SHIFT = 20;

    private final long firstTimeoutNs;
    private final long maxTimeoutNs;
    private long smoothedNs;
    private long deviationNs;
    private long samples;

    /**
     * Creates the estimator.
     *
     * @param firstTimeoutNs the wait before any round trip is known, and the longest first wait
     * @param maxTimeoutNs where the doubling stops
     */
    MoldUDP64RequestTimeout(final long firstTimeoutNs, final long maxTimeoutNs) {
        this.firstTimeoutNs = firstTimeoutNs;
        this.maxTimeoutNs = Math.max(maxTimeoutNs, firstTimeoutNs);
    }

    /**
     * Takes the round trip of a request answered at its first attempt.
     *
     * @param roundTripNs from the request's sending to its answer's arrival
     */
    void sample(final long roundTripNs) {
        if (samples++ == 0) {
            smoothedNs = roundTripNs;
            deviationNs = roundTripNs / 2;
        } else {
            deviationNs += (Math.abs(smoothedNs - roundTripNs) - deviationNs) / 4;
            smoothedNs += (roundTripNs - smoothedNs) / 8;
        }
    }

    /**
     * The wait after the first attempt of a request.
     *
     * @return nanoseconds
     */
    long firstWaitNs() {
        if (samples == 0) {
            return firstTimeoutNs;
        }
        return Math.min(Math.max(smoothedNs + 4 * deviationNs, MIN_TIMEOUT_NS), firstTimeoutNs);
    }

    /**
     * The wait after a request's {@code attempts}-th sending: the first wait doubled each time, capped.
     *
     * @param attempts how many times it was sent, at least 1
     * @return nanoseconds
     */
    long waitNs(final int attempts) {
        final int shift = Math.min(Math.max(attempts - 1, 0), MAX_BACKOFF_SHIFT);
        return doubled(firstWaitNs(), shift);
    }

    /** {@code first} doubled {@code shift} times, capped at the maximum timeout (without overflowing). */
    private long doubled(final long first, final int shift) {
        return first > maxTimeoutNs >> shift ? maxTimeoutNs : first << shift;
    }

    /**
     * How long {@code attempts} sendings of a request take to time out at the configured timeout, whatever round
     * trip was measured: the configured first wait, doubled each time, capped. The subscriber gives a gap up for
     * want of an answer no sooner than this after its first request, so that a fast measured round trip shortens the
     * waits between repeats but not its patience with a server that falls silent for a while.
     *
     * @param attempts how many sendings, at least 1
     * @return nanoseconds, {@link Long#MAX_VALUE} if the sum would overflow
     */
    long configuredWaitsNs(final int attempts) {
        long total = 0;
        for (int k = 1; k <= attempts; k++) {
            final int shift = k - 1;
            final long wait = doubled(firstTimeoutNs, shift);
            if (wait == maxTimeoutNs || shift == MAX_BACKOFF_SHIFT) { // the same wait from here on: no loop to the end
                final long rest = attempts - shift;
                return rest > (Long.MAX_VALUE - total) / wait ? Long.MAX_VALUE : total + rest * wait;
            }
            total += wait;
        }
        return total;
    }

    /**
     * Round trips taken so far.
     *
     * @return the count
     */
    long samples() {
        return samples;
    }
}
