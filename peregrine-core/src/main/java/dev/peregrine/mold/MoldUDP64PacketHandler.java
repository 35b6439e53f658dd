package dev.peregrine.mold;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.udp.DatagramHandler;
import dev.peregrine.udp.UdpEndpoint;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * Hands a {@link MoldUDP64Subscriber} socket's datagrams to {@link MoldUDP64Subscriber#onPacket}: the feed's, and
 * on the request socket only the request server's (the requester's check). A socket closed by a failure ends the
 * subscriber. Not thread-safe: the subscriber's reactor thread.
 */
final class MoldUDP64PacketHandler implements DatagramHandler {
    private final MoldUDP64Subscriber subscriber;
    private final boolean answer;

    MoldUDP64PacketHandler(final MoldUDP64Subscriber subscriber, final boolean answer) {
        this.subscriber = subscriber;
        this.answer = answer;
    }

    @Override
    public void onDatagram(final UdpEndpoint endpoint, final MemorySegment buffer, final long offset, final int length,
        final InetSocketAddress sender, final long nowNs) {
        if (answer && !subscriber.requester.accepts(sender, length)) {
            return; // a stranger's, counted by the requester
        }
        subscriber.onPacket(buffer, offset, length, answer, nowNs);
    }

    @Override
    public void onClosed(final UdpEndpoint endpoint, final CloseReason reason, final String detail) {
        if (reason == CloseReason.ERROR && subscriber.state() != MoldUDP64SubscriberState.FAILED) {
            // counted and reported by the endpoint; without its socket the subscriber cannot go on
            subscriber.fail((answer ? "request" : "feed") + " socket on " + endpoint.localAddress() + " closed: " + detail);
            subscriber.releaseMemory();
        }
    }
}
