package dev.peregrine.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

import java.net.SocketAddress;

/** {@code dev.peregrine.ShmPeerLost}: the process at the other end of a shared-memory channel went away. */
@Name("dev.peregrine.ShmPeerLost")
@Label("Shared-Memory Peer Lost")
@Description("The peer of a shared-memory channel closed its end of the rendezvous socket: it closed the channel, or its process died")
@Category({"Peregrine", "Shared Memory"})
@StackTrace(false)
public final class ShmPeerLostEvent extends jdk.jfr.Event {
    private static final ShmPeerLostEvent PROBE = new ShmPeerLostEvent();

    private ShmPeerLostEvent() {
        // made by emit only (and once as the probe)
    }

    @Label("Channel Id")
    long channelId;

    @Label("Remote Address")
    @Description("The rendezvous socket's path, where known")
    String remoteAddress;

    @Label("Orderly")
    @Description("true if the peer marked its ring closed (a close), false if it did not (its process died)")
    boolean orderly;

    /**
     * Records the event if a recording wants it; allocates nothing otherwise.
     *
     * @param channelId the channel
     * @param remoteAddress the peer, or null
     * @param orderly whether the peer closed its ring before going
     */
    public static void emit(final long channelId, final SocketAddress remoteAddress, final boolean orderly) {
        if (PROBE.isEnabled()) {
            final ShmPeerLostEvent event = new ShmPeerLostEvent();
            event.channelId = channelId;
            event.remoteAddress = JfrText.address(remoteAddress);
            event.orderly = orderly;
            event.commit();
        }
    }
}
