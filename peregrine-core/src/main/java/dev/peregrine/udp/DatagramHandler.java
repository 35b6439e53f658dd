package dev.peregrine.udp;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * Receives datagrams from a {@link UdpEndpoint}, on the reactor thread.
 */
@FunctionalInterface
public interface DatagramHandler {
    /**
     * One whole datagram arrived. The view and the sender are valid only during this call; the sender
     * object is reused by the JDK while the same peer keeps sending, so compare it by identity cheaply
     * and by {@code equals} when it matters.
     *
     * @param endpoint the endpoint it arrived on
     * @param buffer memory holding the datagram
     * @param offset where it starts in {@code buffer}
     * @param length its length in bytes, possibly 0
     * @param sender who sent it
     * @param nowNs the clock of this cycle
     */
    void onDatagram(UdpEndpoint endpoint, MemorySegment buffer, long offset, int length, InetSocketAddress sender, long nowNs);
}
