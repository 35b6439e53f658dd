package dev.peregrine.udp;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.internal.jfr.FrameRejectedEvent;
import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.SelectHandler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.SelectionKey;

/**
 * One UDP socket on a {@link Reactor}: unicast or multicast, connected or not.
 *
 * <p>Receiving allocates nothing: datagrams land in one direct buffer and are handed to the
 * {@link DatagramHandler} as a {@link MemorySegment} view; the sender is the {@link InetSocketAddress}
 * the JDK returns, which it creates only when the sender differs from the previous one. Each cycle
 * drains up to {@link UdpOptions#receiveBatch} datagrams, so a burst costs one readiness event. With
 * {@link UdpOptions#busyPoll} the endpoint is polled every cycle instead of waiting for the selector.
 * With {@link UdpOptions#connectedReadWrite} a connected endpoint reads and writes its socket like a C
 * program with {@code recv}/{@code send}: no source address per datagram, the sender is the peer. With
 * {@link UdpOptions#nativeSocket} as well, {@code recv}/{@code send} are called through the FFM API rather than
 * through the {@link DatagramChannel} (Linux, native access; see {@link #isNativeSocket()}).
 *
 * <p>Sending copies the message into a direct buffer and writes it in one system call; a full socket
 * buffer is reported as {@link SendResult#BACK_PRESSURED}, nothing is queued.
 *
 * <p>A handler that throws closes this endpoint only: its socket is released at once, no datagram is handed on
 * after the failing one (not even the rest of the batch already read), the failure is counted
 * ({@link #handlerFailures()}) and reported to the reactor's {@link ErrorHandler}, {@link #closeReason()} and
 * {@link #closeDetail()} say why, and {@link DatagramHandler#onClosed} follows. Every other endpoint on the
 * reactor goes on. The exception never reaches the reactor's loop.
 *
 * <p>Not thread-safe: one reactor thread owns an endpoint.
 */
public final class UdpEndpoint implements Pollable, SelectHandler, AutoCloseable {
    /** The longest UDP payload over IPv4: 65 535 bytes less the IP and UDP headers (20 and 8). */
    static final int MAX_UDP_PAYLOAD_IPV4 = 65_507;
    /** The longest UDP payload over IPv6 without jumbograms: 65 535 bytes less the UDP header. */
    static final int MAX_UDP_PAYLOAD_IPV6 = 65_527;

    private final DatagramChannel channel;
    private final UdpNativeSocket socket;
    private final DatagramHandler handler;
    private final ErrorHandler errorHandler;
    private final InetSocketAddress remoteAddress;
    private final NetworkInterface multicastInterface;
    private final ByteBuffer receiveBuffer;
    private final ByteBuffer sendBuffer;
    private final MemorySegment sendSegment;
    /** The longest datagram a send may carry: the send buffer, and UDP's own limit for the socket's family. */
    private final int maxSendLength;
    /** The datapath on the native socket, or null on a DatagramChannel. */
    private final UdpNativePath nativePath;
    /** The datapath on the DatagramChannel, or null on a native socket. */
    private final UdpChannelPath channelPath;
    private final UdpSegmentedSender segmented;
    private final boolean busyPoll;
    private final InetSocketAddress localAddress;
    private Reactor reactor;
    private final Runnable releaseCounters = this::closeCounters;
    private SelectionKey key;
    private final Counter datagramsReceived;
    private final Counter datagramsSent;
    private final Counter drops;
    private final Counter truncated;
    private long receiveErrors;
    private long sendErrors;
    private long portUnreachable;
    private long handlerFailures;
    private boolean closed;
    private CloseReason closeReason;
    private String closeDetail;

    UdpEndpoint(final DatagramChannel channel, final UdpNativeSocket socket, final UdpOptions options,
        final DatagramHandler handler, final ErrorHandler errorHandler, final CountersManager counters) throws IOException {
        this.channel = channel;
        this.socket = socket;
        this.handler = handler;
        this.errorHandler = errorHandler;
        this.remoteAddress = options.remoteAddress();
        this.multicastInterface = options.multicastInterface();
        this.receiveBuffer = ByteBuffer.allocateDirect(options.datagramBuffer());
        final MemorySegment receiveSegment = MemorySegment.ofBuffer(receiveBuffer);
        this.sendBuffer = ByteBuffer.allocateDirect(options.datagramBuffer());
        this.sendSegment = MemorySegment.ofBuffer(sendBuffer);
        final int receiveBatch = options.receiveBatch();
        this.busyPoll = options.busyPoll();
        this.localAddress = socket != null ? socket.localAddress() : (InetSocketAddress)channel.getLocalAddress();
        this.maxSendLength = Math.min(sendBuffer.capacity(),
            localAddress.getAddress() instanceof Inet6Address ? MAX_UDP_PAYLOAD_IPV6 : MAX_UDP_PAYLOAD_IPV4);
        final String label = "udp=" + localAddress + (remoteAddress == null ? "" : " remote=" + remoteAddress);
        this.datagramsReceived = counters.allocate(CounterTypes.UDP_DATAGRAMS_IN, label);
        this.datagramsSent = counters.allocate(CounterTypes.UDP_DATAGRAMS_OUT, label);
        this.drops = counters.allocate(CounterTypes.UDP_DROPS, label);
        this.truncated = counters.allocate(CounterTypes.UDP_TRUNCATED, label);
        this.nativePath = socket == null ? null : new UdpNativePath(this, socket, handler, remoteAddress, receiveSegment,
            sendSegment, receiveBatch, datagramsReceived, datagramsSent, drops);
        this.channelPath = channel == null ? null : new UdpChannelPath(this, channel, handler, remoteAddress,
            receiveBuffer, receiveSegment, sendBuffer, receiveBatch, options.connectedReadWrite(), datagramsReceived, datagramsSent,
            drops);
        this.segmented = new UdpSegmentedSender(this, nativePath, socket, sendSegment, remoteAddress, maxSendLength,
            datagramsSent, drops);
    }

    /**
     * Opens and binds (and connects, if asked) a socket, and attaches it to a reactor.
     *
     * @param reactor the reactor that will drive it; call from its thread (or before it starts)
     * @param options the socket's settings
     * @param handler receives datagrams
     * @return the endpoint
     * @throws UncheckedIOException if the socket cannot be opened, bound or connected (the address is named)
     * @throws IllegalArgumentException if an address is IPv6 while {@link UdpOptions#nativeSocket} applies
     */
    public static UdpEndpoint open(final Reactor reactor, final UdpOptions options, final DatagramHandler handler) {
        return open(reactor, options, null, handler);
    }

    /**
     * Opens and binds (and connects, if asked) a socket that talks to {@code peer}, and attaches it to a reactor.
     * The peer only picks the family of the default local address ({@link UdpOptions#localAddress(InetSocketAddress)}) of a socket
     * without a {@link UdpOptions#remoteAddress}: an unconnected sender to an IPv6 destination binds {@code ::}.
     *
     * @param reactor the reactor that will drive it; call from its thread (or before it starts)
     * @param options the socket's settings
     * @param peer the address the socket sends to or hears from, or null for none known
     * @param handler receives datagrams
     * @return the endpoint
     * @throws UncheckedIOException if the socket cannot be opened, bound or connected (the address is named)
     * @throws IllegalArgumentException if an address is IPv6 while {@link UdpOptions#nativeSocket} applies
     */
    public static UdpEndpoint open(final Reactor reactor, final UdpOptions options, final InetAddress peer,
        final DatagramHandler handler) {
        return UdpEndpointOpener.open(reactor, options, peer, handler);
    }

    /**
     * Why {@link UdpOptions#nativeSocket} cannot be honoured in this process (decided once, when first asked).
     *
     * @return null where it can (Linux x86_64 or aarch64 with native access), otherwise the reason in one sentence
     */
    public static String nativeSocketUnavailableReason() {
        return UdpNativeSocket.unavailableReason();
    }

    /**
     * Whether this endpoint's socket is driven with {@code recv}/{@code send} through the FFM API
     * ({@link UdpOptions#nativeSocket} honoured) rather than through a {@link DatagramChannel}.
     *
     * @return true for the native socket
     */
    public boolean isNativeSocket() {
        return socket != null;
    }

    /** Joins the reactor: polled every cycle with {@link UdpOptions#busyPoll}, else selected for reading. */
    void attach(final Reactor reactor) {
        this.reactor = reactor;
        if (busyPoll) {
            reactor.add(this);
        } else {
            key = reactor.register(channel, SelectionKey.OP_READ, this);
        }
        reactor.addReleaseHook(releaseCounters); // a reactor closed first still gets the slots back
    }

    /**
     * Joins a multicast group on an interface; datagrams sent to the group and this socket's port arrive.
     *
     * @param group a multicast address
     * @param networkInterface where to join; null for the configured {@link UdpOptions#multicastInterface}
     * @return the membership, which {@link #leave} drops
     * @throws UncheckedIOException naming the group and interface if the join fails
     */
    public MembershipKey join(final InetAddress group, final NetworkInterface networkInterface) {
        final NetworkInterface nif = networkInterface != null ? networkInterface : multicastInterface;
        if (channel == null) {
            throw new IllegalStateException("nativeSocket=true: a native connected endpoint joins no group");
        }
        if (group == null || !group.isMulticastAddress() || nif == null) {
            throw new IllegalArgumentException("group=" + group + " networkInterface=" + nif);
        }
        try {
            return channel.join(group, nif);
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot join group=" + group + " on " + nif.getName() + ": " + ex.getMessage()
                + (nif.isVirtual() ? "" : " (does the interface have the MULTICAST flag? ip link set " + nif.getName()
                + " multicast on)"), ex);
        }
    }

    /**
     * Leaves a group joined with {@link #join}.
     *
     * @param membership the membership
     */
    public void leave(final MembershipKey membership) {
        membership.drop();
    }

    /**
     * Sends a datagram to the connected peer.
     *
     * @param buffer memory holding the datagram
     * @param offset where it starts
     * @param length its length, at least 1 (the JDK cannot send an empty datagram)
     * @return the bytes sent, or {@link SendResult#BACK_PRESSURED}, {@link SendResult#NOT_CONNECTED}
     *     (not connected, or the peer's port is unreachable), {@link SendResult#CLOSED},
     *     {@link SendResult#MESSAGE_TOO_LARGE} (longer than {@link #maxDatagramLength()} or than UDP carries:
     *     {@value #MAX_UDP_PAYLOAD_IPV4} bytes over IPv4, {@value #MAX_UDP_PAYLOAD_IPV6} over IPv6)
     */
    public long send(final MemorySegment buffer, final long offset, final int length) {
        if (remoteAddress == null) {
            return SendResult.NOT_CONNECTED;
        }
        return sendTo(buffer, offset, length, null);
    }

    /**
     * Sends a datagram to an address (or to the connected peer when {@code target} is null).
     *
     * @param buffer memory holding the datagram
     * @param offset where it starts
     * @param length its length
     * @param target where to send it
     * @return the bytes sent, or a negative {@link SendResult} code as for {@link #send}
     */
    public long sendTo(final MemorySegment buffer, final long offset, final int length, final InetSocketAddress target) {
        if (length < 0 || length > maxSendLength) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        if (target == null && remoteAddress == null) {
            return SendResult.NOT_CONNECTED;
        }
        MemorySegment.copy(buffer, offset, sendSegment, 0, length);
        return writeAt(0, length, target);
    }

    /**
     * Where to write a datagram in place for {@link #sendPrepared}, avoiding a copy.
     *
     * @return the endpoint's send buffer, {@link #maxDatagramLength()} bytes
     */
    public MemorySegment sendBuffer() {
        return sendSegment;
    }

    /**
     * Sends the first {@code length} bytes of {@link #sendBuffer()}.
     *
     * @param length the datagram's length
     * @param target where to send it, or null for the connected peer
     * @return the bytes sent, or a negative {@link SendResult} code as for {@link #send}
     */
    public long sendPrepared(final int length, final InetSocketAddress target) {
        if (length < 0 || length > maxSendLength) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        if (target == null && remoteAddress == null) {
            return SendResult.NOT_CONNECTED;
        }
        return writeAt(0, length, target);
    }

    /**
     * The most datagrams one {@link #sendSegmented} carries.
     */
    public static final int MAX_SEGMENTS = UdpNativeSocket.MAX_SEGMENTS;

    /**
     * Sends the first {@code length} bytes of {@link #sendBuffer()} as consecutive datagrams of
     * {@code segmentLength} bytes each, the last one possibly shorter: one {@code sendmsg(2)} with UDP
     * segmentation offload ({@code UDP_SEGMENT}; two for a burst longer than one UDP datagram carries) where {@link #segmentationUnavailableReason()} is null, one
     * system call per datagram otherwise. The receiver sees ordinary datagrams either way; the kernel cuts them, so
     * that a burst pays for one pass through the stack rather than one per datagram.
     *
     * <p>A kernel that refuses a segmented send with {@code EINVAL}, {@code EIO} or {@code ENOPROTOOPT} is
     * taken at its word: this and every later burst goes one datagram per call, and
     * {@link #segmentationUnavailableReason()} says why.
     *
     * @param length the bytes of the burst, at most {@link #maxDatagramLength()}
     * @param segmentLength the length of each datagram, 1 or more
     * @param target where to send it, or null for the connected peer
     * @return the datagrams sent, from the first (fewer than the burst holds, possibly 0, when the socket's buffer
     *     is full: the rest are counted as drops and not sent), or a negative {@link SendResult} code as for
     *     {@link #send} (MESSAGE_TOO_LARGE when a datagram is longer than UDP carries, NOT_CONNECTED without a
     *     target or a connected peer)
     * @throws IllegalArgumentException if the lengths are out of range or the burst holds more than
     *     {@link #MAX_SEGMENTS} datagrams
     */
    public int sendSegmented(final int length, final int segmentLength, final InetSocketAddress target) {
        if (length <= 0 || length > sendBuffer.capacity() || segmentLength <= 0 || segmentLength > 0xFFFF) {
            throw new IllegalArgumentException("length=" + length + " segmentLength=" + segmentLength
                + " (the buffer holds " + sendBuffer.capacity() + ")");
        }
        final int segments = (length + segmentLength - 1) / segmentLength;
        if (segments > MAX_SEGMENTS) {
            throw new IllegalArgumentException("length=" + length + " segmentLength=" + segmentLength + " makes "
                + segments + " datagrams, more than " + MAX_SEGMENTS);
        }
        if (Math.min(segmentLength, length) > maxSendLength) {
            return (int)SendResult.MESSAGE_TOO_LARGE;
        }
        if (target == null && remoteAddress == null) {
            return (int)SendResult.NOT_CONNECTED;
        }
        if (segments == 1) {
            final long sent = sendPrepared(length, target);
            return sent >= 0 ? 1 : sent == SendResult.BACK_PRESSURED ? 0 : (int)sent;
        }
        return segmented.send(length, segmentLength, segments, target);
    }

    /**
     * One datagram of the send buffer, from {@code offset}, on whichever path this endpoint has.
     *
     * @return the bytes sent, or a negative {@link SendResult} code as for {@link #send}
     */
    long writeAt(final int offset, final int length, final InetSocketAddress target) {
        return nativePath != null ? nativePath.write(offset, length, target) : channelPath.write(offset, length, target);
    }

    /**
     * Why this endpoint reads one datagram per call although {@link UdpOptions#receiveOffload} was asked for.
     *
     * @return null when coalesced reads are on, else the reason (not asked for, not a native socket, refused)
     */
    public String receiveOffloadUnavailableReason() {
        if (socket == null) {
            return "receive offload " + withoutNativeSocket();
        }
        return socket.receiveOffloadRefused();
    }

    /** Why an offload is off on a DatagramChannel endpoint: the native socket is missing, and why it is. */
    private static String withoutNativeSocket() {
        final String reason = UdpNativeSocket.unavailableReason();
        return "needs the native socket (UdpOptions.nativeSocket with busyPoll and connectedReadWrite, IPv4, no"
            + " multicast interface): " + (reason != null ? reason : "this endpoint is a DatagramChannel");
    }

    /**
     * Reads that held several datagrams ({@link UdpOptions#receiveOffload}).
     *
     * @return the count
     */
    public long coalescedReads() {
        return nativePath == null ? 0 : nativePath.coalescedReads();
    }

    /**
     * Segmented system calls made by {@link #sendSegmented}: one a burst, two for a burst longer than one UDP
     * datagram carries.
     *
     * @return the count
     */
    public long segmentedSends() {
        return segmented.segmentedSends();
    }

    /**
     * Why {@link #sendSegmented} sends one datagram per system call here.
     *
     * @return null where the kernel cuts a burst into datagrams (a native socket, Linux 4.18+), else the reason
     */
    public String segmentationUnavailableReason() {
        if (socket == null) {
            return "UDP segmentation offload " + withoutNativeSocket();
        }
        return segmented.refused();
    }

    @Override
    public void onSelected(final SelectionKey key, final long nowNs) {
        receive(nowNs);
    }

    @Override
    public int doWork(final long nowNs) {
        return busyPoll ? receive(nowNs) : 0;
    }

    /**
     * Receives and handles up to {@link UdpOptions#receiveBatch} datagrams now; the reactor calls this,
     * a caller driving the endpoint by hand may too.
     *
     * @param nowNs the clock of this cycle
     * @return the number of datagrams handled
     */
    public int receive(final long nowNs) {
        return nativePath != null ? nativePath.receive(nowNs) : channelPath.receive(nowNs);
    }

    /**
     * The kernel cut a datagram to fit: never hand a partial datagram on.
     *
     * @param length the datagram's real length when {@code exact} (native {@code MSG_TRUNC}), else the bytes read
     */
    void truncated(final InetSocketAddress sender, final long length, final boolean exact) {
        truncated.increment();
        if (FrameRejectedEvent.enabled()) {
            FrameRejectedEvent.emit("udp", 0, sender, localAddress, "datagram of " + length + (exact
                ? " bytes exceeded the " + receiveBuffer.capacity() + "-byte receive buffer"
                : " bytes or more filled the whole receive buffer") + " and was dropped as truncated");
        }
    }

    void closeCounters() {
        datagramsReceived.close();
        datagramsSent.close();
        drops.close();
        truncated.close();
    }

    /** An earlier send hit a closed port, as a receive found: the socket itself is fine. */
    void portUnreachableOnReceive() {
        receiveErrors++;
        portUnreachable++;
    }

    /** A send found the peer's port closed: an outcome, not reported. */
    void portUnreachableOnSend() {
        sendErrors++;
        portUnreachable++;
    }

    /** A receive failed other than for an unreachable port: counted and reported. */
    void receiveFailed(final UncheckedIOException ex) {
        receiveErrors++;
        errorHandler.onError(ex);
    }

    /** A send failed other than for back-pressure or an unreachable port: counted and reported. */
    void sendFailed(final UncheckedIOException ex) {
        sendErrors++;
        errorHandler.onError(ex);
    }

    /** The handler threw: count it, close this endpoint with the reason, report it; the reactor goes on. */
    void handlerFailed(final Throwable ex) {
        handlerFailures++;
        final boolean open = !closed;
        try {
            errorHandler.onError(new IllegalStateException("UDP handler failed on " + localAddress
                + (open ? "; the endpoint is closed" : "") + ", the reactor goes on", ex));
        } finally {
            if (open) {
                close(CloseReason.ERROR, "handler failed: " + ex);
            }
        }
    }

    /**
     * The bound address, with the real port.
     *
     * @return the local address
     */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /**
     * The connected peer.
     *
     * @return the peer, or null when not connected
     */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /**
     * Longest datagram this endpoint sends, and longest-but-one it receives (longest, on a
     * {@linkplain #isNativeSocket() native socket}).
     *
     * @return bytes
     */
    public int maxDatagramLength() {
        return sendBuffer.capacity();
    }

    /**
     * The underlying channel, for socket options not covered by {@link UdpOptions}.
     *
     * @return the channel, or null on a {@linkplain #isNativeSocket() native socket}
     */
    public DatagramChannel channel() {
        return channel;
    }

    /**
     * Datagrams received from another sender than the previous datagram on this endpoint. For each one the JDK's
     * {@code DatagramChannel.receive} decoded the source address anew (an {@code InetSocketAddress} and what it
     * holds: objects of the JDK, about 130 bytes), since it keeps only the last one; so an endpoint that hears two
     * peers in turn allocates per change, and this is the count to bound it by. On the native path it stays 0, and
     * with {@link UdpOptions#connectedReadWrite} at most 1 (the connected peer): neither decodes an address.
     *
     * <p>A plain count of the reactor thread: read it there, or after the reactor has stopped.
     *
     * @return the count
     */
    public long senderAddressChanges() {
        return channelPath == null ? 0 : channelPath.senderAddressChanges();
    }

    /**
     * Datagrams handed to the handler.
     *
     * @return the count
     */
    public long datagramsReceived() {
        return datagramsReceived.get();
    }

    /**
     * Datagrams written to the socket.
     *
     * @return the count
     */
    public long datagramsSent() {
        return datagramsSent.get();
    }

    /**
     * Datagrams dropped because they filled the whole receive buffer (and so may have been cut).
     *
     * @return the count
     */
    public long truncated() {
        return truncated.get();
    }

    /**
     * Datagrams not sent because the socket's send buffer was full ({@code BACK_PRESSURED}).
     *
     * @return the count
     */
    public long drops() {
        return drops.get();
    }

    /**
     * Receive failures, including ICMP port-unreachable reports for earlier sends.
     *
     * @return the count
     */
    public long receiveErrors() {
        return receiveErrors;
    }

    /**
     * ICMP port-unreachable reports read on a connected socket: its peer's port was closed when an earlier
     * datagram arrived (nothing listens there). Only a connected socket hears them; each is also counted in
     * {@link #receiveErrors()} or {@link #sendErrors()}, whichever call met it, and none goes to the error handler.
     *
     * @return the count
     */
    public long portUnreachable() {
        return portUnreachable;
    }

    /**
     * Send failures other than back-pressure.
     *
     * @return the count
     */
    public long sendErrors() {
        return sendErrors;
    }

    /**
     * Times the handler threw; each time (the first closed the endpoint) the exception went to the reactor's
     * error handler.
     *
     * @return the count
     */
    public long handlerFailures() {
        return handlerFailures;
    }

    /**
     * Whether the endpoint is closed: by {@link #close()}, or because its handler threw.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Why the endpoint closed: {@link CloseReason#LOCAL} for {@link #close()}, {@link CloseReason#ERROR} when its
     * handler threw.
     *
     * @return the reason, or null while open
     */
    public CloseReason closeReason() {
        return closeReason;
    }

    /**
     * What closed the endpoint, for a person to read: the handler's exception when it threw.
     *
     * @return the detail, or null while open
     */
    public String closeDetail() {
        return closeDetail;
    }

    /**
     * Detaches from the reactor and closes the socket; reactor thread only. Idempotent. The handler's
     * {@link DatagramHandler#onClosed} follows with {@link CloseReason#LOCAL}.
     */
    @Override
    public void close() {
        close(CloseReason.LOCAL, "closed by the application");
    }

    private void close(final CloseReason reason, final String detail) {
        if (closed) {
            return;
        }
        closed = true;
        closeReason = reason;
        closeDetail = detail;
        closeCounters();
        reactor.removeReleaseHook(releaseCounters);
        if (busyPoll) {
            reactor.remove(this);
        } else if (key != null) {
            key.cancel();
        }
        if (socket != null) {
            socket.close();
        } else {
            closeQuietly(channel);
        }
        try {
            handler.onClosed(this, reason, detail);
        } catch (final Throwable ex) {
            handlerFailed(ex); // closed already: counted and reported only
        }
    }

    static void closeQuietly(final DatagramChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // closing a datagram socket has nothing to flush; a failure here leaves nothing to clean up
            }
        }
    }
}
