package dev.peregrine.internal.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** {@code dev.peregrine.MoldGapDetected}: a MoldUDP64 subscriber saw a packet start past the next expected message: a gap opened, to be requested. */
@Name("dev.peregrine.MoldGapDetected")
@Label("MoldUDP64 Gap Detected")
@Description("A MoldUDP64 subscriber saw a packet start past the next expected message: a gap opened, to be requested")
public final class MoldGapDetectedEvent extends MoldGapEvent {
    private static final MoldGapDetectedEvent PROBE = new MoldGapDetectedEvent();

    private MoldGapDetectedEvent() {
        // made by emit only (and once as the probe)
    }

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param feed the subscriber's feed address, as text
     * @param fromSequence the first missing message
     * @param count messages in the gap
     */
    public static void emit(final String feed, final long fromSequence, final long count) {
        if (PROBE.isEnabled()) {
            final MoldGapDetectedEvent event = new MoldGapDetectedEvent();
            event.gap(feed, fromSequence, count);
            event.commit();
        }
    }
}
