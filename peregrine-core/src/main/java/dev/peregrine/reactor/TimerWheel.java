package dev.peregrine.reactor;

import java.util.Arrays;

/**
 * A hashed timer wheel: timers are kept in parallel arrays, one row of entries per tick, so scheduling,
 * cancelling and expiring allocate nothing (a row grows, doubling, only when more timers share a tick
 * than ever before).
 *
 * <p>A timer fires on the first {@link #poll} at or after its deadline, never before; its lateness is at
 * most one tick plus the time between polls. A timer that a handler schedules from inside a poll, with a deadline
 * that is already due, fires in that same poll, after the handler returns. Not thread-safe: owned by one reactor
 * thread.
 */
public final class TimerWheel {
    /** Marks an empty entry. */
    private static final long NULL_DEADLINE = Long.MAX_VALUE;
    private static final int INITIAL_ROW_LENGTH = 16;

    private final long startTimeNs;
    private final int resolutionShift;
    private final int tickMask;
    private final int ticksPerWheel;
    private int rowLength = INITIAL_ROW_LENGTH;
    private long[] deadlines;
    private long[] cookies;
    private TimerHandler[] handlers;
    private long currentTick;
    private int pollIndex;
    private boolean firing; // a handler called by poll is running: poll steps past pollIndex when it returns
    private int timerCount;

    /**
     * Creates a wheel.
     *
     * @param startTimeNs the clock now; ticks count from here
     * @param tickResolutionNs length of a tick, a power of two
     * @param ticksPerWheel number of ticks in one revolution, a power of two
     */
    public TimerWheel(final long startTimeNs, final long tickResolutionNs, final int ticksPerWheel) {
        if (tickResolutionNs < 1 || Long.bitCount(tickResolutionNs) != 1) {
            throw new IllegalArgumentException("tickResolutionNs=" + tickResolutionNs + " is not a power of two");
        }
        if (ticksPerWheel < 2 || Integer.bitCount(ticksPerWheel) != 1) {
            throw new IllegalArgumentException("ticksPerWheel=" + ticksPerWheel + " is not a power of two");
        }
        this.startTimeNs = startTimeNs;
        this.resolutionShift = Long.numberOfTrailingZeros(tickResolutionNs);
        this.ticksPerWheel = ticksPerWheel;
        this.tickMask = ticksPerWheel - 1;
        this.deadlines = new long[ticksPerWheel * rowLength];
        this.cookies = new long[ticksPerWheel * rowLength];
        this.handlers = new TimerHandler[ticksPerWheel * rowLength];
        Arrays.fill(deadlines, NULL_DEADLINE);
    }

    /**
     * Schedules a timer.
     *
     * @param deadlineNs when it is due, on the reactor's clock; a deadline in the past fires on the next poll
     * @param handler called on expiry
     * @param cookie handed back to the handler, e.g. a channel id
     * @return the timer id, for {@link #cancel(long)}
     */
    public long schedule(final long deadlineNs, final TimerHandler handler, final long cookie) {
        if (handler == null) {
            throw new IllegalArgumentException("handler=null");
        }
        final long deadlineTick = Math.max((deadlineNs - startTimeNs) >> resolutionShift, currentTick);
        final int wheelIndex = (int)(deadlineTick & tickMask);
        int entry = freeEntry(wheelIndex);
        if (entry < 0) {
            entry = rowLength;
            grow();
        }
        final int index = wheelIndex * rowLength + entry;
        deadlines[index] = deadlineNs == NULL_DEADLINE ? NULL_DEADLINE - 1 : deadlineNs;
        cookies[index] = cookie;
        handlers[index] = handler;
        timerCount++;
        if (wheelIndex == (int)(currentTick & tickMask)) {
            // the current row was partly scanned: make sure this entry is seen before the scan leaves the row. From
            // a handler that poll called, the entry may be the very slot that handler's timer just freed, and poll
            // steps past pollIndex when the handler returns; without this, a due timer would wait a wheel turn
            if (firing && entry <= pollIndex) {
                pollIndex = entry - 1;
            } else if (!firing && entry < pollIndex) {
                pollIndex = entry;
            }
        }
        return ((long)wheelIndex << 32) | entry;
    }

    /**
     * Cancels a timer that has not fired.
     *
     * @param timerId id returned by {@link #schedule}
     * @return whether a scheduled timer was cancelled
     */
    public boolean cancel(final long timerId) {
        final long wheelIndex = timerId >>> 32;
        final long entry = timerId & 0xFFFF_FFFFL;
        if (timerId < 0 || wheelIndex >= ticksPerWheel || entry >= rowLength) {
            return false;
        }
        final int index = (int)(wheelIndex * rowLength + entry);
        if (deadlines[index] == NULL_DEADLINE) {
            return false;
        }
        clear(index);
        return true;
    }

    /**
     * Fires the timers that are due.
     *
     * @param nowNs the clock of this cycle
     * @param limit the most timers to fire in this call
     * @return the number fired
     */
    public int poll(final long nowNs, final int limit) {
        int expired = 0;
        while (expired < limit) {
            if (timerCount == 0) {
                currentTick = Math.max(currentTick, (nowNs - startTimeNs) >> resolutionShift);
                pollIndex = 0;
                return expired;
            }
            final int wheelIndex = (int)(currentTick & tickMask);
            while (pollIndex < rowLength && expired < limit) {
                final int index = wheelIndex * rowLength + pollIndex;
                final long deadline = deadlines[index];
                if (deadline <= nowNs) {
                    final TimerHandler handler = handlers[index];
                    final long cookie = cookies[index];
                    final long timerId = ((long)wheelIndex << 32) | pollIndex;
                    clear(index);
                    expired++;
                    firing = true;
                    try {
                        handler.onTimer(timerId, cookie, nowNs); // may schedule: indexes are recomputed each step
                    } finally {
                        firing = false;
                    }
                }
                pollIndex++;
            }
            if (pollIndex < rowLength) {
                return expired; // limit reached mid-row
            }
            pollIndex = 0;
            if (tickEndNs(currentTick) > nowNs) {
                return expired; // this tick is not over: its row is scanned again next poll
            }
            currentTick++;
        }
        return expired;
    }

    /**
     * Number of scheduled timers.
     *
     * @return the count
     */
    public int timerCount() {
        return timerCount;
    }

    /**
     * How long until the current tick ends, the latest moment the next poll is needed while timers exist.
     *
     * @param nowNs the clock now
     * @return nanoseconds, 0 if already over, {@link Long#MAX_VALUE} if no timer is scheduled
     */
    public long nanosToNextTick(final long nowNs) {
        return timerCount == 0 ? Long.MAX_VALUE : Math.max(0, tickEndNs(currentTick) - nowNs);
    }

    private long tickEndNs(final long tick) {
        return ((tick + 1) << resolutionShift) + startTimeNs;
    }

    private int freeEntry(final int wheelIndex) {
        final int base = wheelIndex * rowLength;
        for (int i = 0; i < rowLength; i++) {
            if (deadlines[base + i] == NULL_DEADLINE) {
                return i;
            }
        }
        return -1;
    }

    private void clear(final int index) {
        deadlines[index] = NULL_DEADLINE;
        handlers[index] = null;
        timerCount--;
    }

    private void grow() {
        final int newRowLength = rowLength << 1;
        final long[] newDeadlines = new long[ticksPerWheel * newRowLength];
        final long[] newCookies = new long[ticksPerWheel * newRowLength];
        final TimerHandler[] newHandlers = new TimerHandler[ticksPerWheel * newRowLength];
        Arrays.fill(newDeadlines, NULL_DEADLINE);
        for (int wheel = 0; wheel < ticksPerWheel; wheel++) {
            System.arraycopy(deadlines, wheel * rowLength, newDeadlines, wheel * newRowLength, rowLength);
            System.arraycopy(cookies, wheel * rowLength, newCookies, wheel * newRowLength, rowLength);
            System.arraycopy(handlers, wheel * rowLength, newHandlers, wheel * newRowLength, rowLength);
        }
        deadlines = newDeadlines;
        cookies = newCookies;
        handlers = newHandlers;
        rowLength = newRowLength;
    }
}
