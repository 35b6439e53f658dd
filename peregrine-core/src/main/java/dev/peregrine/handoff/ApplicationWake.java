package dev.peregrine.handoff;

import dev.peregrine.internal.Futex;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * The futex word on which a separated stack's application thread sleeps, and the reactor's wake-up of it.
 *
 * <pre>
 *   0        4                     128
 *   +--------+---------------------+
 *   | state  |  (the rest of the   |   state: AWAKE (0) or SLEEPING (1), on a 128-byte slot of its own
 *   +--------+   slot, unused)     +
 * </pre>
 *
 * <p>No wake-up is lost (Dekker's pattern, both sides fenced):
 * <ul>
 *   <li>the sleeper writes SLEEPING, full fence, checks for work, and sleeps only while the word still holds
 *       SLEEPING ({@code FUTEX_WAIT} compares it in the kernel);</li>
 *   <li>the waker publishes its work, full fence, reads the word, and if SLEEPING swaps it to AWAKE and calls
 *       {@code FUTEX_WAKE}.</li>
 * </ul>
 * Either the sleeper sees the work, or the waker sees SLEEPING. A waker that finds AWAKE makes no system call.
 *
 * <p>Threading: {@link #sleep} for the one application thread, {@link #wake()} for the reactor thread,
 * {@link #stop()} for the thread that ends the application's loop; the counts may be read anywhere. Nothing
 * allocates.
 */
final class ApplicationWake implements AutoCloseable {
    static final int AWAKE = 0;
    static final int SLEEPING = 1;

    private static final int SLOT = 128;
    private static final VarHandle STATE = ValueLayout.JAVA_INT.varHandle();

    private final Arena arena;
    private final MemorySegment word;
    private final MemorySegment timespec;
    private volatile boolean stopped;
    private volatile long wakes;
    private volatile long sleeps;

    ApplicationWake() {
        this.arena = Arena.ofShared();
        this.word = arena.allocate(SLOT, SLOT);
        this.timespec = arena.allocate(16, 8);
    }

    /**
     * Sleeps until {@link #wake()} or the timeout, unless {@code pending} finds work once the sleep is announced;
     * the application thread. A spurious return is possible: the caller's loop checks again.
     *
     * @param pending whether work is waiting; checked after the announcement
     * @param maxSleepNs the longest sleep
     * @return true if it slept (woken or timed out), false if work was found first
     */
    boolean sleep(final BooleanSupplier pending, final long maxSleepNs) {
        STATE.setVolatile(word, 0L, SLEEPING);
        VarHandle.fullFence(); // store-load: the announcement before the check of the ring; pairs with wake()'s fence
        if (stopped || pending.getAsBoolean()) {
            STATE.setRelease(word, 0L, AWAKE);
            return false;
        }
        sleeps = sleeps + 1;
        Futex.await(word, SLEEPING, timespec, maxSleepNs);
        STATE.setRelease(word, 0L, AWAKE); // a timeout leaves SLEEPING: the next wake() would call in vain
        return true;
    }

    /**
     * Wakes the application thread if it announced a sleep; the reactor thread, after publishing its work. Costs a
     * full fence and a read when the application is awake, a system call when it sleeps.
     */
    void wake() {
        VarHandle.fullFence(); // store-load: the published tail before the read of the state; pairs with sleep()'s
        if ((int)STATE.getVolatile(word, 0L) == SLEEPING && STATE.compareAndSet(word, 0L, SLEEPING, AWAKE)) {
            wakes = wakes + 1; // the reactor thread writes it (a stop() once, when the loop ends)
            Futex.wake(word, 1);
        }
    }

    /**
     * Wakes the application thread and keeps it from sleeping again: its loop is ending. Any thread; the fence in
     * {@link #wake()} orders the flag before the read of the state, as the published tail is ordered.
     */
    void stop() {
        stopped = true;
        wake();
    }

    /** {@code FUTEX_WAKE} calls made. */
    long wakes() {
        return wakes;
    }

    /** Sleeps begun (each ended by a wake, a timeout or a spurious return). */
    long sleeps() {
        return sleeps;
    }

    @Override
    public void close() {
        arena.close();
    }
}
