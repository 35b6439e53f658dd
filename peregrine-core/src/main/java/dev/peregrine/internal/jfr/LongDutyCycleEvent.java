package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * {@code dev.peregrine.LongDutyCycle}: a reactor cycle that did work and took longer than the reactor's
 * threshold. Measured between two clock reads the reactor makes anyway: from the start of the cycle to
 * the start of the next one.
 */
@Name("dev.peregrine.LongDutyCycle")
@Label("Long Duty Cycle")
@Description("A reactor duty cycle that did work took longer than ReactorOptions.longCycleThresholdNs, measured from its start to the start of the next cycle")
@Category({"Peregrine", "Reactor"})
@StackTrace(false)
public final class LongDutyCycleEvent extends jdk.jfr.Event {
    private static final LongDutyCycleEvent PROBE = new LongDutyCycleEvent();

    private LongDutyCycleEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Reactor")
    String reactor;

    @Label("Cycle Duration")
    @Description("From the start of the cycle to the start of the next one")
    @Timespan(Timespan.NANOSECONDS)
    long cycleDuration;

    @Label("Threshold")
    @Timespan(Timespan.NANOSECONDS)
    long threshold;

    @Label("Work")
    @Description("The work the cycle reported: commands, ready channels, timers and pollables' work")
    int work;

    /**
     * Whether a recording wants the event; the reactor's constructor calls it so that the class is loaded
     * then, not inside the first long cycle.
     *
     * @return true if {@link #emit} would record
     */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param reactor the reactor's name
     * @param cycleDuration the cycle's length in nanoseconds
     * @param threshold the reactor's threshold in nanoseconds
     * @param work the work the cycle reported
     */
    public static void emit(final String reactor, final long cycleDuration, final long threshold, final int work) {
        if (PROBE.isEnabled()) {
            final LongDutyCycleEvent event = new LongDutyCycleEvent();
            event.reactor = reactor;
            event.cycleDuration = cycleDuration;
            event.threshold = threshold;
            event.work = work;
            event.commit();
        }
    }
}
