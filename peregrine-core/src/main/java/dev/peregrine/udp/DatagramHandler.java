package dev.peregrine.udp;

import dev.peregrine.channel.CloseReason;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * Receives datagrams from a {@link UdpEndpoint}, on the reactor thread.
 *
 * <p>An exception thrown from {@link #onDatagram} closes that endpoint only, with
 * {@link CloseReason#ERROR} and the exception in the detail: its socket is released, no further datagram is
 * handed on (not even those already read in the same batch), the failure is counted
 * ({@link UdpEndpoint#handlerFailures()}), goes to the reactor's error handler, and {@link #onClosed} follows.
 * The reactor and every other endpoint on it go on. An exception from {@link #onClosed} is counted and reported
 * only.
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

    /**
     * The endpoint closed, its socket released; nothing follows for it. Called once.
     *
     * @param endpoint the endpoint
     * @param reason {@link CloseReason#LOCAL} for {@link UdpEndpoint#close()}, {@link CloseReason#ERROR} when
     *     {@link #onDatagram} threw
     * @param detail a human-readable reason, naming the exception for {@link CloseReason#ERROR}
     */
    default void onClosed(final UdpEndpoint endpoint, final CloseReason reason, final String detail) {
    }
}
