package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

import java.net.SocketAddress;

/** {@code dev.peregrine.ChannelClosed}: a channel closed, with its reason. */
@Name("dev.peregrine.ChannelClosed")
@Label("Channel Closed")
@Description("A TCP or shared-memory channel closed; the reason and detail are the ones onClosed received")
@Category({"Peregrine", "Channels"})
@StackTrace(false)
public final class ChannelClosedEvent extends jdk.jfr.Event {
    private static final ChannelClosedEvent PROBE = new ChannelClosedEvent();

    private ChannelClosedEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Transport")
    @Description("tcp or shm")
    String transport;

    @Label("Channel Id")
    long channelId;

    @Label("Remote Address")
    String remoteAddress;

    @Label("Reason")
    @Description("BY_PEER, RESET, LOCAL or ERROR")
    String reason;

    @Label("Detail")
    String detail;

    @Label("Bytes Discarded")
    @Description("Bytes sent by the application but never written to the peer")
    @DataAmount
    long bytesDiscarded;

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param transport tcp or shm
     * @param channelId the channel
     * @param remoteAddress the peer, or null
     * @param reason the close reason's name
     * @param detail why, in words
     * @param bytesDiscarded unsent bytes thrown away
     */
    public static void emit(final String transport, final long channelId, final SocketAddress remoteAddress,
        final Enum<?> reason, final String detail, final long bytesDiscarded) {
        if (PROBE.isEnabled()) {
            final ChannelClosedEvent event = new ChannelClosedEvent();
            event.transport = transport;
            event.channelId = channelId;
            event.remoteAddress = JfrText.address(remoteAddress);
            event.reason = reason.name();
            event.detail = detail;
            event.bytesDiscarded = bytesDiscarded;
            event.commit();
        }
    }
}
