package dev.peregrine.handoff;

import dev.peregrine.internal.Futex;
import dev.peregrine.reactor.IdleStrategy;

import java.util.function.BooleanSupplier;

/**
 * The idle strategy of a separated stack's application thread on a machine without a core for it: after a few idle
 * cycles it sleeps on a futex, and the reactor wakes it ({@code FUTEX_WAKE}) when it hands over an event.
 *
 * <p>Why: with the reactor and the application sharing a core and both yielding, each idle cycle of either is a
 * switch to the other (tens per round trip). Asleep, the application thread leaves the core to the reactor, and the
 * wake-up makes it runnable at once: two switches per round trip.
 *
 * <p>What it costs: a {@code FUTEX_WAKE} and a {@code FUTEX_WAIT} per hand-over. On a 2-vCPU VM that cost the two
 * threads more CPU per hand-over than a yield did, so it frees the core rather than speeding the median round trip
 * (docs/separated-two-cores.md). With a core each, spin or yield instead.
 *
 * <ul>
 *   <li>The reactor pays nothing more while the application is awake except a full fence per event written.</li>
 *   <li>No wake-up is lost: the application announces its sleep, then checks the event ring once more.</li>
 *   <li>It does not sleep while closes wait for room in the command ring; it yields then, as they retry each
 *       cycle.</li>
 *   <li>A sleep lasts at most {@code maxSleepNs}: a bound for a wake-up the application does not need, never a
 *       latency.</li>
 * </ul>
 *
 * <p>Threading: one instance per application thread, made before the stack delivers events to it (before that
 * thread starts). Nothing allocates.
 */
public final class SeparatedSleepIdleStrategy implements IdleStrategy {
    private final ApplicationWake wake;
    private final BooleanSupplier pending;
    private final int maxYields;
    private final long maxSleepNs;
    private int yields;

    /**
     * Makes the strategy and turns on the stack's wake-ups.
     *
     * @param stack the stack whose application thread idles with it
     * @param maxYields idle cycles that yield before the thread sleeps (0: sleep at the first idle cycle)
     * @param maxSleepNs the longest sleep, at least one microsecond
     * @throws IllegalStateException if futex is unavailable here, with the reason
     */
    public SeparatedSleepIdleStrategy(final SeparatedStack stack, final int maxYields, final long maxSleepNs) {
        if (stack == null) {
            throw new IllegalArgumentException("stack=null");
        }
        if (maxYields < 0 || maxSleepNs < 1_000) {
            throw new IllegalArgumentException("maxYields=" + maxYields + ", maxSleepNs=" + maxSleepNs
                + ": maxYields from 0, maxSleepNs from 1000");
        }
        if (!Futex.isAvailable()) {
            throw new IllegalStateException("futex unavailable: " + Futex.unavailableReason());
        }
        this.wake = stack.enableApplicationWakeUps();
        this.pending = stack::applicationHasWork;
        this.maxYields = maxYields;
        this.maxSleepNs = maxSleepNs;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount > 0) {
            yields = 0;
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            wake.sleep(pending, maxSleepNs);
        }
    }

    /**
     * Wakes the application thread and keeps it from sleeping again, for the end of its loop: call it after telling
     * the loop to stop ({@link WorkerRunner#close()} does). Any thread.
     */
    public void stop() {
        wake.stop();
    }

    @Override
    public void reset() {
        yields = 0;
    }
}
