package dev.peregrine.bench.fanout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Plays a scenario on reader 0 once the writer is half-way, off the writer's thread (so that the writer allocates
 * nothing). The same thread runs in the stop run and in its detached reference run, and costs neither anything
 * while it waits:
 * <ul>
 *   <li>it parks until the writer unparks it at the half-way sequence ({@link #halfway()}), instead of polling a flag
 *       (every 100 us it was: 10 000 wake-ups a second in the writer's JVM, on two vCPUs, in the stop run only);</li>
 *   <li>it stops reader 0 with {@code kill(2)} ({@link ProcessSignals}), instead of starting {@code /bin/kill} from
 *       the writer's JVM in the middle of the measured messages;</li>
 *   <li>it then parks until the other readers are done ({@link #othersDone()}), and continues the stopped reader.</li>
 * </ul>
 * Under {@link FanoutRunner.Scenario#DETACH_READER} reader 0 detaches itself at the half-way sequence; this thread
 * does nothing there.
 */
final class FanoutScenarioThread extends Thread {
    /** Longest park between looks at whether reader 0 is still alive (a failed run ends its readers). */
    private static final long ALIVE_CHECK_NS = 100_000_000L;

    private final FanoutRunner.Scenario scenario;
    private final Process process;
    private volatile boolean halfway;
    private volatile boolean writerDone;
    private volatile boolean othersDone;
    private long signalNs;
    private String problem;

    FanoutScenarioThread(final FanoutRunner.Scenario scenario, final Process process) {
        super("fanout-scenario");
        setDaemon(true);
        this.scenario = scenario;
        this.process = process;
    }

    /** The writer sent the half-way sequence: called on the writer's thread, allocates nothing. */
    void halfway() {
        halfway = true;
        LockSupport.unpark(this);
    }

    /** The writer sent its last message. */
    void writerDone() {
        writerDone = true;
        LockSupport.unpark(this);
    }

    /** The other readers have given their results. */
    void othersDone() {
        othersDone = true;
        LockSupport.unpark(this);
    }

    @Override
    public void run() {
        try {
            while (!halfway && !writerDone) {
                LockSupport.park(this);
            }
            switch (scenario) {
                case STOP_READER -> {
                    signalNs = System.nanoTime();
                    ProcessSignals.send(process.pid(), ProcessSignals.SIGSTOP);
                    awaitOthersDone();
                    ProcessSignals.send(process.pid(), ProcessSignals.SIGCONT);
                }
                case KILL_READER -> {
                    signalNs = System.nanoTime();
                    process.destroyForcibly(); // SIGKILL on Linux, sent by the JDK without a process of its own
                    process.waitFor(10, TimeUnit.SECONDS);
                }
                default -> awaitOthersDone(); // DETACH_READER: reader 0 detaches itself
            }
        } catch (final IOException | InterruptedException ex) {
            problem = ex.toString();
        }
    }

    private void awaitOthersDone() {
        while (!othersDone && process.isAlive()) { // a failed run's readers are ended at its close
            LockSupport.parkNanos(this, ALIVE_CHECK_NS);
        }
    }

    /**
     * The notes of the scenario: a failure, the time to a killed reader's eviction, how the stop was signalled.
     *
     * @param evictionNs when the writer saw the eviction, or 0
     * @param messages messages the writer sent
     * @param halfwaySequence the half-way sequence
     * @param end the messages the writer was to send
     * @return the notes
     */
    List<String> notes(final long evictionNs, final long messages, final long halfwaySequence, final long end) {
        final List<String> notes = new ArrayList<>();
        if (problem != null) {
            notes.add("scenario failed: " + problem);
        }
        if (scenario == FanoutRunner.Scenario.STOP_READER && ProcessSignals.unavailableReason() != null) {
            notes.add("reader 0 was stopped by starting /bin/kill from the writer's JVM: "
                + ProcessSignals.unavailableReason());
        }
        if (scenario == FanoutRunner.Scenario.KILL_READER) {
            notes.add(evictionNs == 0 ? "reader 0 (killed with SIGKILL): never evicted"
                : String.format(Locale.ROOT, "reader 0 (killed with SIGKILL at sequence %d): evicted %.1f ms after"
                    + " the signal was sent; the writer then sent %d of %d messages", halfwaySequence,
                    (evictionNs - signalNs) / 1e6, messages, end));
        }
        return notes;
    }
}
