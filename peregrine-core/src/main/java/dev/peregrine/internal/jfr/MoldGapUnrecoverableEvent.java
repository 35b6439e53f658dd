package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code dev.peregrine.MoldGapUnrecoverable}: a MoldUDP64 subscriber gave a gap up: the subscriber is UNRECOVERABLE. */
@Name("dev.peregrine.MoldGapUnrecoverable")
@Label("MoldUDP64 Gap Unrecoverable")
@Description("A MoldUDP64 subscriber gave a gap up: the subscriber is UNRECOVERABLE")
@Category({"Peregrine", "MoldUDP64"})
@StackTrace(false)
public final class MoldGapUnrecoverableEvent extends jdk.jfr.Event {
    private static final MoldGapUnrecoverableEvent PROBE = new MoldGapUnrecoverableEvent();

    private MoldGapUnrecoverableEvent() {
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
            event.feed = feed;
            event.fromSequence = fromSequence;
            event.count = count;
            event.reason = reason.name();
            event.commit();
        }
    }
}
