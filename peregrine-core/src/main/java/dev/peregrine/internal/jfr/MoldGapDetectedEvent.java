package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code dev.peregrine.MoldGapDetected}: a MoldUDP64 subscriber saw a packet start past the next expected message: a gap opened, to be requested. */
@Name("dev.peregrine.MoldGapDetected")
@Label("MoldUDP64 Gap Detected")
@Description("A MoldUDP64 subscriber saw a packet start past the next expected message: a gap opened, to be requested")
@Category({"Peregrine", "MoldUDP64"})
@StackTrace(false)
public final class MoldGapDetectedEvent extends jdk.jfr.Event {
    private static final MoldGapDetectedEvent PROBE = new MoldGapDetectedEvent();

    private MoldGapDetectedEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Feed")
    @Description("The local address the subscriber receives the feed on")
    String feed;

    @Label("From Sequence")
    @Description("The first missing message's sequence number")
    long fromSequence;

    @Label("Count")
    @Description("Messages in the gap")
    long count;

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
            event.feed = feed;
            event.fromSequence = fromSequence;
            event.count = count;
            event.commit();
        }
    }
}
