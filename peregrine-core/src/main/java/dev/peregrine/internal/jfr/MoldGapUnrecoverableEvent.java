package dev.peregrine.internal.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** {@code dev.peregrine.MoldGapUnrecoverable}: a MoldUDP64 subscriber gave a gap up: the subscriber is UNRECOVERABLE. */
@Name("dev.peregrine.MoldGapUnrecoverable")
@Label("MoldUDP64 Gap Unrecoverable")
@Description("A MoldUDP64 subscriber gave a gap up: the subscriber is UNRECOVERABLE")
public final class MoldGapUnrecoverableEvent extends MoldGapEvent {
    private static final MoldGapUnrecoverableEvent PROBE = new MoldGapUnrecoverableEvent();

    private MoldGapUnrecoverableEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Reason")
    @Description("NO_ANSWER, NO_REQUEST_SERVER or STORE_TRUNCATED")
    String reason;

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param feed the subscriber's feed address, as text
     * @param fromSequence the first missing message
     * @param count messages in the gap
     * @param reason why it was given up
     */
    public static void emit(final String feed, final long fromSequence, final long count, final Enum<?> reason) {
        if (PROBE.isEnabled()) {
            final MoldGapUnrecoverableEvent event = new MoldGapUnrecoverableEvent();
            event.gap(feed, fromSequence, count);
            event.reason = reason.name();
            event.commit();
        }
    }
}
