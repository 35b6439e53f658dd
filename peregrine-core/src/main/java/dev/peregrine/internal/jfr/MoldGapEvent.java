package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.StackTrace;

/** The fields every MoldUDP64 gap event has: which feed, and which messages. */
@Category({"Peregrine", "MoldUDP64"})
@StackTrace(false)
abstract class MoldGapEvent extends jdk.jfr.Event {
    @Label("Feed")
    @Description("The local address the subscriber receives the feed on")
    String feed;

    @Label("From Sequence")
    @Description("The first missing message's sequence number")
    long fromSequence;

    @Label("Count")
    @Description("Messages in the gap")
    long count;

    MoldGapEvent() {
        // the subclasses' emit makes them
    }

    final void gap(final String feed, final long fromSequence, final long count) {
        this.feed = feed;
        this.fromSequence = fromSequence;
        this.count = count;
    }
}
