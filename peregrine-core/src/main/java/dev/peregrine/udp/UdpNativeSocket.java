package dev.peregrine.udp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * A connected, non-blocking IPv4 UDP socket driven with {@code recv(2)}/{@code send(2)} through the FFM API, as
 * critical downcalls (no thread-state transition): the system calls of {@link UdpOptions#nativeSocket}. The rest of the
 * datapath (counters, handler rules, truncation) is {@link UdpNativePath}'s and {@link UdpEndpoint}'s.
 *
 * <p>Available on Linux x86_64 and aarch64 (whose socket constants are the ones below) when this module has
 * native access; elsewhere {@link #unavailableReason()} says why and {@link UdpEndpoint} uses a
 * {@link java.nio.channels.DatagramChannel}.
 *
 * <p>Not thread-safe: one reactor thread.
 */
@SuppressWarnings("restricted") // native calls are this class's purpose; callers enable native access
final class UdpNativeSocket {
    /** {@code recv}/{@code send} found nothing to read or no room to write: {@code EAGAIN}. */
    static final int EAGAIN = 11;
    /** An ICMP port-unreachable answered an earlier datagram of this connected socket. */
    static final int ECONNREFUSED = 111;
    /** {@code EMSGSIZE}: the datagram is longer than the socket (or the path) can carry. */
    static final int EMSGSIZE = 90;
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_REUSEADDR = 2;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;
    private static final int IPPROTO_IP = 0;
    private static final int IP_MULTICAST_TTL = 33;
    private static final int IP_MULTICAST_LOOP = 34;
    private static final int MSG_TRUNC = 0x20;
    private static final int SOL_UDP = 17;
    private static final int UDP_SEGMENT = 103;
    private static final int UDP_GRO = 104;
    /** {@code EINVAL}: among others, what a kernel without UDP segmentation offload answers to {@code UDP_SEGMENT}. */
    static final int EINVAL = 22;
    /** {@code EIO}: what the kernel answers a segmented send when the device cannot checksum it. */
    static final int EIO = 5;
    /** {@code ENOPROTOOPT}: an unknown socket option or control message. */
    static final int ENOPROTOOPT = 92;
    /**
     * The most datagrams one segmented send may carry: the kernel's {@code UDP_MAX_SEGMENTS} (64 from Linux 4.18
     * on; later kernels allow more, none fewer).
     */
    static final int MAX_SEGMENTS = 64;
    // struct msghdr, struct iovec and one control message holding a uint16_t, as LP64 Linux (x86_64, aarch64) lays
    // them out: msghdr {void *name; socklen_t namelen; struct iovec *iov; size_t iovlen; void *control;
    // size_t controllen; int flags} is 56 bytes; iovec {void *base; size_t len} 16; cmsghdr {size_t len; int level;
    // int type} 16, followed by the data, padded to 8: CMSG_SPACE(2) = 24, CMSG_LEN(2) = 18
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    private static final long MSG_CONTROL = 32;
    private static final long MSG_CONTROLLEN = 40;
    private static final long MSGHDR = 56;
    private static final long IOV_LEN = 8;
    private static final long IOVEC = 16;
    private static final long CMSG_SPACE = 24;
    private static final long CMSG_LEN = 18;
    private static final long CMSG_DATA = 16;
    private static final int SOCKADDR_IN = 16;
    private static final ValueLayout.OfInt BIG_ENDIAN_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BIG_ENDIAN_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private static final MethodHandle SOCKET;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle BIND;
    private static final MethodHandle CONNECT;
    private static final MethodHandle GETSOCKNAME;
    private static final MethodHandle RECV;
    private static final MethodHandle SEND;
    private static final MethodHandle CLOSE;
    private static final MethodHandle STRERROR;
    private static final MethodHandle SENDMSG;
    private static final MethodHandle RECVMSG;
    private static final StructLayout CAPTURE_LAYOUT;
    private static final VarHandle ERRNO;
    private static final String UNAVAILABLE;

    static {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        final MethodHandle[] handles = new MethodHandle[11];
        StructLayout captureLayout = null;
        VarHandle errno = null;
        String unavailable = null;
        if (!os.contains("linux")) {
            unavailable = "the native UDP socket is Linux only, this is " + System.getProperty("os.name");
        } else if (!"amd64".equals(arch) && !"x86_64".equals(arch) && !"aarch64".equals(arch) && !"arm64".equals(arch)) {
            unavailable = "socket constants are not known for os.arch=" + arch + " (known: amd64, aarch64)";
        } else if (!UdpNativeSocket.class.getModule().isNativeAccessEnabled()) {
            unavailable = "native access is not enabled (run with --enable-native-access=dev.peregrine.core,"
                + " or ALL-UNNAMED on the class path)";
        } else {
            try {
                final Linker linker = Linker.nativeLinker();
                final SymbolLookup libc = linker.defaultLookup();
                captureLayout = Linker.Option.captureStateLayout();
                errno = captureLayout.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                final Linker.Option captureErrno = Linker.Option.captureCallState("errno");
                final ValueLayout.OfInt i32 = ValueLayout.JAVA_INT;
                final ValueLayout.OfLong i64 = ValueLayout.JAVA_LONG;
                final ValueLayout address = ValueLayout.ADDRESS;
                handles[0] = handle(linker, libc, "socket", FunctionDescriptor.of(i32, i32, i32, i32), captureErrno);
                handles[1] = handle(linker, libc, "setsockopt", FunctionDescriptor.of(i32, i32, i32, i32, address, i32),
                    captureErrno);
                handles[2] = handle(linker, libc, "bind", FunctionDescriptor.of(i32, i32, address, i32), captureErrno);
                handles[3] = handle(linker, libc, "connect", FunctionDescriptor.of(i32, i32, address, i32), captureErrno);
                handles[4] = handle(linker, libc, "getsockname", FunctionDescriptor.of(i32, i32, address, address),
                    captureErrno);
                // the datapath: critical (no safepoint transition; the buffers are native, never heap arrays)
                handles[5] = handle(linker, libc, "recv", FunctionDescriptor.of(i64, i32, address, i64, i32), captureErrno,
                    Linker.Option.critical(false));
                handles[6] = handle(linker, libc, "send", FunctionDescriptor.of(i64, i32, address, i64, i32), captureErrno,
                    Linker.Option.critical(false));
                handles[9] = handle(linker, libc, "sendmsg", FunctionDescriptor.of(i64, i32, address, i32), captureErrno,
                    Linker.Option.critical(false));
                handles[10] = handle(linker, libc, "recvmsg", FunctionDescriptor.of(i64, i32, address, i32), captureErrno,
                    Linker.Option.critical(false));
                handles[7] = handle(linker, libc, "close", FunctionDescriptor.of(i32, i32));
                handles[8] = handle(linker, libc, "strerror", FunctionDescriptor.of(address, i32));
            } catch (final RuntimeException ex) {
                unavailable = "FFM downcalls unavailable: " + ex.getMessage();
            }
        }
        final boolean ok = unavailable == null;
        SOCKET = ok ? handles[0] : null;
        SETSOCKOPT = ok ? handles[1] : null;
        BIND = ok ? handles[2] : null;
        CONNECT = ok ? handles[3] : null;
        GETSOCKNAME = ok ? handles[4] : null;
        RECV = ok ? handles[5] : null;
        SEND = ok ? handles[6] : null;
        CLOSE = ok ? handles[7] : null;
        STRERROR = ok ? handles[8] : null;
        SENDMSG = ok ? handles[9] : null;
        RECVMSG = ok ? handles[10] : null;
        CAPTURE_LAYOUT = captureLayout;
        ERRNO = errno;
        UNAVAILABLE = unavailable;
    }

    private final int fd;
    private final MemorySegment capture;
    private final InetSocketAddress localAddress;
    /** One msghdr, its iovec and its control message, filled once; a send sets the iovec and the segment size. */
    private final MemorySegment message;
    /** The same for reads: the kernel writes the coalesced datagrams' size into its control message. */
    private final MemorySegment receipt;
    private String receiveOffloadRefused = "not asked for";

    private UdpNativeSocket(final int fd, final MemorySegment capture, final InetSocketAddress localAddress) {
        this.fd = fd;
        this.capture = capture;
        this.localAddress = localAddress;
        this.message = Arena.ofAuto().allocate(MSGHDR + IOVEC + CMSG_SPACE, 8);
        final MemorySegment iovec = message.asSlice(MSGHDR, IOVEC);
        final MemorySegment control = message.asSlice(MSGHDR + IOVEC, CMSG_SPACE);
        // msg_name stays NULL (the socket is connected) and msg_flags 0; the zeros come from allocate
        message.set(ValueLayout.ADDRESS, MSG_IOV, iovec);
        message.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, 1);
        message.set(ValueLayout.ADDRESS, MSG_CONTROL, control);
        control.set(ValueLayout.JAVA_LONG, 0, CMSG_LEN);
        control.set(ValueLayout.JAVA_INT, 8, SOL_UDP);
        control.set(ValueLayout.JAVA_INT, 12, UDP_SEGMENT);
        this.receipt = Arena.ofAuto().allocate(MSGHDR + IOVEC + CMSG_SPACE, 8);
        receipt.set(ValueLayout.ADDRESS, MSG_IOV, receipt.asSlice(MSGHDR, IOVEC));
        receipt.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, 1);
        receipt.set(ValueLayout.ADDRESS, MSG_CONTROL, receipt.asSlice(MSGHDR + IOVEC, CMSG_SPACE));
    }

    /**
     * Asks the kernel for coalesced reads ({@code UDP_GRO}).
     *
     * @return null if it agreed, else why not
     */
    String enableReceiveOffload() {
        try (Arena arena = Arena.ofConfined()) {
            setOption(fd, capture, arena.allocate(ValueLayout.JAVA_INT), SOL_UDP, UDP_GRO, 1, "UDP_GRO");
            receiveOffloadRefused = null;
        } catch (final Throwable ex) {
            receiveOffloadRefused = ex.getMessage();
        }
        return receiveOffloadRefused;
    }

    /**
     * One {@code recvmsg(2)} with {@code MSG_TRUNC}, for a socket with {@code UDP_GRO}: it may return several
     * datagrams of the same length (the last may be shorter) back to back; {@link #segmentLength()} tells their
     * length afterwards.
     *
     * @param buffer native memory to receive into
     * @param capacity bytes available there
     * @return the bytes read (more than {@code capacity} when they were cut), or {@code -errno}
     */
    long receiveMessage(final MemorySegment buffer, final long capacity) {
        final MemorySegment header = receipt;
        header.set(ValueLayout.JAVA_LONG, MSGHDR, buffer.address());
        header.set(ValueLayout.JAVA_LONG, MSGHDR + IOV_LEN, capacity);
        header.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, CMSG_SPACE); // the kernel lowers it to what it wrote
        header.set(ValueLayout.JAVA_INT, MSGHDR + IOVEC + 12, 0); // no stale UDP_GRO type from an earlier read
        try {
            final long length = (long)RECVMSG.invokeExact(capture, fd, header, MSG_TRUNC);
            return length >= 0 ? length : -(int)ERRNO.get(capture, 0L);
        } catch (final Throwable ex) {
            throw new IllegalStateException("recvmsg(2) downcall failed", ex);
        }
    }

    /**
     * The length of each datagram coalesced into the last {@link #receiveMessage}, from its control message.
     *
     * @return the length, or 0 when the read holds one datagram
     */
    int segmentLength() {
        final MemorySegment header = receipt;
        if (header.get(ValueLayout.JAVA_LONG, MSG_CONTROLLEN) < CMSG_DATA + 4
            || header.get(ValueLayout.JAVA_INT, MSGHDR + IOVEC + 8) != SOL_UDP
            || header.get(ValueLayout.JAVA_INT, MSGHDR + IOVEC + 12) != UDP_GRO) {
            return 0;
        }
        return header.get(ValueLayout.JAVA_INT, MSGHDR + IOVEC + CMSG_DATA);
    }

    /**
     * Why coalesced reads are off.
     *
     * @return null when they are on
     */
    String receiveOffloadRefused() {
        return receiveOffloadRefused;
    }

    private static MethodHandle handle(final Linker linker, final SymbolLookup libc, final String name,
        final FunctionDescriptor descriptor, final Linker.Option... options) {
        return linker.downcallHandle(libc.find(name)
            .orElseThrow(() -> new IllegalStateException(name + " is not in the C library")), descriptor, options);
    }

    /**
     * Why the native socket cannot be used here.
     *
     * @return null if it can, otherwise the reason in one sentence
     */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /**
     * Opens, configures, binds and connects a socket as the options say.
     *
     * @param options the endpoint's settings; both addresses IPv4 (checked by the caller)
     * @return the socket
     * @throws IOException naming the failing call and the error; nothing is left open
     */
    static UdpNativeSocket open(final UdpOptions options) throws IOException {
        final MemorySegment capture = Arena.ofAuto().allocate(CAPTURE_LAYOUT);
        final int fd;
        try {
            fd = (int)SOCKET.invokeExact(capture, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        } catch (final Throwable ex) {
            throw new IOException("socket(AF_INET, SOCK_DGRAM) failed", ex);
        }
        if (fd < 0) {
            throw failure("socket(AF_INET, SOCK_DGRAM)", capture);
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            final MemorySegment address = arena.allocate(SOCKADDR_IN, 4);
            setOption(fd, capture, value, SOL_SOCKET, SO_REUSEADDR, options.reuseAddress() ? 1 : 0, "SO_REUSEADDR");
            if (options.receiveBufferSize() > 0) {
                setOption(fd, capture, value, SOL_SOCKET, SO_RCVBUF, options.receiveBufferSize(), "SO_RCVBUF");
            }
            if (options.sendBufferSize() > 0) {
                setOption(fd, capture, value, SOL_SOCKET, SO_SNDBUF, options.sendBufferSize(), "SO_SNDBUF");
            }
            setOption(fd, capture, value, IPPROTO_IP, IP_MULTICAST_TTL, options.multicastTtl(), "IP_MULTICAST_TTL");
            setOption(fd, capture, value, IPPROTO_IP, IP_MULTICAST_LOOP, options.multicastLoopback() ? 1 : 0,
                "IP_MULTICAST_LOOP");
            encode(options.localAddress(), address);
            if ((int)BIND.invokeExact(capture, fd, address, SOCKADDR_IN) != 0) {
                throw failure("bind " + options.localAddress(), capture);
            }
            encode(options.remoteAddress(), address);
            if ((int)CONNECT.invokeExact(capture, fd, address, SOCKADDR_IN) != 0) {
                throw failure("connect " + options.remoteAddress(), capture);
            }
            final MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
            length.set(ValueLayout.JAVA_INT, 0, SOCKADDR_IN);
            if ((int)GETSOCKNAME.invokeExact(capture, fd, address, length) != 0) {
                throw failure("getsockname", capture);
            }
            final UdpNativeSocket socket = new UdpNativeSocket(fd, capture, decode(address));
            if (options.receiveOffload()) {
                socket.enableReceiveOffload(); // a refusal is kept and told, the socket reads one datagram per call
            }
            return socket;
        } catch (final Throwable ex) {
            closeFd(fd);
            if (ex instanceof IOException io) {
                throw io;
            }
            throw new IOException("native UDP socket setup failed: " + ex, ex);
        }
    }

    private static void setOption(final int fd, final MemorySegment capture, final MemorySegment value, final int level,
        final int option, final int setting, final String name) throws Throwable {
        value.set(ValueLayout.JAVA_INT, 0, setting);
        if ((int)SETSOCKOPT.invokeExact(capture, fd, level, option, value, 4) != 0) {
            throw failure("setsockopt " + name + "=" + setting, capture);
        }
    }

    private static void encode(final InetSocketAddress socketAddress, final MemorySegment sockaddr) {
        sockaddr.fill((byte)0);
        sockaddr.set(ValueLayout.JAVA_SHORT, 0, (short)AF_INET); // sin_family, host order
        sockaddr.set(BIG_ENDIAN_SHORT, 2, (short)socketAddress.getPort());
        final InetAddress address = socketAddress.getAddress();
        // the wildcard (0.0.0.0, or :: from an IPv6-preferring JDK) binds INADDR_ANY: the zeros left by fill
        if (address instanceof Inet4Address && !address.isAnyLocalAddress()) {
            final byte[] ip = address.getAddress();
            sockaddr.set(BIG_ENDIAN_INT, 4, (ip[0] & 0xff) << 24 | (ip[1] & 0xff) << 16 | (ip[2] & 0xff) << 8 | ip[3] & 0xff);
        }
    }

    private static InetSocketAddress decode(final MemorySegment sockaddr) throws UnknownHostException {
        final int ip = sockaddr.get(BIG_ENDIAN_INT, 4);
        final byte[] bytes = {(byte)(ip >>> 24), (byte)(ip >>> 16), (byte)(ip >>> 8), (byte)ip};
        return new InetSocketAddress(InetAddress.getByAddress(bytes), Short.toUnsignedInt(sockaddr.get(BIG_ENDIAN_SHORT, 2)));
    }

    private static IOException failure(final String call, final MemorySegment capture) {
        final int errno = (int)ERRNO.get(capture, 0L);
        return new IOException(call + " failed: " + describe(errno));
    }

    /**
     * An error number in words, as the C library says it.
     *
     * @param errno the error number
     * @return e.g. {@code Address already in use (errno=98)}
     */
    static String describe(final int errno) {
        try {
            final MemorySegment text = (MemorySegment)STRERROR.invokeExact(errno);
            return text.reinterpret(256).getString(0) + " (errno=" + errno + ")";
        } catch (final Throwable ex) {
            return "errno=" + errno;
        }
    }

    /**
     * One {@code recv(2)} with {@code MSG_TRUNC}: the datagram's real length even when longer than the buffer.
     *
     * @param buffer native memory to receive into
     * @param capacity bytes available there
     * @return the datagram's length (more than {@code capacity} when it was cut), or {@code -errno}
     *     ({@code -EAGAIN}: nothing queued)
     */
    long receive(final MemorySegment buffer, final long capacity) {
        try {
            final long length = (long)RECV.invokeExact(capture, fd, buffer, capacity, MSG_TRUNC);
            return length >= 0 ? length : -(int)ERRNO.get(capture, 0L);
        } catch (final Throwable ex) {
            throw new IllegalStateException("recv(2) downcall failed", ex);
        }
    }

    /**
     * One {@code send(2)} to the connected peer.
     *
     * @param buffer native memory holding the datagram
     * @param length its length
     * @return the bytes sent, or {@code -errno} ({@code -EAGAIN}: the socket's send buffer is full)
     */
    long send(final MemorySegment buffer, final long length) {
        try {
            final long sent = (long)SEND.invokeExact(capture, fd, buffer, length, 0);
            return sent >= 0 ? sent : -(int)ERRNO.get(capture, 0L);
        } catch (final Throwable ex) {
            throw new IllegalStateException("send(2) downcall failed", ex);
        }
    }

    /**
     * One {@code sendmsg(2)} of {@code length} bytes from {@code offset} in {@code buffer} to the connected peer,
     * as one datagram, or, with a segment length, as consecutive datagrams of {@code segmentLength} bytes each
     * (the last may be shorter) cut by the kernel: UDP segmentation offload ({@code UDP_SEGMENT}, Linux 4.18+).
     * One system call and one pass through the stack for up to {@link #MAX_SEGMENTS} datagrams.
     *
     * @param buffer native memory holding the bytes
     * @param offset where they start
     * @param length how many
     * @param segmentLength the length of each datagram, or 0 for one datagram of {@code length} bytes
     * @return the bytes sent, or {@code -errno} ({@code -EAGAIN}: the socket's send buffer is full, nothing sent;
     *     {@code -EINVAL} among others when the kernel does not segment)
     */
    long sendMessage(final MemorySegment buffer, final long offset, final long length, final int segmentLength) {
        final MemorySegment header = message;
        header.set(ValueLayout.JAVA_LONG, MSGHDR, buffer.address() + offset);
        header.set(ValueLayout.JAVA_LONG, MSGHDR + IOV_LEN, length);
        if (segmentLength > 0) {
            header.set(ValueLayout.JAVA_SHORT, MSGHDR + IOVEC + CMSG_DATA, (short)segmentLength);
            header.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, CMSG_SPACE);
        } else {
            header.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, 0);
        }
        try {
            final long sent = (long)SENDMSG.invokeExact(capture, fd, header, 0);
            return sent >= 0 ? sent : -(int)ERRNO.get(capture, 0L);
        } catch (final Throwable ex) {
            throw new IllegalStateException("sendmsg(2) downcall failed", ex);
        }
    }

    /**
     * The bound address with the real port, from {@code getsockname(2)}.
     *
     * @return the address
     */
    InetSocketAddress localAddress() {
        return localAddress;
    }

    /** Closes the descriptor; the caller calls this once. */
    void close() {
        closeFd(fd);
    }

    private static void closeFd(final int fd) {
        try {
            final int ignored = (int)CLOSE.invokeExact(fd); // a datagram socket has nothing to flush
        } catch (final Throwable ex) {
            throw new IllegalStateException("close(" + fd + ") downcall failed", ex);
        }
    }
}
