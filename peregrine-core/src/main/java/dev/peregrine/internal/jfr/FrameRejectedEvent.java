package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

import java.net.SocketAddress;

/** {@code dev.peregrine.FrameRejected}: a frame, datagram or packet from a peer was refused. */
@Name("dev.peregrine.FrameRejected")
@Label("Frame Rejected")
@Description("A frame (TCP), datagram (UDP) or packet (MoldUDP64) from a peer was refused: malformed, too long or truncated")
@Category({"Peregrine", "Channels"})
@StackTrace(false)
public final class FrameRejectedEvent extends jdk.jfr.Event {
    private static final FrameRejectedEvent PROBE = new FrameRejectedEvent();

    private FrameRejectedEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Transport")
    @Description("tcp, udp or moldudp64")
    String transport;

    @Label("Channel Id")
    @Description("The TCP channel (closed for it); 0 for UDP and MoldUDP64, where only the datagram is dropped")
    long channelId;

    @Label("Remote Address")
    @Description("The peer, where known")
    String remoteAddress;

    @Label("Local Address")
    @Description("The socket it arrived on, for UDP and MoldUDP64")
    String localAddress;

    @Label("Reason")
    String reason;

    /**
     * Whether a recording wants the event, for callers that must build the reason first.
     *
     * @return true if {@link #emit} would record
     */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param transport tcp, udp or moldudp64
     * @param channelId the channel, or 0
     * @param remoteAddress the peer, or null
     * @param localAddress the receiving socket, or null
     * @param reason why
     */
    public static void emit(final String transport, final long channelId, final SocketAddress remoteAddress,
        final SocketAddress localAddress, final String reason) {
        if (PROBE.isEnabled()) {
            final FrameRejectedEvent event = new FrameRejectedEvent();
            event.transport = transport;
            event.channelId = channelId;
            event.remoteAddress = JfrText.address(remoteAddress);
            event.localAddress = JfrText.address(localAddress);
            event.reason = reason;
            event.commit();
        }
    }
}
