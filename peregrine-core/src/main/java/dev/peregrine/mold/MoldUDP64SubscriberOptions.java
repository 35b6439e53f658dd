package dev.peregrine.mold;

import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;

/**
 * Settings of a {@link MoldUDP64Subscriber}; fluent, validated on each setter.
 */
public final class MoldUDP64SubscriberOptions {
    /**
     * The receive buffer the default request socket asks for (SO_RCVBUF; the kernel caps it at
     * {@code net.core.rmem_max}). A request server that stalls, a time slice say, answers together every
     * request it was sent meanwhile, retries included: with the system's default buffer (about 200 KiB,
     * some 90 answers of a full Ethernet packet) such a burst overflowed it, the answers were dropped, and
     * each gap waited for a timeout that then doubled.
     */
    public static final int DEFAULT_REQUEST_RECEIVE_BUFFER = 1 << 20;

    private UdpOptions feed = new UdpOptions();
    private InetAddress group;
    private NetworkInterface groupInterface;
    private InetSocketAddress requestServer;
    private UdpOptions request = new UdpOptions().receiveBufferSize(DEFAULT_REQUEST_RECEIVE_BUFFER);
    private String session;
    private long startSequence;
    private long requestTimeoutNs = 100_000_000L;
    private long maxRequestTimeoutNs = 1_000_000_000L;
    private int requestAttempts = 10;
    private int maxRequestsInFlight = 8;
    private long reorderBufferBytes = 4L << 20;
    private int reorderPacketLength = MoldUDP64Layout.ETHERNET_PACKET_LENGTH;
    private boolean acceptAnswersOnlyFromRequestServer = true;
    private InetAddress[] answerAddresses = new InetAddress[0];

    /**
     * Creates options with the defaults: any session, start from the next message, requests timed out after
     * the measured round trip (at most 100 ms) and then twice as long each time up to 1 s, 10 attempts per
     * gap and at least the 7.5 s these take unmeasured before giving it up, 8 requests in flight, a 4 MiB reorder buffer of 1472-byte packet slots, a request socket with a
     * 1 MiB receive buffer whose datagrams are taken as answers from any sender.
     */
    public MoldUDP64SubscriberOptions() {
    }

    /**
     * The socket the feed arrives on: its local address is the feed's port (set
     * {@link UdpOptions#reuseAddress} when several listeners on a host share it). Without a local address it gets an
     * ephemeral port on every address of the {@link #group}'s family, or for a unicast feed the {@link #requestServer}'s:
     * {@code ::} (which hears IPv4 too) when that is IPv6, else {@code 0.0.0.0}.
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
     * Where requests go; without one, a gap is filled only by late feed packets, or given up
     * ({@link MoldUDP64GapReason#NO_REQUEST_SERVER}) after the attempts' time.
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
     * The subscriber's own request socket (default: an ephemeral port on every address of the
     * {@link #requestServer}'s family, unconnected, with a receive buffer of
     * {@link #DEFAULT_REQUEST_RECEIVE_BUFFER}); answers come back to it. Options without a local address bind the
     * wildcard of the request server's family too. Options given here replace the
     * default whole: set {@link UdpOptions#receiveBufferSize} on them too.
     * Where the request server answers from the address given in {@link #requestServer}, connecting this
     * socket to it ({@link UdpOptions#remoteAddress} and {@link UdpOptions#connectedReadWrite}) reads answers
     * with {@code read(2)}: the JDK's unconnected {@code receive} may allocate the sender's address. A connected
     * socket (to the request server: the subscriber refuses another address) takes datagrams from the server only
     * (the kernel drops the others, uncounted), and hears a gone
     * server's ICMP port unreachable: the subscriber reports that once to the error handler until an answer comes,
     * and goes on asking per its timeouts ({@link UdpEndpoint#portUnreachable()} counts them).
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
     * How long an unanswered request first waits before it is sent again, until requests have been answered;
     * from then on the first wait follows their measured round trip (its smoothed mean plus four times its
     * mean deviation, as TCP's retransmission timer, at least 100 µs) and this is only its upper bound. Each
     * further wait for the same request is twice as long, up to {@link #maxRequestTimeoutNs}.
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

    /**
     * The longest wait for an answer, where the doubling of {@link #requestTimeoutNs} stops; a value below
     * the request timeout is taken as the request timeout.
     *
     * @param nanos at least 100 µs
     * @return this
     */
    public MoldUDP64SubscriberOptions maxRequestTimeoutNs(final long nanos) {
        if (nanos < 100_000L) {
            throw new IllegalArgumentException("maxRequestTimeoutNs=" + nanos + " must be at least 100 us");
        }
        this.maxRequestTimeoutNs = nanos;
        return this;
    }

    /**
     * How many requests a gap gets, without any answer in between, before the subscriber gives it up
     * ({@link MoldUDP64SubscriberState#UNRECOVERABLE}, {@link MoldUDP64GapReason#NO_ANSWER}); an answer
     * starts the count again. It is given up no sooner than these attempts would have taken to time out at the
     * configured {@link #requestTimeoutNs}, doubled each time up to {@link #maxRequestTimeoutNs} (7.5 s with the
     * defaults), from its first request: a measured round trip of microseconds makes the waits between repeats that
     * short, and the attempts alone would give a gap up after a millisecond of silence from a server that was
     * answering (a collection, its rate limit, a restart). Until that time has passed the request is sent again
     * after each timeout, which goes on doubling up to {@link #maxRequestTimeoutNs}; the time is bounded by the
     * settings, so a gap is never waited for forever.
     *
     * @param attempts at least 1
     * @return this
     */
    public MoldUDP64SubscriberOptions requestAttempts(final int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("requestAttempts=" + attempts + " must be at least 1");
        }
        this.requestAttempts = attempts;
        return this;
    }

    /**
     * How many gaps may each have a request in flight at once; lower gaps are asked for first.
     *
     * @param requests 1 to 64
     * @return this
     */
    public MoldUDP64SubscriberOptions maxRequestsInFlight(final int requests) {
        if (requests < 1 || requests > 64) {
            throw new IllegalArgumentException("maxRequestsInFlight=" + requests + " must be in [1, 64]");
        }
        this.maxRequestsInFlight = requests;
        return this;
    }

    /**
     * Room for packets that arrive past a gap, kept off-heap (made once, with the subscriber) until the gap
     * is filled, so that only the missing messages are requested. It holds {@code bytes / packetLength}
     * packets of up to {@code packetLength} bytes each, and the messages of up to 32 times as many packets
     * past the next expected one. When it is full, or a packet is longer, the packet is dropped and its
     * messages are requested like lost ones ({@link MoldUDP64Subscriber#bufferOverflows()}). Live packets leave
     * the last {@link #maxRequestsInFlight} slots (at most an eighth of them) to re-request answers, so that the
     * answers in flight are kept while the feed overflows the rest and recovery goes on at full width. 0 keeps
     * nothing.
     *
     * @param bytes 0 to 2^34
     * @param packetLength the longest packet kept, 20 to 65 507 (default 1472, one Ethernet frame)
     * @return this
     */
    public MoldUDP64SubscriberOptions reorderBuffer(final long bytes, final int packetLength) {
        if (bytes < 0 || bytes > 1L << 34) {
            throw new IllegalArgumentException("reorderBufferBytes=" + bytes + " must be in [0, 2^34]");
        }
        if (packetLength < MoldUDP64Layout.HEADER_LENGTH || packetLength > 65_507) {
            throw new IllegalArgumentException("reorderPacketLength=" + packetLength + " must be in [20, 65507]");
        }
        this.reorderBufferBytes = bytes;
        this.reorderPacketLength = packetLength;
        return this;
    }

    /**
     * Whether a datagram on the request socket counts as an answer only when it comes from the request server: the
     * {@link #requestServer}'s address and port, or its port at one of the {@link #answerAddresses}. On by default.
     *
     * <ul>
     *   <li>On, any other sender's datagram is dropped unread and counted ({@link MoldUDP64Subscriber#answersFromStrangers()},
     *       the {@code peregrine_mold_answers_from_strangers_total} counter). The first one is also reported to the
     *       reactor's error handler, naming the sender, so that a server answering from elsewhere is seen at once.
     *       The comparison allocates nothing.</li>
     *   <li>A wildcard {@link #requestServer} is the source of no answer: with this on and no
     *       {@link #answerAddresses}, the subscriber refuses it.</li>
     *   <li>Off, any sender's datagram of the session is taken as an answer, as the spec's listener does: a stranger
     *       who learns the request socket's port can have forged messages delivered. Turn it off only for a server
     *       that answers from a socket other than the one it is asked at.</li>
     * </ul>
     *
     * <p>It does not authenticate: MoldUDP64 has none, a forged source address passes, and the feed socket takes any
     * sender's packets. So no single answer can end the subscriber either way: see
     * {@link MoldUDP64GapReason#STORE_TRUNCATED} for the rule. Connecting the request socket to the server
     * ({@link #request} with {@link UdpOptions#remoteAddress}) has the kernel drop other senders' datagrams before
     * they are read, uncounted.
     *
     * @param only true (the default) to take answers from the request server only
     * @return this
     * @see MoldUDP64Subscriber#answersFromStrangers()
     */
    public MoldUDP64SubscriberOptions acceptAnswersOnlyFromRequestServer(final boolean only) {
        this.acceptAnswersOnlyFromRequestServer = only;
        return this;
    }

    /**
     * Further addresses the request server may answer from, at the {@link #requestServer}'s port. A server bound to
     * the wildcard address answers from whichever of its host's addresses the route back picks, which on a host of
     * several addresses (or behind a virtual address) is not always the one asked. Only read while
     * {@link #acceptAnswersOnlyFromRequestServer} is on.
     *
     * @param addresses the server host's other addresses; none (the default) for the requestServer's alone
     * @return this
     * @throws IllegalArgumentException if an address is null or the wildcard
     */
    public MoldUDP64SubscriberOptions answerAddresses(final InetAddress... addresses) {
        if (addresses == null) {
            throw new IllegalArgumentException("answerAddresses=null");
        }
        for (final InetAddress address : addresses) {
            if (address == null || address.isAnyLocalAddress()) {
                throw new IllegalArgumentException("answerAddresses contains " + address
                    + ": an answer's source is a host's own address, never null or the wildcard");
            }
        }
        this.answerAddresses = addresses.clone();
        return this;
    }

    InetAddress[] answerAddresses() {
        return answerAddresses.clone();
    }

    boolean acceptAnswersOnlyFromRequestServer() {
        return acceptAnswersOnlyFromRequestServer;
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

    /**
     * The first message to deliver, as {@link #startSequence(long)} set it (a gateway filling a store reads it).
     *
     * @return 0 for the first message seen, else a sequence number
     */
    public long startSequence() {
        return startSequence;
    }

    long requestTimeoutNs() {
        return requestTimeoutNs;
    }

    long maxRequestTimeoutNs() {
        return Math.max(maxRequestTimeoutNs, requestTimeoutNs);
    }

    int requestAttempts() {
        return requestAttempts;
    }

    int maxRequestsInFlight() {
        return maxRequestsInFlight;
    }

    long reorderBufferBytes() {
        return reorderBufferBytes;
    }

    int reorderPacketLength() {
        return reorderPacketLength;
    }
}
