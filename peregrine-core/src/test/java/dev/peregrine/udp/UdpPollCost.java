package dev.peregrine.udp;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * What a busy-polled {@link UdpEndpoint} adds to a UDP round trip over a bare loop of {@code send(2)} and
 * {@code recv(2)} (not a test; run by hand, the responder first, both JVMs on this host):
 * {@code java --enable-native-access=ALL-UNNAMED -cp peregrine-core/target/classes:peregrine-core/target/test-classes
 * dev.peregrine.udp.UdpPollCost responder|client SIZE BLOCKS BLOCK RECEIVE_BATCH}.
 *
 * <p>Both processes hold two connected pairs of sockets on loopback: a bare one (file descriptors from
 * {@code socket(2)}, critical FFM downcalls, the loop of {@code ../shared/floor/net_pingpong.c}) and a pair of
 * native, connected, hand-polled endpoints reading up to RECEIVE_BATCH datagrams per {@link UdpEndpoint#receive}.
 * The round trips alternate between the two in blocks of BLOCK (both sides know the schedule), so that the
 * placement of the two processes on the CPUs, which moves a round trip by up to 1.5x on a shared VM from one run
 * to the next, is the same for both. The client prints the median over block pairs of the ratio of the
 * endpoints' block p50 to the bare loop's, with its quartiles, after 20 blocks of warm-up.
 */
@SuppressWarnings("restricted") // the bare loop's downcalls are this tool's purpose
public final class UdpPollCost {
    private static final int WARM_UP_BLOCKS = 20;
    private static final int BARE_PORT = 41_000;
    private static final int ENDPOINT_PORT = 42_000;
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM_NONBLOCK = 2 | 0x800;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SOCKET = handle("socket",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle BIND = handle("bind",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle CONNECT = handle("connect",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle RECV = handle("recv", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), Linker.Option.critical(false));
    private static final MethodHandle SEND = handle("send", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), Linker.Option.critical(false));

    private UdpPollCost() {
    }

    /**
     * Runs one side.
     *
     * @param args responder|client SIZE BLOCKS BLOCK RECEIVE_BATCH
     * @throws Throwable on any failure
     */
    public static void main(final String[] args) throws Throwable {
        if (args.length != 5) {
            System.err.println("usage: UdpPollCost responder|client SIZE BLOCKS BLOCK RECEIVE_BATCH");
            System.exit(2);
        }
        final boolean responder = "responder".equals(args[0]);
        final int size = Integer.parseInt(args[1]);
        final int blocks = Integer.parseInt(args[2]) & ~1;
        final int block = Integer.parseInt(args[3]);
        final int batch = Integer.parseInt(args[4]);
        final MemorySegment buffer = Arena.global().allocate(65_536, 64);
        final int fd = responder ? bareSocket(BARE_PORT, BARE_PORT + 1) : bareSocket(BARE_PORT + 1, BARE_PORT);
        final InetAddress loopback = InetAddress.getByName("127.0.0.1");
        final InetSocketAddress responderAddress = new InetSocketAddress(loopback, ENDPOINT_PORT);
        final InetSocketAddress clientAddress = new InetSocketAddress(loopback, ENDPOINT_PORT + 1);
        final UdpOptions options = new UdpOptions().busyPoll(true).connectedReadWrite(true).nativeSocket(true)
            .receiveBatch(batch).receiveBufferSize(4 << 20).sendBufferSize(4 << 20);
        final long[] handled = {0};
        final Reactor reactor = new Reactor(new ReactorOptions().name("udp-poll-cost")); // never started: polled here
        final UdpEndpoint endpoint = responder
            ? UdpEndpoint.open(reactor, options.localAddress(responderAddress).remoteAddress(clientAddress),
                (source, received, offset, length, sender, nowNs) -> {
                    source.send(received, offset, length);
                    handled[0]++;
                })
            : UdpEndpoint.open(reactor, options.localAddress(clientAddress).remoteAddress(responderAddress),
                (source, received, offset, length, sender, nowNs) -> handled[0]++);
        if (responder) {
            respond(fd, buffer, endpoint, handled, blocks, block);
            return;
        }
        Thread.sleep(300); // the responder's sockets are open by now
        final long[] latency = new long[block];
        final double[][] blockMedians = new double[2][blocks / 2];
        for (int k = 0; k < blocks + WARM_UP_BLOCKS; k++) {
            final boolean bare = (k & 1) == 0;
            for (int i = 0; i < block; i++) {
                final long start = System.nanoTime();
                if (bare) {
                    final long sent = (long)SEND.invokeExact(fd, buffer, (long)size, 0);
                    while ((long)RECV.invokeExact(fd, buffer, 65_536L, 0) < 0) {
                        Thread.onSpinWait();
                    }
                } else {
                    endpoint.sendBuffer().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                    endpoint.sendPrepared(size, null);
                    final long wanted = handled[0] + 1;
                    while (handled[0] < wanted) {
                        endpoint.receive(0);
                        Thread.onSpinWait();
                    }
                }
                latency[i] = System.nanoTime() - start;
            }
            if (k >= WARM_UP_BLOCKS) {
                Arrays.sort(latency);
                blockMedians[bare ? 0 : 1][(k - WARM_UP_BLOCKS) / 2] = latency[block / 2];
            }
        }
        final double[] ratios = new double[blocks / 2];
        for (int j = 0; j < ratios.length; j++) {
            ratios[j] = blockMedians[1][j] / blockMedians[0][j];
        }
        Arrays.sort(ratios);
        Arrays.sort(blockMedians[0]);
        Arrays.sort(blockMedians[1]);
        System.out.printf("size=%d receiveBatch=%d %d blocks of %d: p50 bare %.0f ns, endpoint %.0f ns;"
                + " endpoint/bare per block pair: median %.3f (quartiles %.3f-%.3f)%n", size, batch, blocks, block,
            blockMedians[0][ratios.length / 2], blockMedians[1][ratios.length / 2], ratios[ratios.length / 2],
            ratios[ratios.length / 4], ratios[3 * ratios.length / 4]);
        System.exit(0);
    }

    private static void respond(final int fd, final MemorySegment buffer, final UdpEndpoint endpoint,
        final long[] handled, final int blocks, final int block) throws Throwable {
        for (int k = 0; k < blocks + WARM_UP_BLOCKS; k++) {
            if ((k & 1) == 0) {
                for (int i = 0; i < block; i++) {
                    long length;
                    while ((length = (long)RECV.invokeExact(fd, buffer, 65_536L, 0)) < 0) {
                        Thread.onSpinWait();
                    }
                    final long sent = (long)SEND.invokeExact(fd, buffer, length, 0);
                }
            } else {
                final long wanted = handled[0] + block;
                while (handled[0] < wanted) {
                    endpoint.receive(0);
                }
            }
        }
    }

    private static int bareSocket(final int localPort, final int remotePort) throws Throwable {
        final int fd = (int)SOCKET.invokeExact(AF_INET, SOCK_DGRAM_NONBLOCK, 0);
        if (fd < 0 || (int)BIND.invokeExact(fd, sockaddr(localPort), 16) != 0
            || (int)CONNECT.invokeExact(fd, sockaddr(remotePort), 16) != 0) {
            throw new IllegalStateException("bare socket on 127.0.0.1:" + localPort + " failed");
        }
        return fd;
    }

    /** A sockaddr_in for 127.0.0.1:port. */
    private static MemorySegment sockaddr(final int port) {
        final MemorySegment address = Arena.global().allocate(16);
        address.set(ValueLayout.JAVA_SHORT, 0, (short)AF_INET);
        address.set(ValueLayout.JAVA_BYTE, 2, (byte)(port >> 8));
        address.set(ValueLayout.JAVA_BYTE, 3, (byte)port);
        address.set(ValueLayout.JAVA_BYTE, 4, (byte)127);
        address.set(ValueLayout.JAVA_BYTE, 7, (byte)1);
        return address;
    }

    private static MethodHandle handle(final String name, final FunctionDescriptor descriptor,
        final Linker.Option... options) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor, options);
    }
}
