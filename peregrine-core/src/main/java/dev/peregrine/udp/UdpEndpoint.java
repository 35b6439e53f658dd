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
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
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
    private final MemorySegment receiveSegment;
    private final ByteBuffer sendBuffer;
    private final MemorySegment sendSegment;
    private final int receiveBatch;
    /** The longest datagram a send may carry: the send buffer, and UDP's own limit for the socket's family. */
    private final int maxSendLength;
    /** Coalesced reads are on: each read is split into the datagrams it holds. */
    private final boolean coalesced;
    private final boolean busyPoll;
    private final boolean connectedReadWrite;
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
    private String segmentationRefused;
    private long segmentedSends;
    private long coalescedReads;
    private boolean closed;
    private CloseReason closeReason;
    private String closeDetail;

    private UdpEndpoint(final DatagramChannel channel, final UdpNativeSocket socket, final UdpOptions options,
        final DatagramHandler handler, final ErrorHandler errorHandler, final CountersManager counters) throws IOException {
        this.channel = channel;
        this.socket = socket;
        this.handler = handler;
        this.errorHandler = errorHandler;
        this.remoteAddress = options.remoteAddress();
        this.multicastInterface = options.multicastInterface();
        this.receiveBuffer = ByteBuffer.allocateDirect(options.datagramBuffer());
        this.receiveSegment = MemorySegment.ofBuffer(receiveBuffer);
        this.sendBuffer = ByteBuffer.allocateDirect(options.datagramBuffer());
        this.sendSegment = MemorySegment.ofBuffer(sendBuffer);
        this.receiveBatch = options.receiveBatch();
        this.coalesced = socket != null && socket.receiveOffloadRefused() == null;
        this.busyPoll = options.busyPoll();
        this.connectedReadWrite = options.connectedReadWrite();
        this.localAddress = socket != null ? socket.localAddress() : (InetSocketAddress)channel.getLocalAddress();
        this.maxSendLength = Math.min(sendBuffer.capacity(),
            localAddress.getAddress() instanceof Inet6Address ? MAX_UDP_PAYLOAD_IPV6 : MAX_UDP_PAYLOAD_IPV4);
        final String label = "udp=" + localAddress + (remoteAddress == null ? "" : " remote=" + remoteAddress);
        this.datagramsReceived = counters.allocate(CounterTypes.UDP_DATAGRAMS_IN, label);
        this.datagramsSent = counters.allocate(CounterTypes.UDP_DATAGRAMS_OUT, label);
        this.drops = counters.allocate(CounterTypes.UDP_DROPS, label);
        this.truncated = counters.allocate(CounterTypes.UDP_TRUNCATED, label);
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
        if (reactor == null || options == null || handler == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " options=" + options + " handler=" + handler);
        }
        if (options.receiveOffload() && options.datagramBuffer() < UdpOptions.MAX_DATAGRAM_BUFFER) {
            throw new IllegalArgumentException("receiveOffload=true datagramBuffer=" + options.datagramBuffer()
                + ": a coalesced read needs the full " + UdpOptions.MAX_DATAGRAM_BUFFER + " bytes");
        }
        if (options.connectedReadWrite() && options.remoteAddress() == null) {
            throw new IllegalArgumentException("connectedReadWrite=true remoteAddress=null: reading a socket needs a connected peer");
        }
        final InetSocketAddress localAddress = options.bindAddress(peer);
        final boolean nativeSocket = options.nativeSocket() && options.busyPoll() && options.connectedReadWrite();
        if (nativeSocket && (options.remoteAddress().getAddress() instanceof Inet6Address
            || localAddress.getAddress() instanceof Inet6Address && !localAddress.getAddress().isAnyLocalAddress())) {
            throw new IllegalArgumentException("nativeSocket=true local=" + localAddress + " remote="
                + options.remoteAddress() + ": the native UDP socket is IPv4 only");
        }
        if (nativeSocket && options.multicastInterface() == null && UdpNativeSocket.unavailableReason() == null) {
            return openNative(reactor, options, handler);
        }
        DatagramChannel channel = null;
        UdpEndpoint endpoint = null;
        try {
            channel = DatagramChannel.open(options.ipv6(peer) ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, options.reuseAddress());
            if (options.receiveBufferSize() > 0) {
                channel.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
            }
            if (options.sendBufferSize() > 0) {
                channel.setOption(StandardSocketOptions.SO_SNDBUF, options.sendBufferSize());
            }
            if (options.multicastInterface() != null) {
                channel.setOption(StandardSocketOptions.IP_MULTICAST_IF, options.multicastInterface());
            }
            channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, options.multicastTtl());
            channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, options.multicastLoopback());
            channel.bind(localAddress);
            if (options.remoteAddress() != null) {
                channel.connect(options.remoteAddress());
            }
            endpoint = new UdpEndpoint(channel, null, options, handler, reactor.errorHandler(), reactor.counters());
            endpoint.attach(reactor);
            return endpoint;
        } catch (final IOException ex) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot open UDP socket local=" + localAddress
                + " remote=" + options.remoteAddress() + ": " + ex.getMessage(), ex);
        } catch (final RuntimeException ex) {
            closeQuietly(channel);
            if (endpoint != null) {
                endpoint.closeCounters(); // made, then not attached (a closed reactor): its slots go back
            }
            throw ex;
        }
    }

    private static UdpEndpoint openNative(final Reactor reactor, final UdpOptions options, final DatagramHandler handler) {
        UdpNativeSocket socket = null;
        UdpEndpoint endpoint = null;
        try {
            socket = UdpNativeSocket.open(options);
            endpoint = new UdpEndpoint(null, socket, options, handler, reactor.errorHandler(), reactor.counters());
            endpoint.attach(reactor);
            return endpoint;
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot open UDP socket local=" + options.localAddress()
                + " remote=" + options.remoteAddress() + ": " + ex.getMessage(), ex); // open() closed what it opened
        } catch (final RuntimeException | Error ex) {
            // an Error too: the buffers are made after the socket (OutOfMemoryError when direct memory is short), and
            // a raw descriptor, unlike a DatagramChannel, has no cleaner to close it later
            if (socket != null) {
                socket.close();
            }
            if (endpoint != null) {
                endpoint.closeCounters(); // made, then not attached (a closed reactor): its slots go back
            }
            throw ex;
        }
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

    private void attach(final Reactor reactor) {
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
        if (socket != null) {
            return writeNative(0, length, target);
        }
        sendBuffer.clear().limit(length);
        return write(sendBuffer, target);
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
        if (socket != null) {
            return writeNative(0, length, target);
        }
        sendBuffer.clear().limit(length);
        return write(sendBuffer, target);
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
        if (socket == null || segmentationRefused != null) {
            return sendOneByOne(0, length, segmentLength, target);
        }
        if (closed) {
            return (int)SendResult.CLOSED;
        }
        if (target != null && target != remoteAddress && !target.equals(remoteAddress)) {
            throw new AlreadyConnectedException();
        }
        // the kernel holds a segmented send's total to what one UDP datagram carries (65 507 bytes over IPv4) and
        // answers EMSGSIZE beyond it, though every datagram is short: a longer burst leaves in several sends, each
        // a whole number of datagrams (segmentLength <= maxSendLength here, so each holds one at least)
        final int chunk = maxSendLength / segmentLength * segmentLength;
        int sent = 0;
        for (int offset = 0; offset < length; offset += chunk) {
            final int bytes = Math.min(chunk, length - offset);
            final long result = socket.sendMessage(sendSegment, offset, bytes, segmentLength);
            if (result >= 0) {
                final int datagrams = (bytes + segmentLength - 1) / segmentLength;
                segmentedSends++;
                datagramsSent.add(datagrams);
                sent += datagrams;
                continue;
            }
            if (result == -UdpNativeSocket.EAGAIN) {
                drops.add(segments - sent);
                return sent;
            }
            if (result == -UdpNativeSocket.EINVAL || result == -UdpNativeSocket.EIO
                || result == -UdpNativeSocket.ENOPROTOOPT) {
                segmentationRefused = "the kernel refused a segmented send (UDP_SEGMENT): "
                    + UdpNativeSocket.describe((int)-result);
                final int rest = sendOneByOne(offset, length, segmentLength, target);
                return rest >= 0 ? sent + rest : sent > 0 ? sent : rest;
            }
            final int failed = (int)nativeSendFailed(result);
            return sent > 0 ? sent : failed;
        }
        return sent;
    }

    /** The datagrams of a burst from {@code from}, one system call each: the fallback of {@link #sendSegmented}. */
    private int sendOneByOne(final int from, final int length, final int segmentLength, final InetSocketAddress target) {
        int sent = 0;
        for (int offset = from; offset < length; offset += segmentLength) {
            final int datagram = Math.min(segmentLength, length - offset);
            final long result;
            if (socket != null) {
                result = writeNative(offset, datagram, target);
            } else {
                sendBuffer.clear().limit(offset + datagram).position(offset);
                result = write(sendBuffer, target);
            }
            if (result == SendResult.BACK_PRESSURED) { // this one is counted as a drop; the rest are not sent either
                drops.add((length - offset - datagram + segmentLength - 1) / segmentLength);
                return sent;
            }
            if (result < 0) {
                return sent > 0 ? sent : (int)result;
            }
            sent++;
        }
        return sent;
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
        return coalescedReads;
    }

    /**
     * Segmented system calls made by {@link #sendSegmented}: one a burst, two for a burst longer than one UDP
     * datagram carries.
     *
     * @return the count
     */
    public long segmentedSends() {
        return segmentedSends;
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
        return segmentationRefused;
    }

    private long write(final ByteBuffer datagram, final InetSocketAddress target) {
        if (!datagram.hasRemaining()) {
            throw new IllegalArgumentException("length=0: the JDK's DatagramChannel never sends an empty datagram");
        }
        if (closed) {
            return SendResult.CLOSED;
        }
        try {
            // the connected peer itself (same object) needs no address encoding: write(2) rather than sendto(2)
            final int sent = target == null || target == remoteAddress ? channel.write(datagram) : channel.send(datagram, target);
            if (sent == 0) {
                drops.increment();
                return SendResult.BACK_PRESSURED;
            }
            datagramsSent.increment();
            return sent;
        } catch (final PortUnreachableException ex) {
            sendErrors++;
            portUnreachable++;
            return SendResult.NOT_CONNECTED;
        } catch (final ClosedChannelException ex) {
            return SendResult.CLOSED;
        } catch (final IOException ex) {
            sendErrors++;
            errorHandler.onError(new UncheckedIOException("UDP send from " + localAddress + " to "
                + (target == null ? remoteAddress : target) + " failed: " + ex.getMessage(), ex));
            return SendResult.NOT_CONNECTED;
        }
    }

    /** {@link #write} on the native socket: the same outcomes for the same conditions. */
    private long writeNative(final int offset, final int length, final InetSocketAddress target) {
        if (length == 0) {
            throw new IllegalArgumentException("length=0: an empty datagram is never sent (the JDK's DatagramChannel"
                + " cannot, and a connected endpoint reads one as nothing)");
        }
        if (closed) {
            return SendResult.CLOSED;
        }
        if (target != null && target != remoteAddress && !target.equals(remoteAddress)) {
            throw new AlreadyConnectedException(); // what DatagramChannel.send does to a connected channel
        }
        // send(2) for the usual datagram at the buffer's start; sendmsg(2), which takes an address, for one inside
        final long sent = offset == 0 ? socket.send(sendSegment, length) : socket.sendMessage(sendSegment, offset, length, 0);
        if (sent >= 0) {
            datagramsSent.increment();
            return sent;
        }
        if (sent == -UdpNativeSocket.EAGAIN) {
            drops.increment();
            return SendResult.BACK_PRESSURED;
        }
        return nativeSendFailed(sent);
    }

    /**
     * A native send failed other than for a full buffer: counted, and reported unless the port refused;
     * NOT_CONNECTED, or MESSAGE_TOO_LARGE when the kernel says the datagram is too long for the path.
     */
    private long nativeSendFailed(final long errno) {
        if (errno == -UdpNativeSocket.EMSGSIZE) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        sendErrors++;
        if (errno == -UdpNativeSocket.ECONNREFUSED) { // a refused port is an outcome, as PortUnreachableException is
            portUnreachable++;
        } else {
            final String error = UdpNativeSocket.describe((int)-errno);
            errorHandler.onError(new UncheckedIOException("UDP send from " + localAddress + " to " + remoteAddress
                + " failed: " + error, new IOException(error)));
        }
        return SendResult.NOT_CONNECTED;
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
        if (socket != null) {
            return receiveNative(nowNs);
        }
        int received = 0;
        final ByteBuffer buffer = receiveBuffer;
        while (received < receiveBatch && !closed) {
            buffer.clear();
            final InetSocketAddress sender;
            try {
                sender = connectedReadWrite ? readConnected(buffer) : (InetSocketAddress)channel.receive(buffer);
            } catch (final PortUnreachableException ex) {
                receiveErrors++; // an earlier send hit a closed port; the socket itself is fine
                portUnreachable++;
                continue;
            } catch (final ClosedChannelException ex) {
                return received;
            } catch (final IOException ex) {
                receiveErrors++;
                errorHandler.onError(new UncheckedIOException((connectedReadWrite
                    ? "UDP read on " + localAddress + " from " + remoteAddress
                    : "UDP receive on " + localAddress) + " failed: " + ex.getMessage(), ex));
                return received;
            }
            if (sender == null) {
                break;
            }
            received++;
            final int length = buffer.position();
            if (length == buffer.capacity()) {
                truncated(sender, length, false);
                continue;
            }
            datagramsReceived.increment();
            try {
                handler.onDatagram(this, receiveSegment, 0, length, sender, nowNs);
            } catch (final Throwable ex) {
                handlerFailed(ex); // closes the endpoint: the loop stops here, the rest of the batch is not handed on
            }
        }
        return received;
    }

    /** {@link #receive} on the native socket: {@code recv(MSG_TRUNC)} tells a cut datagram's real length. */
    private int receiveNative(final long nowNs) {
        int received = 0;
        final long capacity = receiveBuffer.capacity();
        while (received < receiveBatch && !closed) {
            final long length = coalesced ? socket.receiveMessage(receiveSegment, capacity)
                : socket.receive(receiveSegment, capacity);
            if (length <= 0) {
                if (length == 0 || length == -UdpNativeSocket.EAGAIN) {
                    break; // nothing queued; an empty datagram is consumed as on the JDK path
                }
                receiveErrors++;
                if (length == -UdpNativeSocket.ECONNREFUSED) {
                    portUnreachable++;
                    continue; // an earlier send hit a closed port; the socket itself is fine
                }
                final String error = UdpNativeSocket.describe((int)-length);
                errorHandler.onError(new UncheckedIOException("UDP read on " + localAddress + " from " + remoteAddress
                    + " failed: " + error, new IOException(error)));
                return received;
            }
            received++;
            if (length > capacity) {
                truncated(remoteAddress, length, true);
                continue;
            }
            final int segment = coalesced ? socket.segmentLength() : 0;
            if (segment > 0 && segment < length) {
                received += handOnCoalesced((int)length, segment, nowNs) - 1;
                continue;
            }
            datagramsReceived.increment();
            try {
                handler.onDatagram(this, receiveSegment, 0, (int)length, remoteAddress, nowNs);
            } catch (final Throwable ex) {
                handlerFailed(ex); // closes the endpoint: the loop stops here, the rest of the batch is not handed on
            }
        }
        return received;
    }

    /**
     * Hands on the datagrams of one coalesced read, each {@code segment} bytes but the last, in order.
     *
     * @return how many were handed on (fewer when a handler threw and closed the endpoint)
     */
    private int handOnCoalesced(final int length, final int segment, final long nowNs) {
        coalescedReads++;
        int handed = 0;
        for (int offset = 0; offset < length && !closed; offset += segment) {
            datagramsReceived.increment();
            handed++;
            try {
                handler.onDatagram(this, receiveSegment, offset, Math.min(segment, length - offset), remoteAddress, nowNs);
            } catch (final Throwable ex) {
                handlerFailed(ex); // closes the endpoint: the rest of the read is not handed on
            }
        }
        return handed;
    }

    /**
     * The kernel cut a datagram to fit: never hand a partial datagram on.
     *
     * @param length the datagram's real length when {@code exact} (native {@code MSG_TRUNC}), else the bytes read
     */
    private void truncated(final InetSocketAddress sender, final long length, final boolean exact) {
        truncated.increment();
        if (FrameRejectedEvent.enabled()) {
            FrameRejectedEvent.emit("udp", 0, sender, localAddress, "datagram of " + length + (exact
                ? " bytes exceeded the " + receiveBuffer.capacity() + "-byte receive buffer"
                : " bytes or more filled the whole receive buffer") + " and was dropped as truncated");
        }
    }

    private void closeCounters() {
        datagramsReceived.close();
        datagramsSent.close();
        drops.close();
        truncated.close();
    }

    /** The handler threw: count it, close this endpoint with the reason, report it; the reactor goes on. */
    private void handlerFailed(final Throwable ex) {
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
     * One read(2) on a connected endpoint with {@link UdpOptions#connectedReadWrite}: no address to fetch.
     *
     * @return the connected peer, or null when nothing is queued (an empty datagram reads the same and is
     *     consumed)
     */
    private InetSocketAddress readConnected(final ByteBuffer buffer) throws IOException {
        return channel.read(buffer) > 0 ? remoteAddress : null;
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

    private static void closeQuietly(final DatagramChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // closing a datagram socket has nothing to flush; a failure here leaves nothing to clean up
            }
        }
    }
}
