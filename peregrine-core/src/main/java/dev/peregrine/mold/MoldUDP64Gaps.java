package dev.peregrine.mold;

import dev.peregrine.internal.jfr.MoldGapFilledEvent;
import dev.peregrine.reactor.ErrorHandler;

/**
 * A subscriber's missing ranges, sorted and disjoint, each with the state of its re-request: a fixed
 * number of records in parallel arrays, made up front.
 *
 * <p>The invariant the subscriber keeps: every sequence number from the next expected one up to the
 * highest seen that is not in the reorder buffer lies in a gap. A gap may also cover buffered messages
 * (when the list is full, a new gap is merged into the last one): that asks for a few messages twice,
 * and the answers' copies are skipped as duplicates.
 *
 * <p>Not thread-safe: the subscriber's reactor thread.
 */
final class MoldUDP64Gaps {
    final long[] from;
    final long[] to;
    final long[] detectedFrom;
    final long[] detectedTo;
    final long[] detectedNs;
    final long[] sentNs;
    final long[] requestedFrom;
    final int[] attempts;
    final boolean[] inFlight;
    private final MoldUDP64Listener listener;
    private final ErrorHandler errorHandler;
    int count;
    long filled;
    long lastFillNs;
    String feedLabel; // the subscriber's feed address, for JFR events

    MoldUDP64Gaps(final int capacity, final MoldUDP64Listener listener, final ErrorHandler errorHandler) {
        this.from = new long[capacity];
        this.to = new long[capacity];
        this.detectedFrom = new long[capacity];
        this.detectedTo = new long[capacity];
        this.detectedNs = new long[capacity];
        this.sentNs = new long[capacity];
        this.requestedFrom = new long[capacity];
        this.attempts = new int[capacity];
        this.inFlight = new boolean[capacity];
        this.listener = listener;
        this.errorHandler = errorHandler;
    }

    /**
     * Adds a range past every gap (new ground): merged into the last gap when adjacent, or when the
     * list is full.
     *
     * @return true if it made a new gap
     */
    boolean add(final long gapFrom, final long gapTo, final long nowNs) {
        final int last = count - 1;
        if (last >= 0 && (to[last] >= gapFrom || count == from.length)) {
            to[last] = Math.max(to[last], gapTo);
            detectedTo[last] = Math.max(detectedTo[last], gapTo);
            return false;
        }
        final int i = count++;
        from[i] = gapFrom;
        to[i] = gapTo;
        detectedFrom[i] = gapFrom;
        detectedTo[i] = gapTo;
        detectedNs[i] = nowNs;
        sentNs[i] = 0;
        requestedFrom[i] = 0;
        attempts[i] = 0;
        inFlight[i] = false;
        return true;
    }

    /** Forgets every gap (a new session). */
    void clear() {
        count = 0;
    }

    /** Removes or shortens the gaps below {@code next}, the next message to deliver. */
    void trimBelow(final long next, final long nowNs) {
        int removed = 0;
        while (removed < count && to[removed] <= next) {
            reportFilled(removed, nowNs);
            removed++;
        }
        if (removed > 0) {
            shiftLeft(removed);
        }
        if (count > 0 && from[0] < next) {
            from[0] = next;
        }
    }

    /**
     * Takes a run of messages now held out of the gaps; a gap it would split in two stays whole when the
     * list is full.
     */
    void subtract(final long runFrom, final long runTo, final long nowNs) {
        for (int i = 0; i < count; i++) {
            if (to[i] <= runFrom) {
                continue;
            }
            if (from[i] >= runTo) {
                return;
            }
            if (runFrom <= from[i] && runTo >= to[i]) {
                reportFilled(i, nowNs);
                removeAt(i);
                i--;
            } else if (runFrom <= from[i]) {
                from[i] = runTo;
            } else if (runTo >= to[i]) {
                to[i] = runFrom;
            } else if (count < from.length) {
                split(i, runFrom, runTo);
                return;
            }
        }
    }

    /**
     * The gap that holds {@code sequence} past its first number, as an answer that skips the gap's start
     * shows: every request asks from a gap's first number, and a gap's first number only grows.
     *
     * @return its index, or -1
     */
    int strictlyInside(final long sequence) {
        for (int i = 0; i < count; i++) {
            if (from[i] < sequence && sequence < to[i]) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Marks the request that asked from {@code sequence} answered.
     *
     * @return true if one was in flight
     */
    boolean answered(final long sequence) {
        for (int i = 0; i < count; i++) {
            if (inFlight[i] && requestedFrom[i] == sequence) {
                inFlight[i] = false;
                attempts[i] = 0;
                return true;
            }
        }
        return false;
    }

    /**
     * Requests in flight.
     *
     * @return the count
     */
    int inFlightCount() {
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (inFlight[i]) {
                n++;
            }
        }
        return n;
    }

    /**
     * Messages missing.
     *
     * @return the sum of the gaps' lengths
     */
    long missing() {
        long n = 0;
        for (int i = 0; i < count; i++) {
            n += to[i] - from[i];
        }
        return n;
    }

    private void split(final int i, final long runFrom, final long runTo) {
        for (int j = count; j > i + 1; j--) {
            copy(j - 1, j);
        }
        count++;
        final int k = i + 1;
        copy(i, k);
        to[i] = runFrom;
        detectedTo[i] = Math.min(detectedTo[i], runFrom);
        from[k] = runTo;
        detectedFrom[k] = Math.max(detectedFrom[k], runTo);
        inFlight[k] = false; // the request in flight stays with the first part; this one is asked for on its own
        attempts[k] = 0;
    }

    private void reportFilled(final int i, final long nowNs) {
        filled++;
        final long nanos = nowNs - detectedNs[i];
        lastFillNs = nanos;
        MoldGapFilledEvent.emit(feedLabel, detectedFrom[i], detectedTo[i] - detectedFrom[i], nanos);
        try {
            listener.onGapFilled(detectedFrom[i], detectedTo[i] - detectedFrom[i], nanos);
        } catch (final RuntimeException ex) {
            errorHandler.onError(new IllegalStateException("MoldUDP64 listener failed on a filled gap; the subscriber goes on", ex));
        }
    }

    private void removeAt(final int i) {
        for (int j = i + 1; j < count; j++) {
            copy(j, j - 1);
        }
        count--;
    }

    private void shiftLeft(final int n) {
        for (int j = n; j < count; j++) {
            copy(j, j - n);
        }
        count -= n;
    }

    private void copy(final int source, final int target) {
        from[target] = from[source];
        to[target] = to[source];
        detectedFrom[target] = detectedFrom[source];
        detectedTo[target] = detectedTo[source];
        detectedNs[target] = detectedNs[source];
        sentNs[target] = sentNs[source];
        requestedFrom[target] = requestedFrom[source];
        attempts[target] = attempts[source];
        inFlight[target] = inFlight[source];
    }
}
