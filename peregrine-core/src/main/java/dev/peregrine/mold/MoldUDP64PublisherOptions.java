package dev.peregrine.mold;

import dev.peregrine.udp.UdpOptions;

import java.net.InetSocketAddress;

/**
 * Settings of a {@link MoldUDP64Publisher}; fluent, validated on each setter.
 */
public final class MoldUDP64PublisherOptions {
    private InetSocketAddress destination;
    private UdpOptions udp = new UdpOptions();
    private int maxPayload = MoldUDP64Layout.DEFAULT_MAX_PAYLOAD;
    private boolean segmentation;
    private long flushDelayNs;
    private long heartbeatIntervalNs = 1_000_000_000L;
    private int endOfSessionRepeats = 3;
    private MoldUDP64PacketFilter filter = MoldUDP64PacketFilter.SEND_ALL;

    /** Creates options with the defaults: 1452-byte payloads, flushed every reactor cycle, 1 s heartbeats. */
    public MoldUDP64PublisherOptions() {
    }

    /**
     * Where packets go: a multicast group and port, or one listener's address.
     *
     * @param destination the address
     * @return this
     */
    public MoldUDP64PublisherOptions destination(final InetSocketAddress destination) {
        if (destination == null || destination.isUnresolved()) {
            throw new IllegalArgumentException("destination=" + destination);
        }
        this.destination = destination;
        return this;
    }

    /**
     * Socket settings of the sending endpoint (multicast interface, TTL, loopback, bind address). Without a bind
     * address ({@link UdpOptions#localAddress(InetSocketAddress)}) it binds every address of the {@link #destination}'s family:
     * {@code ::} for an IPv6 destination, {@code 0.0.0.0} for an IPv4 one.
     *
     * @param udp the options
     * @return this
     */
    public MoldUDP64PublisherOptions udp(final UdpOptions udp) {
        if (udp == null) {
            throw new IllegalArgumentException("udp=null");
        }
        this.udp = udp;
        return this;
    }

    /**
     * Sends the full packets of a duty cycle together, in one {@code sendmsg(2)} that the kernel cuts into the
     * same datagrams (UDP segmentation offload, {@link dev.peregrine.udp.UdpEndpoint#sendSegmented}), where the
     * endpoint allows it (a native endpoint: {@link UdpOptions#nativeSocket}, busy-polled and connected to the
     * destination); elsewhere it has no effect. The wire carries exactly the packets it carries without it; what
     * changes is when full packets leave (at the end of the cycle rather than as each fills) and the cost: one
     * system call per up to 64 packets instead of one each.
     *
     * <p>Off by default: it needs an endpoint set up for it (native, busy-polled, connected), which the default
     * is not. The runs that once made it look unsafe (most segmented runs of the stream bench ending with a gap
     * given up, 2026-11-23 10:52 UTC) had two causes outside it, both mended since: the subscriber's request socket
     * had the system's default receive buffer, so a burst of answers after a stalled server was dropped
     * ({@link MoldUDP64SubscriberOptions#DEFAULT_REQUEST_RECEIVE_BUFFER}), and the bench's store held 0.4 s of a
     * 10 M msg/s stream. With both mended, segmented runs delivered every message in every round of the next
     * sitting (2026-11-23 12:46 UTC), up to 16.5 M msg/s of 32-byte messages on loopback with 1% of packets
     * dropped (BENCHMARKS.md); at 10% loss the recovery tail was longer with it (p99 18 ms against 156 µs).
     *
     * @param segmentation true to send a cycle's full packets in one segmented send
     * @return this
     */
    public MoldUDP64PublisherOptions segmentation(final boolean segmentation) {
        this.segmentation = segmentation;
        return this;
    }

    /**
     * Most bytes of message blocks in one packet, after the 20-byte header.
     *
     * @param bytes 2 to 65 487 (a UDP payload of at most 65 507); default 1452, one Ethernet frame
     * @return this
     */
    public MoldUDP64PublisherOptions maxPayload(final int bytes) {
        if (bytes < MoldUDP64Layout.BLOCK_HEADER_LENGTH || bytes > 65_507 - MoldUDP64Layout.HEADER_LENGTH) {
            throw new IllegalArgumentException("maxPayload=" + bytes + " must be in [2, 65487]");
        }
        this.maxPayload = bytes;
        return this;
    }

    /**
     * How long a partly filled packet may wait for more messages; 0 (the default) sends it at the end of
     * the reactor cycle in which its first message was offered.
     *
     * @param nanos 0 or more
     * @return this
     */
    public MoldUDP64PublisherOptions flushDelayNs(final long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("flushDelayNs=" + nanos);
        }
        this.flushDelayNs = nanos;
        return this;
    }

    /**
     * Idle time after which a heartbeat goes out, and the interval of end-of-session repeats.
     *
     * @param nanos at least 1 ms
     * @return this
     */
    public MoldUDP64PublisherOptions heartbeatIntervalNs(final long nanos) {
        if (nanos < 1_000_000L) {
            throw new IllegalArgumentException("heartbeatIntervalNs=" + nanos + " must be at least 1 ms");
        }
        this.heartbeatIntervalNs = nanos;
        return this;
    }

    /**
     * How many end-of-session packets are sent on close, one per heartbeat interval.
     *
     * @param repeats at least 1
     * @return this
     */
    public MoldUDP64PublisherOptions endOfSessionRepeats(final int repeats) {
        if (repeats < 1) {
            throw new IllegalArgumentException("endOfSessionRepeats=" + repeats);
        }
        this.endOfSessionRepeats = repeats;
        return this;
    }

    /**
     * A filter that may drop packets before they are sent (simulated loss).
     *
     * @param filter the filter
     * @return this
     */
    public MoldUDP64PublisherOptions filter(final MoldUDP64PacketFilter filter) {
        if (filter == null) {
            throw new IllegalArgumentException("filter=null");
        }
        this.filter = filter;
        return this;
    }

    InetSocketAddress destination() {
        return destination;
    }

    UdpOptions udp() {
        return udp;
    }

    int maxPayload() {
        return maxPayload;
    }

    long flushDelayNs() {
        return flushDelayNs;
    }

    long heartbeatIntervalNs() {
        return heartbeatIntervalNs;
    }

    int endOfSessionRepeats() {
        return endOfSessionRepeats;
    }

    MoldUDP64PacketFilter filter() {
        return filter;
    }

    boolean segmentation() {
        return segmentation;
    }
}
