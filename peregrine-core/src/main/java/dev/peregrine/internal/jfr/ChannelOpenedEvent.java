package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

import java.net.SocketAddress;

/** {@code dev.peregrine.ChannelOpened}: a channel connected or was accepted. */
@Name("dev.peregrine.ChannelOpened")
@Label("Channel Opened")
@Description("A TCP or shared-memory channel connected (client) or was accepted (server)")
@Category({"Peregrine", "Channels"})
@StackTrace(false)
public final class ChannelOpenedEvent extends jdk.jfr.Event {
    private static final ChannelOpenedEvent PROBE = new ChannelOpenedEvent();

    private ChannelOpenedEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Transport")
    @Description("tcp or shm")
    String transport;

    @Label("Channel Id")
    long channelId;

    @Label("Server Id")
    @Description("The server that accepted the channel, 0 for a channel this process connected")
    long serverId;

    @Label("Remote Address")
    String remoteAddress;

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param transport tcp or shm
     * @param channelId the channel
     * @param serverId the server that accepted it, 0 for a client
     * @param remoteAddress the peer, or null
     */
    public static void emit(final String transport, final long channelId, final long serverId,
        final SocketAddress remoteAddress) {
        if (PROBE.isEnabled()) {
            final ChannelOpenedEvent event = new ChannelOpenedEvent();
            event.transport = transport;
            event.channelId = channelId;
            event.serverId = serverId;
            event.remoteAddress = JfrText.address(remoteAddress);
            event.commit();
        }
    }
}
