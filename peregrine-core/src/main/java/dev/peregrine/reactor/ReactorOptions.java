package dev.peregrine.reactor;

import dev.peregrine.counters.CountersManager;

/**
 * Settings of a {@link Reactor}; fluent, validated on each setter.
 */
public final class ReactorOptions {
    private String name = "peregrine-reactor";
    private IdleStrategy idleStrategy = new BackoffIdleStrategy();
    private NanoClock clock = NanoClock.SYSTEM;
    private ErrorHandler errorHandler = ErrorHandler.STANDARD_ERROR;
    private int cpu = -1;
    private int commandQueueCapacity = 1024;
    private long timerTickNs = 1L << 16; // ~65 µs
    private int ticksPerWheel = 512;
    private int workLimit = 64;
    private int selectInterval = 1;
    private long longCycleThresholdNs = 1_000_000L;
    private CountersManager counters;

    /** Creates options with the defaults: back-off idling, the system clock, no pinning. */
    public ReactorOptions() {
    }

    /**
     * Name of the reactor's thread.
     *
     * @param name the name
     * @return this
     */
    public ReactorOptions name(final String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("name=" + name);
        }
        this.name = name;
        return this;
    }

    /**
     * What to do when a cycle found no work; default {@link BackoffIdleStrategy}.
     *
     * @param idleStrategy the strategy
     * @return this
     */
    public ReactorOptions idleStrategy(final IdleStrategy idleStrategy) {
        if (idleStrategy == null) {
            throw new IllegalArgumentException("idleStrategy=null");
        }
        this.idleStrategy = idleStrategy;
        return this;
    }

    /**
     * The clock, read once per cycle; tests inject their own.
     *
     * @param clock the clock
     * @return this
     */
    public ReactorOptions clock(final NanoClock clock) {
        if (clock == null) {
            throw new IllegalArgumentException("clock=null");
        }
        this.clock = clock;
        return this;
    }

    /**
     * Where failing handlers and bad peers are reported. The default, {@link ErrorHandler#STANDARD_ERROR}, prints
     * each distinct error's stack trace once and its repeats as at most one line a second; a handler that also
     * counts, logs or alerts is set here. The reactor calls it on its own thread, and an exception it throws is
     * printed, not passed on.
     *
     * @param errorHandler the handler
     * @return this
     */
    public ReactorOptions errorHandler(final ErrorHandler errorHandler) {
        if (errorHandler == null) {
            throw new IllegalArgumentException("errorHandler=null");
        }
        this.errorHandler = errorHandler;
        return this;
    }

    /**
     * CPU to pin the reactor's own thread to, or -1 (the default) for none.
     *
     * @param cpu the CPU number
     * @return this
     */
    public ReactorOptions cpu(final int cpu) {
        if (cpu < -1) {
            throw new IllegalArgumentException("cpu=" + cpu);
        }
        this.cpu = cpu;
        return this;
    }

    /**
     * Capacity of the queue through which other threads hand work over.
     *
     * @param capacity at least 2; rounded up to a power of two
     * @return this
     */
    public ReactorOptions commandQueueCapacity(final int capacity) {
        if (capacity < 2) {
            throw new IllegalArgumentException("commandQueueCapacity=" + capacity);
        }
        this.commandQueueCapacity = capacity;
        return this;
    }

    /**
     * Timer resolution.
     *
     * @param tickNs a power of two
     * @param ticksPerWheel a power of two
     * @return this
     */
    public ReactorOptions timerWheel(final long tickNs, final int ticksPerWheel) {
        if (tickNs < 1 || Long.bitCount(tickNs) != 1 || ticksPerWheel < 2 || Integer.bitCount(ticksPerWheel) != 1) {
            throw new IllegalArgumentException("tickNs=" + tickNs + " ticksPerWheel=" + ticksPerWheel + " must be powers of two");
        }
        this.timerTickNs = tickNs;
        this.ticksPerWheel = ticksPerWheel;
        return this;
    }

    /**
     * Most handed-over commands and most timers run in one cycle, so neither starves the channels.
     *
     * @param workLimit at least 1
     * @return this
     */
    public ReactorOptions workLimit(final int workLimit) {
        if (workLimit < 1) {
            throw new IllegalArgumentException("workLimit=" + workLimit);
        }
        this.workLimit = workLimit;
        return this;
    }

    /**
     * Runs the selector's {@code selectNow} only on every {@code cycles}-th duty cycle; default 1 (every
     * cycle). A busy-spinning reactor whose channels are read by polling (for example
     * {@code TcpOptions.readPolling}) needs the selector only for accepts,
     * connects and writability, so it can save the {@code epoll_wait} syscall on most cycles; those
     * events then wait up to {@code cycles - 1} cycles longer. Commands, timers and pollables still run
     * every cycle, and a blocking-select idle strategy still blocks in the selector when idle.
     *
     * @param cycles at least 1
     * @return this
     */
    public ReactorOptions selectInterval(final int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("selectInterval=" + cycles);
        }
        this.selectInterval = cycles;
        return this;
    }

    /**
     * How long a duty cycle that did work may take before a JFR recording gets a
     * {@code dev.peregrine.LongDutyCycle} event for it; default 1 ms, 0 for never. A cycle is measured from
     * its clock read to the next cycle's (the reactor reads the clock once per cycle and adds no read for
     * this), and only when it did work, so that an idle strategy's sleep after an empty cycle is never taken
     * for a long cycle. For a reactor driven by the caller's own loop ({@link Reactor#doWork()}) the time
     * includes the caller's code between the two calls. Without a recording that enables the event, nothing
     * is recorded and nothing allocated, whatever the threshold.
     *
     * @param thresholdNs nanoseconds, at least 0
     * @return this
     */
    public ReactorOptions longCycleThresholdNs(final long thresholdNs) {
        if (thresholdNs < 0) {
            throw new IllegalArgumentException("longCycleThresholdNs=" + thresholdNs);
        }
        this.longCycleThresholdNs = thresholdNs;
        return this;
    }

    /**
     * Where this reactor and the transports made on it keep their counters; default (null) the process-wide
     * {@link CountersManager#acquireShared()} file, which {@code ./peregrine stat} reads. A manager given here
     * stays open when the reactor closes: its owner closes it.
     *
     * @param counters the manager, or null for the process-wide one
     * @return this
     */
    public ReactorOptions counters(final CountersManager counters) {
        this.counters = counters;
        return this;
    }

    CountersManager counters() {
        return counters;
    }

    String name() {
        return name;
    }

    IdleStrategy idleStrategy() {
        return idleStrategy;
    }

    NanoClock clock() {
        return clock;
    }

    ErrorHandler errorHandler() {
        return errorHandler;
    }

    int cpu() {
        return cpu;
    }

    int commandQueueCapacity() {
        return commandQueueCapacity;
    }

    long timerTickNs() {
        return timerTickNs;
    }

    int ticksPerWheel() {
        return ticksPerWheel;
    }

    int workLimit() {
        return workLimit;
    }

    int selectInterval() {
        return selectInterval;
    }

    long longCycleThresholdNs() {
        return longCycleThresholdNs;
    }
}
