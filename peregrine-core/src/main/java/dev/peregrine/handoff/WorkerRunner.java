package dev.peregrine.handoff;

import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.ThreadAffinity;

import java.util.function.IntSupplier;

/**
 * A thread that runs one {@link WorkerAgent}'s (or one {@link SeparatedAgent}'s) duty cycle with one of the reactor's {@link IdleStrategy}
 * implementations, optionally pinned to a CPU. Not {@code BlockingSelectIdleStrategy}: it sleeps in a reactor's
 * selector, and a worker has none.
 *
 * <p>Threading: {@link #start()} and {@link #close()} from any one controlling thread.
 */
public final class WorkerRunner implements AutoCloseable {
    private final Thread thread;
    private final IntSupplier duty;
    private final IdleStrategy idleStrategy;
    private final int cpu;
    private volatile boolean running = true;
    private volatile String pinFailure;

    /**
     * Makes the (not yet started) thread.
     *
     * @param name the thread's name
     * @param agent the agent it runs
     * @param idleStrategy what it does when a cycle found nothing; one instance per runner
     * @param cpu the CPU to pin the thread to, or -1 for none
     */
    public WorkerRunner(final String name, final WorkerAgent agent, final IdleStrategy idleStrategy, final int cpu) {
        this(name, agent == null ? null : agent::doWork, idleStrategy, cpu, agent);
    }

    /**
     * Makes the (not yet started) application thread of a separated stack.
     *
     * @param name the thread's name
     * @param agent the agent it runs
     * @param idleStrategy what it does when a cycle found nothing; one instance per runner
     * @param cpu the CPU to pin the thread to, or -1 for none
     */
    public WorkerRunner(final String name, final SeparatedAgent agent, final IdleStrategy idleStrategy, final int cpu) {
        this(name, agent == null ? null : agent::doWork, idleStrategy, cpu, agent);
    }

    private WorkerRunner(final String name, final IntSupplier duty, final IdleStrategy idleStrategy, final int cpu,
                         final Object agent) {
        if (duty == null || idleStrategy == null) {
            throw new IllegalArgumentException("agent=" + agent + ", idleStrategy=" + idleStrategy);
        }
        if (cpu < -1) {
            throw new IllegalArgumentException("cpu=" + cpu);
        }
        this.duty = duty;
        this.idleStrategy = idleStrategy;
        this.cpu = cpu;
        this.thread = new Thread(this::run, name);
    }

    /**
     * Starts the thread.
     *
     * @return this
     */
    public WorkerRunner start() {
        thread.start();
        return this;
    }

    /**
     * Why pinning failed, or null (pinned, not asked, or not yet tried).
     *
     * @return the reason
     */
    public String pinFailure() {
        return pinFailure;
    }

    /**
     * Stops the loop after its current cycle and waits for the thread to end; a thread asleep in a
     * {@link SeparatedSleepIdleStrategy} is woken for it.
     */
    @Override
    public void close() {
        running = false;
        if (idleStrategy instanceof SeparatedSleepIdleStrategy sleeper) {
            sleeper.stop(); // after running=false: the loop that wakes sees it and ends
        }
        if (thread.isAlive() && thread != Thread.currentThread()) {
            try {
                thread.join();
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        if (cpu >= 0) {
            pinFailure = ThreadAffinity.pinCurrentThread(cpu);
        }
        while (running) {
            idleStrategy.idle(duty.getAsInt());
        }
    }
}
