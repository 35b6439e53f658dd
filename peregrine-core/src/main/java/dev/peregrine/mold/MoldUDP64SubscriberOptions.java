package dev.peregrine.mold;

import dev.peregrine.udp.UdpOptions;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;

/**
 * Settings of a {@link MoldUDP64Subscriber}; fluent, validated on each setter.
 */
public final class MoldUDP64SubscriberOptions {
    private UdpOptions feed = new UdpOptions();
    private InetAddress group;
    private NetworkInterface groupInterface;
    private InetSocketAddress requestServer;
    private UdpOptions request = new UdpOptions();
    private String session;
    private long startSequence;
    private long requestTimeoutNs = 100_000_000L;

    /** Creates options with the defaults: any session, start from the next message, 100 ms request timeout. */
    public MoldUDP64SubscriberOptions() {
    }

    /**
     * The socket the feed arrives on: its local address is the feed's port (set
     * {@link UdpOptions#reuseAddress} when several listeners on a host share it).
     *
     * @param feed the options
     * @return this
     */
    public MoldUDP64SubscriberOptions feed(final UdpOptions feed) {
        if (feed == null) {
            throw new IllegalArgumentException("feed=null");
        }
        this.feed = feed;
        return this;
    }

    /**
     * A multicast group to join on the feed socket.
     *
     * @param group the group, or null for a unicast feed
     * @param networkInterface where to join, or null for the feed options' multicast interface
     * @return this
     */
    public MoldUDP64SubscriberOptions group(final InetAddress group, final NetworkInterface networkInterface) {
        if (group != null && !group.isMulticastAddress()) {
            throw new IllegalArgumentException("group=" + group + " is not a multicast address");
        }
        this.group = group;
        this.groupInterface = networkInterface;
        return this;
    }

    /**
     * Where requests go; without one the subscriber cannot recover and stays in recovery after a gap.
     *
     * @param requestServer the re-request server's address
     * @return this
     */
    public MoldUDP64SubscriberOptions requestServer(final InetSocketAddress requestServer) {
        if (requestServer != null && requestServer.isUnresolved()) {
            throw new IllegalArgumentException("requestServer=" + requestServer + " is unresolved");
        }
        this.requestServer = requestServer;
        return this;
    }

    /**
     * The subscriber's own request socket (default: an ephemeral port); answers come back to it.
     *
     * @param request the options
     * @return this
     */
    public MoldUDP64SubscriberOptions request(final UdpOptions request) {
        if (request == null) {
            throw new IllegalArgumentException("request=null");
        }
        this.request = request;
        return this;
    }

    /**
     * The session to accept; null (the default) takes it from the first packet.
     *
     * @param session the name, at most 10 printable ASCII characters
     * @return this
     */
    public MoldUDP64SubscriberOptions session(final String session) {
        if (session != null) {
            MoldUDP64Layout.session(session);
        }
        this.session = session;
        return this;
    }

    /**
     * The first message to deliver: 0 (the default) for the first message of the first packet seen, 1 for
     * the whole session, or any later sequence number; missing messages are requested.
     *
     * @param sequence 0 or more
     * @return this
     */
    public MoldUDP64SubscriberOptions startSequence(final long sequence) {
        if (sequence < 0) {
            throw new IllegalArgumentException("startSequence=" + sequence);
        }
        this.startSequence = sequence;
        return this;
    }

    /**
     * How long an unanswered request waits before it is sent again.
     *
     * @param nanos at least 100 µs
     * @return this
     */
    public MoldUDP64SubscriberOptions requestTimeoutNs(final long nanos) {
        if (nanos < 100_000L) {
            throw new IllegalArgumentException("requestTimeoutNs=" + nanos + " must be at least 100 us");
        }
        this.requestTimeoutNs = nanos;
        return this;
    }

    UdpOptions feed() {
        return feed;
    }

    InetAddress group() {
        return group;
    }

    NetworkInterface groupInterface() {
        return groupInterface;
    }

    InetSocketAddress requestServer() {
        return requestServer;
    }

    UdpOptions request() {
        return request;
    }

    String session() {
        return session;
    }

    long startSequence() {
        return startSequence;
    }

    long requestTimeoutNs() {
        return requestTimeoutNs;
    }
}
