package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** {@code dev.peregrine.MoldGapFilled}: a MoldUDP64 gap was filled, by answers to requests or by late packets; from and count are the gap as detected. */
@Name("dev.peregrine.MoldGapFilled")
@Label("MoldUDP64 Gap Filled")
@Description("A MoldUDP64 gap was filled, by answers to requests or by late packets; from and count are the gap as detected")
@Category({"Peregrine", "MoldUDP64"})
@StackTrace(false)
public final class MoldGapFilledEvent extends jdk.jfr.Event {
    private static final MoldGapFilledEvent PROBE = new MoldGapFilledEvent();

    private MoldGapFilledEvent() {
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
            event.feed = feed;
            event.fromSequence = fromSequence;
            event.count = count;
            event.recoveryNanos = recoveryNanos;
            event.commit();
        }
    }
}
