package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

import java.net.SocketAddress;

/**
 * {@code dev.peregrine.BackPressure}: a duration event covering a back-pressured period of one channel,
 * from the first send refused with {@code BACK_PRESSURED} until the outbound buffer had drained (or the
 * channel closed). The transport holds the event object for the period: one allocation per period, none
 * without a recording.
 */
@Name("dev.peregrine.BackPressure")
@Label("Back-Pressure")
@Description("A channel's outbound buffer refused sends: from the first refused send until the buffer drained or the channel closed")
@Category({"Peregrine", "Channels"})
@StackTrace(false)
public final class BackPressureEvent extends jdk.jfr.Event {
    private static final BackPressureEvent PROBE = new BackPressureEvent();

    private BackPressureEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Transport")
    String transport;

    @Label("Channel Id")
    long channelId;

    @Label("Remote Address")
    String remoteAddress;

    @Label("Outbound Capacity")
    @Description("The size of the channel's outbound buffer")
    @DataAmount
    long outboundCapacity;

    @Label("Refused Sends")
    @Description("Sends and claims refused with BACK_PRESSURED during the period")
    long refusedSends;

    @Label("Ended By")
    @Description("drained: the outbound buffer was written out; closed: the channel closed first")
    String endedBy;

    /**
     * Starts a period if a recording wants the event.
     *
     * @param transport tcp
     * @param channelId the channel
     * @param remoteAddress the peer, or null
     * @param outboundCapacity the size of the outbound buffer
     * @return the event, begun and counting one refused send, or null when not recording
     */
    public static BackPressureEvent begin(final String transport, final long channelId,
        final SocketAddress remoteAddress, final long outboundCapacity) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        final BackPressureEvent event = new BackPressureEvent();
        event.begin();
        event.transport = transport;
        event.channelId = channelId;
        event.remoteAddress = JfrText.address(remoteAddress);
        event.outboundCapacity = outboundCapacity;
        event.refusedSends = 1;
        return event;
    }

    /** Counts one more refused send in this period. */
    public void refused() {
        refusedSends++;
    }

    /**
     * Ends the period and records it.
     *
     * @param endedBy drained or closed
     */
    public void finish(final String endedBy) {
        this.endedBy = endedBy;
        end();
        commit();
    }
}
