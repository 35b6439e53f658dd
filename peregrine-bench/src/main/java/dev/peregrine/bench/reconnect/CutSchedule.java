package dev.peregrine.bench.reconnect;

import java.util.function.LongSupplier;

/**
 * When the connection is cut, and by whom: cut {@code k} (from 0) is due {@code (k + 1/2) * interval} after the
 * start, so that a stream of {@code n} intervals holds {@code n} cuts, the last half an interval before its end with
 * messages after it to resume with. Made by the server for even {@code k} and by the client for odd {@code k}, and
 * only once the client has resumed after cut {@code k - 1} (delivered a message on a new connection), so that no two
 * cuts overlap. No cut is made once the last message is published. Shared by the two reactor threads: each field has
 * one writer.
 */
final class CutSchedule {
    static final int SERVER = 0;
    static final int CLIENT = 1;

    private final long intervalNs;
    private final boolean clientCuts;
    /** How long after the client's resume the next cut waits at least; 0 for none. */
    private long settleNs;
    /** When the client last resumed ({@link System#nanoTime()}). */
    private volatile long resumedAtNs;
    private volatile long startNs;
    /** Cuts made; written by whichever side makes the next cut (they take turns, gated by {@link #resumed}). */
    private volatile long made;
    /** When the last cut was made. */
    private volatile long lastCutNs;
    /** Cuts the client has resumed after; written by the client only. */
    private volatile long resumed = -1;
    /** Set by the publisher once the last message is published. */
    private volatile boolean over;
    /** Where each cut's hops are stamped, or null; set before the threads start. */
    private CutHops hops;
    private LongSupplier published;
    private LongSupplier delivered;

    /**
     * @param intervalNs time between cuts, 0 for none
     * @param clientCuts whether the client side takes every other cut (false: the server makes all of them, as
     *     when the server is a process killed instead)
     */
    CutSchedule(final long intervalNs, final boolean clientCuts) {
        this.intervalNs = intervalNs;
        this.clientCuts = clientCuts;
    }

    /**
     * Stamps each cut (when, by whom, the client's lag) in {@code hops}; before the threads start.
     *
     * @param published messages published so far, or null where the publisher is another process (lag not known)
     * @param delivered messages the client delivered so far
     */
    void hops(final CutHops hops, final LongSupplier published, final LongSupplier delivered) {
        this.hops = hops;
        this.published = published;
        this.delivered = delivered;
    }

    /**
     * Makes every cut wait at least {@code settleNs} after the client resumed from the previous one (its first
     * message on the new connection), on top of its fixed time; before the threads start. 0 (the default): a cut
     * comes at its time, even at once after a slow resume.
     */
    void settle(final long settleNs) {
        if (settleNs < 0) {
            throw new IllegalArgumentException("settleNs=" + settleNs + " must be 0 or more");
        }
        this.settleNs = settleNs;
    }

    CutHops hops() {
        return hops;
    }

    void start(final long nowNs) {
        startNs = nowNs;
    }

    /** When the run started, on the cutters' clock (0 before). */
    long startNs() {
        return startNs;
    }

    /** Whether {@code side} is to cut now. */
    boolean due(final int side, final long nowNs) {
        if (intervalNs == 0 || over) {
            return false;
        }
        final long k = made;
        return resumed == k && nowNs - startNs >= k * intervalNs + intervalNs / 2
            && (settleNs == 0 || nowNs - resumedAtNs >= settleNs) && (clientCuts ? (int)(k & 1) : SERVER) == side;
    }

    /**
     * Records a cut about to be made (before the abort, so the client sees it on its next login), stamped with
     * {@link System#nanoTime()} now, right before the abort: the connection was alive and delivering until then. The
     * cutter's cycle clock, read before that cycle's select and reads, would count them as part of the resume.
     *
     * @return the stamp
     */
    long cut() {
        final long nowNs = System.nanoTime();
        if (hops != null) {
            final long index = made;
            hops.cut(index, sideOf(index), nowNs, published == null ? -1
                : Math.max(0, published.getAsLong() - delivered.getAsLong()));
        }
        lastCutNs = nowNs;
        made = made + 1; // the only writer now: the other side waits for resumed == made
        return nowNs;
    }

    /** The client delivered its first message of the stream, or its first after the last cut. */
    void resumedAfter(final long cuts) {
        resumedAtNs = System.nanoTime(); // before resumed: a cutter that sees the new count sees this time
        resumed = cuts;
    }

    /** Cuts the client has resumed after, -1 before its first message. */
    long resumed() {
        return resumed;
    }

    /** Who made cut {@code index} (from 0): {@link #SERVER} or {@link #CLIENT}. */
    int sideOf(final long index) {
        return clientCuts ? (int)(index & 1) : SERVER;
    }

    void over() {
        over = true;
    }

    long made() {
        return made;
    }

    long lastCutNs() {
        return lastCutNs;
    }
}
