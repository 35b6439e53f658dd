package dev.peregrine.internal.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Timespan;

/** {@code dev.peregrine.MoldGapFilled}: a MoldUDP64 gap was filled, by answers to requests or by late packets; from and count are the gap as detected. */
@Name("dev.peregrine.MoldGapFilled")
@Label("MoldUDP64 Gap Filled")
@Description("A MoldUDP64 gap was filled, by answers to requests or by late packets; from and count are the gap as detected")
public final class MoldGapFilledEvent extends MoldGapEvent {
    private static final MoldGapFilledEvent PROBE = new MoldGapFilledEvent();

    private MoldGapFilledEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Recovery Time")
    @Description("From the packet that revealed the gap to the one that filled it")
    @Timespan(Timespan.NANOSECONDS)
    long recoveryNanos;

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param feed the subscriber's feed address, as text
     * @param fromSequence the first missing message
     * @param count messages in the gap
     * @param recoveryNanos from detection to fill
     */
    public static void emit(final String feed, final long fromSequence, final long count, final long recoveryNanos) {
        if (PROBE.isEnabled()) {
            final MoldGapFilledEvent event = new MoldGapFilledEvent();
            event.gap(feed, fromSequence, count);
            event.recoveryNanos = recoveryNanos;
            event.commit();
        }
    }
}
