package dev.peregrine.mold;

/**
 * A subscriber's missing ranges, sorted and disjoint, each with the state of its re-request: a fixed
 * number of records in parallel arrays, made up front.
 *
 * <p>The invariant the subscriber keeps: every sequence number from the next expected one up to the
 * highest seen that is not in the reorder buffer lies in a gap. A gap may also cover buffered messages
 * (when the list is full, a new gap is merged into the last one, and a gap is not cut): that asks for a few
 * messages twice, and the answers' copies are skipped as duplicates, though they take the range out of the gap
 * as any answer does. A held message inside a gap says nothing of the server's store.
 *
 * <p>A long gap is asked for in parts ({@link #splitPart}), one request each, so that several answers are
 * in flight for it at once. The parts of one detected gap share its {@link #origin}: the gap is reported
 * filled once, when its last part is.
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
    /** When the first of the requests sent since the gap's last answer (or its detection) went out. */
    final long[] firstSentNs;
    final long[] requestedFrom;
    /**
     * How many messages the copies of the request in flight asked for, the fewest of them: an answer that holds
     * fewer was cut short by the size of a packet, whichever copy it answers.
     */
    final int[] requestedCount;
    final int[] attempts;
    final boolean[] inFlight;
    /**
     * An answer started past the gap's start and a fresh request followed it: the next such answer confirms the
     * store truncated ({@link MoldUDP64GapReason#STORE_TRUNCATED}); an answer from the start clears it.
     */
    final boolean[] suspectTruncated;
    /** Which detected gap a record belongs to: the parts of one gap share it, so it is reported once. */
    final long[] origin;
    private final MoldUDP64Subscriber owner;
    int count;
    private long origins;
    long filled;
    long lastFillNs;

    MoldUDP64Gaps(final int capacity, final MoldUDP64Subscriber owner) {
        this.from = new long[capacity];
        this.to = new long[capacity];
        this.detectedFrom = new long[capacity];
        this.detectedTo = new long[capacity];
        this.detectedNs = new long[capacity];
        this.sentNs = new long[capacity];
        this.firstSentNs = new long[capacity];
        this.requestedFrom = new long[capacity];
        this.requestedCount = new int[capacity];
        this.attempts = new int[capacity];
        this.inFlight = new boolean[capacity];
        this.suspectTruncated = new boolean[capacity];
        this.origin = new long[capacity];
        this.owner = owner;
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
        firstSentNs[i] = 0;
        requestedFrom[i] = 0;
        requestedCount[i] = 0;
        attempts[i] = 0;
        inFlight[i] = false;
        suspectTruncated[i] = false;
        origin[i] = ++origins;
        return true;
    }

    /** Forgets every gap (a new session). */
    void clear() {
        count = 0;
    }

    /** Removes or shortens the gaps below {@code next}, the next message to deliver. */
    void trimBelow(final long next, final long nowNs) {
        while (count > 0 && to[0] <= next) {
            reportFilled(0, nowNs); // one at a time: a part looks for the other parts of its gap among the rest
            removeAt(0);
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
     * The gap whose request in flight asked from {@code sequence}: the one an answer from there answers.
     *
     * @return its index, or -1
     */
    int inFlightFrom(final long sequence) {
        for (int i = 0; i < count; i++) {
            if (inFlight[i] && requestedFrom[i] == sequence) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Marks the request in flight of gap {@code i} answered ({@link #inFlightFrom}).
     *
     * @param nowNs when the answer arrived
     * @return the round trip of that request if it was sent once (Karn: the answer to a repeated request
     *     may be the answer to any of its copies), or -1 (sent more than once)
     */
    long answered(final int i, final long nowNs) {
        final long roundTrip = attempts[i] == 1 ? Math.max(0, nowNs - sentNs[i]) : -1;
        inFlight[i] = false;
        attempts[i] = 0;
        suspectTruncated[i] = false;
        return roundTrip;
    }

    /**
     * Cuts gap {@code i} at {@code at} into two parts of the same detected gap, the second one without a
     * request; the caller checks that there is a free record ({@link #full()}).
     */
    void splitPart(final int i, final long at) {
        final int k = duplicate(i);
        to[i] = at;
        from[k] = at;
        inFlight[k] = false;
        attempts[k] = 0;
        suspectTruncated[k] = false;
    }

    /**
     * Whether every record is taken (a new gap is merged into the last one, a gap is not cut).
     *
     * @return true when full
     */
    boolean full() {
        return count == from.length;
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
        final int k = duplicate(i);
        to[i] = runFrom;
        detectedTo[i] = Math.min(detectedTo[i], runFrom);
        from[k] = runTo;
        detectedFrom[k] = Math.max(detectedFrom[k], runTo);
        inFlight[k] = false; // the request in flight stays with the first part; this one is asked for on its own
        attempts[k] = 0;
        suspectTruncated[k] = false;
        origin[k] = ++origins; // reported on its own, like a gap detected apart
    }

    /**
     * Inserts a copy of record {@code i} right after it; the caller checks that there is room.
     *
     * @return the copy's index
     */
    private int duplicate(final int i) {
        for (int j = count; j > i + 1; j--) {
            copy(j - 1, j);
        }
        count++;
        copy(i, i + 1);
        return i + 1;
    }

    private void reportFilled(final int i, final long nowNs) {
        for (int j = 0; j < count; j++) {
            if (j != i && origin[j] == origin[i]) { // another part of the same gap is still missing: it reports
                detectedFrom[j] = Math.min(detectedFrom[j], detectedFrom[i]);
                detectedTo[j] = Math.max(detectedTo[j], detectedTo[i]);
                return;
            }
        }
        filled++;
        final long nanos = nowNs - detectedNs[i];
        lastFillNs = nanos;
        owner.gapFilled(detectedFrom[i], detectedTo[i] - detectedFrom[i], nanos);
    }

    private void removeAt(final int i) {
        for (int j = i + 1; j < count; j++) {
            copy(j, j - 1);
        }
        count--;
    }

    private void copy(final int source, final int target) {
        from[target] = from[source];
        to[target] = to[source];
        detectedFrom[target] = detectedFrom[source];
        detectedTo[target] = detectedTo[source];
        detectedNs[target] = detectedNs[source];
        sentNs[target] = sentNs[source];
        firstSentNs[target] = firstSentNs[source];
        requestedFrom[target] = requestedFrom[source];
        requestedCount[target] = requestedCount[source];
        attempts[target] = attempts[source];
        inFlight[target] = inFlight[source];
        suspectTruncated[target] = suspectTruncated[source];
        origin[target] = origin[source];
    }
}
