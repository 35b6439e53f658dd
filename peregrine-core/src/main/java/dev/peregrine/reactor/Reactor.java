package dev.peregrine.reactor;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.internal.CacheLinePadding;
import dev.peregrine.internal.MpscArrayQueue;
import dev.peregrine.internal.jfr.LongDutyCycleEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.VarHandle;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Whether the reactor sleeps in a blocking select: read by every producer's {@link Reactor#wakeUp()}, written only
 * around a sleep, so on a cache-line pair of its own. Among the fields the reactor writes every cycle (its clock,
 * its counts), each cycle would cost every producer's wake-up check a miss.
 */
abstract class ReactorSleepFields extends CacheLinePadding {
    volatile boolean sleeping;
}

abstract class ReactorPad1 extends ReactorSleepFields {
    byte p1_00, p1_01, p1_02, p1_03, p1_04, p1_05, p1_06, p1_07, p1_08, p1_09, p1_0a, p1_0b, p1_0c, p1_0d, p1_0e, p1_0f;
    byte p1_10, p1_11, p1_12, p1_13, p1_14, p1_15, p1_16, p1_17, p1_18, p1_19, p1_1a, p1_1b, p1_1c, p1_1d, p1_1e, p1_1f;
    byte p1_20, p1_21, p1_22, p1_23, p1_24, p1_25, p1_26, p1_27, p1_28, p1_29, p1_2a, p1_2b, p1_2c, p1_2d, p1_2e, p1_2f;
    byte p1_30, p1_31, p1_32, p1_33, p1_34, p1_35, p1_36, p1_37, p1_38, p1_39, p1_3a, p1_3b, p1_3c, p1_3d, p1_3e, p1_3f;
    byte p1_40, p1_41, p1_42, p1_43, p1_44, p1_45, p1_46, p1_47, p1_48, p1_49, p1_4a, p1_4b, p1_4c, p1_4d, p1_4e, p1_4f;
    byte p1_50, p1_51, p1_52, p1_53, p1_54, p1_55, p1_56, p1_57, p1_58, p1_59, p1_5a, p1_5b, p1_5c, p1_5d, p1_5e, p1_5f;
    byte p1_60, p1_61, p1_62, p1_63, p1_64, p1_65, p1_66, p1_67, p1_68, p1_69, p1_6a, p1_6b, p1_6c, p1_6d, p1_6e, p1_6f;
    byte p1_70, p1_71, p1_72, p1_73, p1_74, p1_75, p1_76, p1_77, p1_78, p1_79, p1_7a, p1_7b, p1_7c, p1_7d, p1_7e, p1_7f;
    byte p1_80, p1_81, p1_82, p1_83, p1_84, p1_85, p1_86, p1_87;
}

/**
 * One thread driving any number of channels, timers and pollables.
 *
 * <p>A duty cycle ({@link #doWork()}) reads the clock once, runs work handed over by other threads,
 * polls the pollables added {@linkplain #addAtCycleStart at the cycle's start}, selects ready channels
 * without allocating ({@code selectNow} with a consumer held in a field; every
 * cycle unless {@link ReactorOptions#selectInterval(int)} says otherwise), fires
 * due timers and polls every {@link Pollable}. {@link #start()} runs cycles on a thread of the reactor's
 * own (pinned to a CPU if asked); a caller with a loop of its own calls {@link #doWork()} instead. A cycle
 * that did work and took longer than {@link ReactorOptions#longCycleThresholdNs(long)} is recorded as a
 * {@code dev.peregrine.LongDutyCycle} JFR event when a flight recording is running. With a
 * {@link BlockingSelectIdleStrategy} the reactor sleeps in its selector after a cycle without work, and handles
 * the channels that wake it inside that select: it reads the clock again on waking, before the first of them, so
 * that they see the time they run at, not the time the sleep began.
 *
 * <p>A handler that throws is reported to the {@link ErrorHandler}; the channel whose handler threw is
 * closed, and every other channel goes on. An exception that escapes a {@link Pollable}, a timer handler or a
 * handed-over task is reported to the {@link ErrorHandler} too, and the loop goes on: only {@link #close()}
 * stops it.
 */
public final class Reactor extends ReactorPad1 implements AutoCloseable {
    private final String name;
    private final Selector selector;
    private final IdleStrategy idleStrategy;
    private final boolean blockingSelect;
    private final long maxSelectWaitNs;
    private final NanoClock clock;
    private final ErrorHandler errorHandler;
    private final int cpu;
    private final int workLimit;
    private final int selectInterval;
    private final long longCycleThresholdNs; // Long.MAX_VALUE when off
    private final TimerWheel timers;
    private final MpscArrayQueue<Runnable> commands;
    private final Consumer<SelectionKey> selectedKeyHandler = this::onSelectedKey;
    private final Consumer<SelectionKey> wokenKeyHandler = this::onSelectedKeyAfterSleep;
    private final Consumer<Runnable> commandRunner = this::runCommand;
    private final CountersManager counters;
    private final boolean ownsCounters;
    private final Counter dutyCycles;
    private final Counter workDone;
    private final Counter longestCycleNs;
    private final Counter idleNs;
    private Pollable[] pollables = new Pollable[0];
    private Pollable[] cycleStartPollables = new Pollable[0];
    private BooleanSupplier[] wakeConditions = new BooleanSupplier[0];
    private Runnable[] releaseHooks = new Runnable[0];
    private long nowNs;
    private int lastWork;
    private int cyclesSinceSelect;
    private boolean clockStale; // in a blocking select, before its first key: nowNs was read before the sleep
    private volatile boolean loopStarted; // run() has begun (or start() will begin it): run() releases, not close()
    private volatile boolean closed;
    private Thread thread;
    private boolean released;

    /**
     * Creates a reactor with default options.
     */
    public Reactor() {
        this(new ReactorOptions());
    }

    /**
     * Creates a reactor.
     *
     * @param options its settings
     */
    public Reactor(final ReactorOptions options) {
        this.name = options.name();
        this.idleStrategy = options.idleStrategy();
        this.blockingSelect = idleStrategy instanceof BlockingSelectIdleStrategy;
        this.maxSelectWaitNs = blockingSelect ? ((BlockingSelectIdleStrategy)idleStrategy).maxWaitNs() : 0;
        this.clock = options.clock();
        this.errorHandler = neverThrowing(options.errorHandler());
        this.cpu = options.cpu();
        this.workLimit = options.workLimit();
        this.selectInterval = options.selectInterval();
        this.longCycleThresholdNs = options.longCycleThresholdNs() == 0 ? Long.MAX_VALUE : options.longCycleThresholdNs();
        LongDutyCycleEvent.enabled(); // loads the event class now: loading allocates, and must not in a cycle
        SelectorBoxing.warnIfAllocating();
        this.commands = new MpscArrayQueue<>(options.commandQueueCapacity());
        this.nowNs = clock.nanoTime();
        this.timers = new TimerWheel(nowNs, options.timerTickNs(), options.ticksPerWheel());
        try {
            this.selector = Selector.open();
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot open a selector for reactor " + name, ex);
        }
        this.ownsCounters = options.counters() == null;
        this.counters = ownsCounters ? CountersManager.acquireShared() : options.counters();
        final String label = "reactor=" + name;
        this.dutyCycles = counters.allocate(CounterTypes.REACTOR_DUTY_CYCLES, label);
        this.workDone = counters.allocate(CounterTypes.REACTOR_WORK, label);
        this.longestCycleNs = counters.allocate(CounterTypes.REACTOR_LONGEST_CYCLE_NS, label);
        this.idleNs = counters.allocate(CounterTypes.REACTOR_IDLE_NS, label);
    }

    /**
     * Runs one duty cycle without blocking.
     *
     * @return the work done: commands run, channels ready, timers fired, and pollables' work
     */
    public int doWork() {
        final long now = readClock();
        int work = commands.drain(commandRunner, workLimit);
        // a reactor driven by its caller may be closed by one of its own tasks, timers or handlers: the closed
        // selector is not touched again, and the cycle ends there
        if (released) {
            return work;
        }
        if (cycleStartPollables.length > 0) {
            work += poll(cycleStartPollables, now);
            if (released) {
                return work;
            }
        }
        if (++cyclesSinceSelect >= selectInterval) {
            cyclesSinceSelect = 0;
            try {
                work += selector.selectNow(selectedKeyHandler);
            } catch (final IOException ex) {
                errorHandler.onError(new UncheckedIOException("select failed in reactor " + name, ex));
            } catch (final ClosedSelectorException ex) {
                if (!released) {
                    throw ex;
                }
            }
            if (released) {
                return work;
            }
        }
        try {
            work += timers.poll(now, workLimit);
        } catch (final Throwable ex) {
            // the wheel cleared the timer before calling its handler: the other timers fire on the next poll
            errorHandler.onError(new IllegalStateException("timer handler failed in reactor " + name
                + "; the reactor goes on", ex));
            work++;
        }
        if (released) {
            return work;
        }
        work += poll(pollables, now);
        lastWork = work;
        dutyCycles.increment();
        workDone.add(work);
        return work;
    }

    /**
     * Reads the clock into {@link #nowNs} and accounts for the time since the last read: idle if that span found no
     * work (the idle strategy may have slept after it), so it is neither a long cycle nor the longest.
     */
    private long readClock() {
        final long now = clock.nanoTime();
        final long previousNs = now - nowNs;
        if (lastWork == 0) {
            idleNs.add(previousNs);
        } else {
            longestCycleNs.max(previousNs);
            if (previousNs > longCycleThresholdNs) {
                LongDutyCycleEvent.emit(name, previousNs, longCycleThresholdNs, lastWork);
            }
        }
        nowNs = now;
        return now;
    }

    private int poll(final Pollable[] list, final long now) {
        int work = 0;
        for (final Pollable pollable : list) {
            if (released) {
                return work;
            }
            try {
                work += pollable.doWork(now);
            } catch (final Throwable ex) {
                // a pollable should catch its handlers' exceptions itself; one that escapes still must not stop
                // the loop (run() would release every channel of every transport on this reactor)
                errorHandler.onError(new IllegalStateException("pollable " + pollable + " failed in reactor " + name
                    + "; the reactor goes on", ex));
                work++;
            }
        }
        return work;
    }

    /**
     * Runs duty cycles on the calling thread until {@link #close()}, then releases the reactor's resources.
     */
    public void run() {
        loopStarted = true;
        try {
            while (!closed) { // a close() before this thread got here must still stop it
                idle(doWork());
            }
        } finally {
            release();
        }
    }

    /**
     * Idles once after a cycle, as {@link #run()} does between its cycles; for a caller that drives the reactor
     * with {@link #doWork()}, on that thread. With a {@link BlockingSelectIdleStrategy} and no work, it sleeps in
     * the selector and handles the channels that wake it inside that select: their events may have been delivered
     * when it returns. Otherwise it calls the strategy's {@code idle}. A released reactor returns at once.
     *
     * @param work what the last {@code doWork()} answered
     */
    public void idle(final int work) {
        if (blockingSelect && work == 0) {
            if (!released) {
                selectBlocking();
            }
        } else {
            idleStrategy.idle(work);
        }
    }

    /**
     * Starts a thread of the reactor's own that runs {@link #run()}, pinned to the configured CPU if any
     * (a warning goes to the error handler where pinning is impossible).
     *
     * @return the thread
     */
    public synchronized Thread start() {
        if (thread != null) {
            throw new IllegalStateException("reactor " + name + " already started");
        }
        if (closed) {
            throw new IllegalStateException("reactor " + name + " is closed");
        }
        loopStarted = true;
        thread = new Thread(() -> {
            if (cpu >= 0) {
                final String failure = ThreadAffinity.pinCurrentThread(cpu);
                if (failure != null) {
                    errorHandler.onError(new IllegalStateException("reactor " + name + " runs unpinned: " + failure));
                }
            }
            run();
        }, name);
        thread.start();
        return thread;
    }

    /**
     * Hands a task to the reactor thread; safe from any thread. The task runs at the start of a cycle.
     *
     * @param task what to run on the reactor thread
     * @return false if the hand-over queue is full or the reactor is closed (nothing was queued; the task will
     *     not run). A call that races {@link #close()} may still answer true for a task that never runs, as
     *     {@code close()} does not run tasks left in the queue
     */
    public boolean execute(final Runnable task) {
        if (closed || !commands.offer(task)) {
            return false;
        }
        if (sleeping) {
            selector.wakeup();
        }
        return true;
    }

    /**
     * Wakes the reactor if it sleeps in a blocking select ({@link BlockingSelectIdleStrategy}); safe from any
     * thread. Costs one volatile read when the reactor is not sleeping: the busy-spin path pays no
     * {@code Selector.wakeup()}. For a hand-over of one's own (a ring added with {@link #addWakeCondition}): publish
     * the work with a volatile write or a compare-and-set first, then call this.
     */
    public void wakeUp() {
        if (sleeping) {
            selector.wakeup();
        }
    }

    /**
     * Adds a check the reactor makes before it sleeps in a blocking select, after it has announced that it will
     * ({@link #wakeUp()} from then on wakes it): when it answers true the reactor runs another cycle instead. It
     * closes the race of a hand-over published just before the announcement. Reactor thread only (or before it
     * starts); the check runs on the reactor thread and must not allocate.
     *
     * @param pending answers whether work was handed over that the next cycle would take
     */
    public void addWakeCondition(final BooleanSupplier pending) {
        if (pending == null) {
            throw new IllegalArgumentException("pending=null");
        }
        final BooleanSupplier[] grown = Arrays.copyOf(wakeConditions, wakeConditions.length + 1);
        grown[wakeConditions.length] = pending;
        wakeConditions = grown;
    }

    private boolean wakeConditionPending() {
        for (final BooleanSupplier pending : wakeConditions) {
            if (pending.getAsBoolean()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Adds what to run once when the reactor releases its resources after {@link #close()} (on the thread that
     * releases them: the reactor's own, or the caller's of {@link #doWork()}): an object on the reactor gives its
     * counter slots back there, so that one whose owner never closes it does not hold them until the process exits.
     * Added to a reactor already released, it runs at once. What it throws goes to the {@link ErrorHandler}.
     * Reactor thread only (or before it starts).
     *
     * @param hook run at most once by the reactor
     */
    public void addReleaseHook(final Runnable hook) {
        if (hook == null) {
            throw new IllegalArgumentException("hook=null");
        }
        if (released) {
            runReleaseHook(hook);
            return;
        }
        final Runnable[] grown = Arrays.copyOf(releaseHooks, releaseHooks.length + 1);
        grown[releaseHooks.length] = hook;
        releaseHooks = grown;
    }

    /**
     * Removes a hook added by {@link #addReleaseHook} (compared by identity), for an object closed by its owner;
     * reactor thread only. Nothing happens if it is not there.
     *
     * @param hook the hook to forget
     */
    public void removeReleaseHook(final Runnable hook) {
        final Runnable[] hooks = releaseHooks;
        for (int i = 0; i < hooks.length; i++) {
            if (hooks[i] == hook) {
                final Runnable[] shrunk = Arrays.copyOf(hooks, hooks.length - 1);
                System.arraycopy(hooks, i + 1, shrunk, i, hooks.length - 1 - i);
                releaseHooks = shrunk;
                return;
            }
        }
    }

    private void runReleaseHook(final Runnable hook) {
        try {
            hook.run();
        } catch (final Throwable ex) {
            errorHandler.onError(new IllegalStateException("release hook " + hook + " failed in reactor " + name, ex));
        }
    }

    /**
     * Registers a channel for readiness events; reactor thread only.
     *
     * @param channel a non-blocking selectable channel
     * @param interestOps the operations of interest, {@link SelectionKey} constants
     * @param handler receives readiness; it is the key's attachment
     * @return the key, through which interest can later be changed
     */
    public SelectionKey register(final SelectableChannel channel, final int interestOps, final SelectHandler handler) {
        try {
            channel.configureBlocking(false);
            return channel.register(selector, interestOps, handler);
        } catch (final ClosedChannelException ex) {
            throw new IllegalStateException("channel is closed: " + channel, ex);
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot register " + channel + " with reactor " + name, ex);
        }
    }

    /**
     * Adds something to poll every cycle; reactor thread only (or before it starts).
     *
     * @param pollable polled with the cycle's clock
     */
    public void add(final Pollable pollable) {
        pollables = appended(pollables, pollable);
    }

    /**
     * Adds something to poll at the start of every cycle, after the work handed over by other threads and
     * before the selector, the timers and the other pollables: for work queued between two cycles that should
     * not wait behind them, such as a transport writing what the application sent between two {@link #doWork()}
     * calls. Reactor thread only (or before it starts).
     *
     * @param pollable polled with the cycle's clock
     */
    public void addAtCycleStart(final Pollable pollable) {
        cycleStartPollables = appended(cycleStartPollables, pollable);
    }

    private static Pollable[] appended(final Pollable[] list, final Pollable pollable) {
        if (pollable == null) {
            throw new IllegalArgumentException("pollable=null");
        }
        final Pollable[] grown = Arrays.copyOf(list, list.length + 1);
        grown[list.length] = pollable;
        return grown;
    }

    /**
     * Stops polling something, added by {@link #add} or {@link #addAtCycleStart}; reactor thread only.
     *
     * @param pollable one added before
     * @return whether it was found
     */
    public boolean remove(final Pollable pollable) {
        final Pollable[] shrunk = without(pollables, pollable);
        if (shrunk != pollables) {
            pollables = shrunk;
            return true;
        }
        final Pollable[] shrunkAtStart = without(cycleStartPollables, pollable);
        if (shrunkAtStart != cycleStartPollables) {
            cycleStartPollables = shrunkAtStart;
            return true;
        }
        return false;
    }

    /** The list without the pollable, or the same list if it does not hold it. */
    private static Pollable[] without(final Pollable[] list, final Pollable pollable) {
        for (int i = 0; i < list.length; i++) {
            if (list[i] == pollable) {
                final Pollable[] shrunk = new Pollable[list.length - 1];
                System.arraycopy(list, 0, shrunk, 0, i);
                System.arraycopy(list, i + 1, shrunk, i, list.length - i - 1);
                return shrunk;
            }
        }
        return list;
    }

    /**
     * The timers of this reactor; reactor thread only.
     *
     * @return the wheel
     */
    public TimerWheel timers() {
        return timers;
    }

    /**
     * The clock as read at the start of the current cycle, or when a blocking select
     * ({@link BlockingSelectIdleStrategy}) woke up to handle ready channels.
     *
     * @return nanoseconds
     */
    public long nowNs() {
        return nowNs;
    }

    /**
     * Where this reactor and the transports made on it keep their counters.
     *
     * @return the manager
     */
    public CountersManager counters() {
        return counters;
    }

    /**
     * The clock this reactor reads.
     *
     * @return the clock
     */
    public NanoClock clock() {
        return clock;
    }

    /**
     * Where errors are reported: the configured handler, guarded so that a handler that throws cannot stop the
     * reactor (what it threw goes to standard error).
     *
     * @return the handler
     */
    public ErrorHandler errorHandler() {
        return errorHandler;
    }

    /**
     * The reactor's name, also its thread's.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closing has begun
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops the reactor; safe from any thread. A reactor running on its own thread stops after the
     * current cycle, releases its selector and returns; this method waits for that. A reactor driven by
     * the caller's {@link #doWork()} is released at once, and must be closed from that thread. Tasks
     * handed over with {@link #execute(Runnable)} that have not run yet are not run.
     */
    @Override
    public void close() {
        final Thread owner;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            owner = thread;
        }
        final boolean looping = loopStarted;
        selector.wakeup();
        if (owner != null && owner != Thread.currentThread()) {
            try {
                owner.join();
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        } else if (!looping) {
            release();
        }
    }

    private void selectBlocking() {
        final long timerWaitNs = timers.nanosToNextTick(clock.nanoTime());
        final long waitMs = Math.max(1, Math.min(maxSelectWaitNs, timerWaitNs) / 1_000_000L);
        sleeping = true;
        clockStale = true;
        VarHandle.fullFence(); // store-load: the write of sleeping before the read of the queue; pairs with execute()
        try {
            if (commands.size() == 0 && !closed && !wakeConditionPending()) {
                final int handled = selector.select(wokenKeyHandler, waitMs);
                if (handled > 0) {
                    // from the clock read on waking to the next cycle's, keys were handled: work, not idle time
                    lastWork = handled;
                }
            }
        } catch (final IOException ex) {
            errorHandler.onError(new UncheckedIOException("select failed in reactor " + name, ex));
        } finally {
            sleeping = false;
            clockStale = false;
        }
    }

    /**
     * A key selected by a blocking select. The first of a wake-up reads the clock again: the cycle's reading is as old
     * as the sleep, and a handler that schedules a timer from it (a linger or connect timeout) would have it fire
     * early by as long as the reactor slept. One read per wake-up, none per key; the sleep is accounted as idle.
     */
    private void onSelectedKeyAfterSleep(final SelectionKey key) {
        if (clockStale) {
            clockStale = false;
            readClock();
        }
        onSelectedKey(key);
    }

    private void onSelectedKey(final SelectionKey key) {
        final SelectHandler handler = (SelectHandler)key.attachment();
        try {
            handler.onSelected(key, nowNs);
        } catch (final Throwable ex) {
            key.cancel();
            try {
                key.channel().close();
            } catch (final IOException closeFailure) {
                ex.addSuppressed(closeFailure);
            }
            errorHandler.onError(new IllegalStateException("handler failed; its channel " + key.channel()
                + " was closed, the reactor goes on", ex));
        }
    }

    private void runCommand(final Runnable command) {
        try {
            command.run();
        } catch (final Throwable ex) {
            errorHandler.onError(new IllegalStateException("handed-over task failed in reactor " + name, ex));
        }
    }

    /**
     * The application's error handler, guarded: one that throws would otherwise throw out of the duty cycle from the
     * very catch blocks that keep the reactor going (and a running reactor would stop and release every channel).
     * What it threw goes, with the error it was given, to {@link ErrorHandler#STANDARD_ERROR}: a handler that throws
     * on every error met every cycle is then one trace and a line a second, not a trace a cycle.
     */
    private static ErrorHandler neverThrowing(final ErrorHandler handler) {
        if (handler == ErrorHandler.STANDARD_ERROR) {
            return handler;
        }
        return error -> {
            try {
                handler.onError(error);
            } catch (final Throwable thrown) {
                thrown.addSuppressed(error);
                ErrorHandler.STANDARD_ERROR.onError(
                    new IllegalStateException("the reactor's error handler threw; the reactor goes on", thrown));
            }
        };
    }

    private void release() {
        synchronized (this) {
            if (released) {
                return; // a close() before run() began, then run()
            }
            released = true;
        }
        for (final SelectionKey key : selector.keys()) {
            try {
                key.channel().close();
            } catch (final IOException ex) {
                errorHandler.onError(ex);
            }
        }
        try {
            selector.close();
        } catch (final IOException ex) {
            errorHandler.onError(ex);
        }
        // objects whose owners never closed them: their counter slots go back while the manager is still held
        final Runnable[] hooks = releaseHooks;
        releaseHooks = new Runnable[0];
        for (final Runnable hook : hooks) {
            runReleaseHook(hook);
        }
        dutyCycles.close();
        workDone.close();
        longestCycleNs.close();
        idleNs.close();
        if (ownsCounters) {
            counters.close();
        }
    }
}
