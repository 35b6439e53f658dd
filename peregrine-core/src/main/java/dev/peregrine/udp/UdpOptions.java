package dev.peregrine.udp;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;

/**
 * Settings of a {@link UdpEndpoint}; fluent, validated on each setter.
 *
 * <p>Defaults: bound to an ephemeral port on every address of the peer's family (every IPv6 address, {@code ::},
 * for an IPv6 {@link #remoteAddress}, else every IPv4 address; see {@link #localAddress(InetSocketAddress)}), not
 * connected, multicast TTL 1 with loopback on, the system's socket buffer sizes, a 65 536-byte datagram buffer (no
 * IPv4 datagram is ever truncated), up to 64 datagrams drained per cycle, selector-driven readiness, receive with the
 * sender's address (see {@link #connectedReadWrite} for the cheaper connected path).
 */
public final class UdpOptions {
    /** Largest datagram buffer: the largest UDP payload over IPv6 jumbograms is not supported. */
    public static final int MAX_DATAGRAM_BUFFER = 1 << 16;

    /** The default local address for an IPv4 peer, or none: an ephemeral port on every IPv4 address. */
    private static final InetSocketAddress IPV4_ANY = new InetSocketAddress(0);
    /** The default local address for an IPv6 peer: an ephemeral port on {@code ::}. */
    private static final InetSocketAddress IPV6_ANY = new InetSocketAddress(ipv6Wildcard(), 0);

    /** Null until set: the default then follows the peer's family ({@link #bindAddress(InetAddress)}). */
    private InetSocketAddress localAddress;
    private InetSocketAddress remoteAddress;
    private boolean reuseAddress;
    private NetworkInterface multicastInterface;
    private int multicastTtl = 1;
    private boolean multicastLoopback = true;
    private int receiveBufferSize;
    private int sendBufferSize;
    private int datagramBuffer = MAX_DATAGRAM_BUFFER;
    private boolean receiveOffload;
    private int receiveBatch = 64;
    private boolean busyPoll;
    private boolean connectedReadWrite;
    private boolean nativeSocket;

    /** Creates options with the defaults. */
    public UdpOptions() {
    }

    /**
     * Where to bind; port 0 picks a free port.
     *
     * <p>Unless set, an ephemeral port on every address of the peer's family: {@code ::} when the
     * {@link #remoteAddress} (or, for an unconnected socket, the address its owner says it talks to, see
     * {@link UdpEndpoint#open(dev.peregrine.reactor.Reactor, UdpOptions, InetAddress, DatagramHandler)}) is IPv6,
     * since a socket bound to an IPv4 address can neither send to nor hear from one; {@code 0.0.0.0} otherwise.
     *
     * @param localAddress the address, e.g. {@code new InetSocketAddress(5000)} for every interface
     * @return this
     * @throws IllegalArgumentException if it is null or unresolved (a native socket would bind every interface)
     */
    public UdpOptions localAddress(final InetSocketAddress localAddress) {
        if (localAddress == null || localAddress.isUnresolved()) {
            throw new IllegalArgumentException("localAddress=" + localAddress + (localAddress == null ? "" : " is unresolved"));
        }
        this.localAddress = localAddress;
        return this;
    }

    /**
     * Connects the socket to one peer: {@link UdpEndpoint#send} goes there, and datagrams from anyone
     * else are filtered out by the kernel.
     *
     * @param remoteAddress the peer, or null for an unconnected socket
     * @return this
     */
    public UdpOptions remoteAddress(final InetSocketAddress remoteAddress) {
        if (remoteAddress != null && remoteAddress.isUnresolved()) {
            throw new IllegalArgumentException("remoteAddress=" + remoteAddress + " is unresolved");
        }
        this.remoteAddress = remoteAddress;
        return this;
    }

    /**
     * SO_REUSEADDR, needed when several listeners on one host bind the same multicast port.
     *
     * @param reuseAddress whether to set it
     * @return this
     */
    public UdpOptions reuseAddress(final boolean reuseAddress) {
        this.reuseAddress = reuseAddress;
        return this;
    }

    /**
     * The interface multicast goes out on and groups are joined on by default.
     *
     * @param multicastInterface the interface, or null for the system's choice
     * @return this
     */
    public UdpOptions multicastInterface(final NetworkInterface multicastInterface) {
        this.multicastInterface = multicastInterface;
        return this;
    }

    /**
     * Time to live of outgoing multicast datagrams (1: this subnet only).
     *
     * @param ttl 0 to 255
     * @return this
     */
    public UdpOptions multicastTtl(final int ttl) {
        if (ttl < 0 || ttl > 255) {
            throw new IllegalArgumentException("multicastTtl=" + ttl);
        }
        this.multicastTtl = ttl;
        return this;
    }

    /**
     * Whether multicast sent from this host is also delivered to listeners on this host.
     *
     * @param loopback true to loop back (the default)
     * @return this
     */
    public UdpOptions multicastLoopback(final boolean loopback) {
        this.multicastLoopback = loopback;
        return this;
    }

    /**
     * SO_RCVBUF; a larger kernel buffer absorbs bursts that would otherwise be dropped.
     *
     * @param bytes 0 for the system default
     * @return this
     */
    public UdpOptions receiveBufferSize(final int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("receiveBufferSize=" + bytes);
        }
        this.receiveBufferSize = bytes;
        return this;
    }

    /**
     * SO_SNDBUF.
     *
     * @param bytes 0 for the system default
     * @return this
     */
    public UdpOptions sendBufferSize(final int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("sendBufferSize=" + bytes);
        }
        this.sendBufferSize = bytes;
        return this;
    }

    /**
     * Size of the endpoint's receive and send buffers: the longest datagram it can send, and the
     * longest it receives whole (a longer one is counted as truncated and dropped).
     *
     * @param bytes 64 to 65 536
     * @return this
     */
    public UdpOptions datagramBuffer(final int bytes) {
        if (bytes < 64 || bytes > MAX_DATAGRAM_BUFFER) {
            throw new IllegalArgumentException("datagramBuffer=" + bytes + " must be in [64, " + MAX_DATAGRAM_BUFFER + "]");
        }
        this.datagramBuffer = bytes;
        return this;
    }

    /**
     * Most datagrams received in one cycle, so one busy socket does not starve the others (64 unless set).
     *
     * <p>A receive reads until the socket is empty or the batch is done, so a read that finds a datagram is
     * followed by one more that finds none before {@link UdpEndpoint#receive} returns: a handler sees each datagram
     * as soon as it is read, but the caller's code after {@code receive} runs one system call later. A thread that
     * does nothing but poll one endpoint with one datagram in flight (a ping-pong, a request awaiting its answer)
     * sets 1: each poll is then one {@code recv(2)}, as a C loop's is. A reactor serving many sockets, or a stream,
     * keeps a batch.
     *
     * @param datagrams at least 1
     * @return this
     */
    public UdpOptions receiveBatch(final int datagrams) {
        if (datagrams < 1) {
            throw new IllegalArgumentException("receiveBatch=" + datagrams);
        }
        this.receiveBatch = datagrams;
        return this;
    }

    /**
     * Whether the reactor tries a receive every cycle (lowest latency with a busy-spinning reactor: no
     * readiness system call in between) rather than waiting for the selector to report readiness.
     *
     * @param busyPoll true to poll every cycle
     * @return this
     */
    public UdpOptions busyPoll(final boolean busyPoll) {
        this.busyPoll = busyPoll;
        return this;
    }

    /**
     * The cheapest path for a connected endpoint: receive with {@code read(2)} instead of
     * {@code recvfrom(2)}, so no source address is fetched, compared or decoded; the sender handed to the
     * {@link DatagramHandler} is the connected {@link #remoteAddress} itself (the kernel already drops
     * datagrams from anyone else). Sends to that address, or to null, go out with {@code write(2)}. This
     * is the system-call sequence of a C program polling a connected non-blocking socket with
     * {@code recv}/{@code send}; combine with {@link #busyPoll} and a busy-spinning reactor (or a thread
     * calling {@link UdpEndpoint#receive} itself) for the lowest latency.
     *
     * <p>Needs a {@link #remoteAddress} ({@link UdpEndpoint#open} rejects it otherwise). A zero-length
     * datagram reads as "nothing there" and is consumed without reaching the handler.
     *
     * @param connectedReadWrite true to read and write the connected socket
     * @return this
     */
    public UdpOptions connectedReadWrite(final boolean connectedReadWrite) {
        this.connectedReadWrite = connectedReadWrite;
        return this;
    }

    /**
     * Drives the socket of a {@link #busyPoll} + {@link #connectedReadWrite} endpoint with the C library's
     * {@code recv(2)}/{@code send(2)} called through the FFM API as critical downcalls, instead of the JDK's
     * {@link java.nio.channels.DatagramChannel}, whose read and write paths (locks, state checks, the
     * {@code NativeThread} bookkeeping that makes a blocked read interruptible) cost a small round trip
     * most of a microsecond on top of the system calls. The socket is opened with {@code socket(2)}
     * ({@code SOCK_NONBLOCK | SOCK_CLOEXEC}), given SO_REUSEADDR, SO_RCVBUF, SO_SNDBUF and the multicast TTL
     * and loopback as these options say, bound, connected, and closed with {@code close(2)} exactly once.
     *
     * <p>Receiving passes {@code MSG_TRUNC}, so a datagram longer than {@link #datagramBuffer} is known
     * exactly: it is dropped and counted as truncated, while one of exactly {@code datagramBuffer} bytes
     * arrives whole (the JDK path cannot tell the two apart and drops both). Everything else is as on the
     * JDK path: a full send buffer is {@link dev.peregrine.channel.SendResult#BACK_PRESSURED}, a peer's closed
     * port {@link dev.peregrine.channel.SendResult#NOT_CONNECTED}, the counters, the handler rules and the
     * truncation event are the same.
     *
     * <p>Off by default because it takes what the JDK path does not: native access
     * ({@code --enable-native-access=dev.peregrine.core}, or {@code ALL-UNNAMED} on the class path), IPv4 only
     * (an IPv6 address is rejected by {@link UdpEndpoint#open} with an {@link IllegalArgumentException}), no
     * {@link #multicastInterface}, and {@link UdpEndpoint#channel()} is then null (no other JDK socket option
     * can be set, no group joined). Honoured only for {@link #busyPoll} + {@link #connectedReadWrite}
     * endpoints on Linux (x86_64, aarch64) with native access; elsewhere the endpoint uses the
     * {@code DatagramChannel} and {@link UdpEndpoint#nativeSocketUnavailableReason()} says why
     * ({@link UdpEndpoint#isNativeSocket()} tells which path an endpoint took).
     *
     * @param nativeSocket true to use the native socket where it is available
     * @return this
     */
    public UdpOptions nativeSocket(final boolean nativeSocket) {
        this.nativeSocket = nativeSocket;
        return this;
    }

    /**
     * Lets the kernel hand a {@link #nativeSocket native} endpoint several datagrams of its peer in one read
     * (UDP generic receive offload, {@code UDP_GRO}, Linux 5.0+): on loopback, a burst sent with segmentation
     * offload ({@link UdpEndpoint#sendSegmented}) arrives as one read instead of one per datagram, and the
     * endpoint hands its datagrams to the handler one by one, each exactly as sent. Needs the full
     * {@link #datagramBuffer} (65536 bytes, the most a coalesced read holds; {@link UdpEndpoint#open} rejects less).
     * Ignored where the native socket does not apply; a kernel that refuses the option leaves the endpoint
     * reading one datagram per call ({@link UdpEndpoint#receiveOffloadUnavailableReason()} says why).
     *
     * @param receiveOffload true to accept coalesced reads
     * @return this
     */
    public UdpOptions receiveOffload(final boolean receiveOffload) {
        this.receiveOffload = receiveOffload;
        return this;
    }

    boolean receiveOffload() {
        return receiveOffload;
    }

    InetSocketAddress localAddress() {
        return bindAddress(null);
    }

    /**
     * The address to bind: the one set, else the wildcard of the family of the address the socket talks to (the
     * {@link #remoteAddress}, or {@code peer} for an unconnected socket).
     *
     * @param peer the address an unconnected socket talks to, or null for none known
     * @return the local address
     */
    InetSocketAddress bindAddress(final InetAddress peer) {
        if (localAddress != null) {
            return localAddress;
        }
        final InetAddress talksTo = remoteAddress != null ? remoteAddress.getAddress() : peer;
        return talksTo instanceof Inet6Address ? IPV6_ANY : IPV4_ANY;
    }

    InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    boolean reuseAddress() {
        return reuseAddress;
    }

    NetworkInterface multicastInterface() {
        return multicastInterface;
    }

    int multicastTtl() {
        return multicastTtl;
    }

    boolean multicastLoopback() {
        return multicastLoopback;
    }

    int receiveBufferSize() {
        return receiveBufferSize;
    }

    int sendBufferSize() {
        return sendBufferSize;
    }

    int datagramBuffer() {
        return datagramBuffer;
    }

    int receiveBatch() {
        return receiveBatch;
    }

    boolean busyPoll() {
        return busyPoll;
    }

    boolean connectedReadWrite() {
        return connectedReadWrite;
    }

    boolean nativeSocket() {
        return nativeSocket;
    }

    boolean ipv6(final InetAddress peer) {
        return bindAddress(peer).getAddress() instanceof Inet6Address
            || remoteAddress != null && remoteAddress.getAddress() instanceof Inet6Address;
    }

    private static InetAddress ipv6Wildcard() {
        try {
            return InetAddress.getByAddress(new byte[16]);
        } catch (final UnknownHostException ex) {
            throw new IllegalStateException("16 bytes are an IPv6 address", ex);
        }
    }
}
