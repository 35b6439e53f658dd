package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * What a TCP sender's own code costs per frame (not a test; run by hand, one mode per JVM so that each loop's
 * JIT profile is its own):
 * {@code java --enable-native-access=ALL-UNNAMED -cp peregrine-core/target/classes:peregrine-core/target/test-classes
 * dev.peregrine.tcp.TcpSenderCost peregrine|run|segment SIZE BATCH SECONDS}.
 *
 * <p>A thread of this JVM drains the socket (1 MiB reads, no decoding), so the sending thread's CPU is the
 * sender's alone. {@code peregrine}: {@link TcpTransport#tryClaim}, an 8-byte sequence written into
 * {@link TcpTransport#claimBuffer()}, {@link TcpTransport#commit()}, and {@link TcpTransport#flush(long)} after
 * every BATCH frames (a duty cycle when the socket is full). {@code run}: the same with each batch claimed as
 * one run ({@link TcpTransport#tryClaim(long, int, int)}), the sequences written at {@link TcpTransport#claimStride()}
 * apart, one commit. {@code segment}: the same frames (4-byte big-endian
 * length and the sequence) put by hand into a {@link MemorySegment} held in a field and written with one
 * {@code SocketChannel.write} per BATCH frames: the floor for Java code that frames into off-heap memory. After
 * one second of warm-up, prints frames per second and the sending thread's user CPU time per frame, which
 * wanders far less than the rate on a shared machine (the kernel's share of the write is in system time).
 */
public final class TcpSenderCost {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt LENGTH = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final long WARM_UP_NS = 1_000_000_000L;

    private TcpSenderCost() {
    }

    /**
     * Runs one measurement.
     *
     * @param args mode, payload size, frames per flush, measured seconds
     * @throws Exception on failure
     */
    public static void main(final String[] args) throws Exception {
        if (args.length != 4 || !java.util.List.of("peregrine", "run", "segment").contains(args[0])) {
            System.err.println("usage: TcpSenderCost peregrine|run|segment SIZE BATCH SECONDS");
            System.exit(2);
        }
        final int size = Integer.parseInt(args[1]);
        final int batch = Integer.parseInt(args[2]);
        final long windowNs = (long)(Double.parseDouble(args[3]) * 1e9);
        if (size < 8 || batch < 1 || windowNs <= 0) {
            throw new IllegalArgumentException("size=" + size + " (at least 8) batch=" + batch + " seconds=" + args[3]);
        }
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            final Thread drain = Thread.ofPlatform().daemon().name("drain").start(() -> drain(server));
            final InetSocketAddress address = (InetSocketAddress)server.getLocalAddress();
            final Sender sender = switch (args[0]) {
                case "peregrine" -> new PeregrineSender(address, size);
                case "run" -> new PeregrineRunSender(address, size);
                default -> new SegmentSender(address, size);
            };
            final long start = System.nanoTime();
            long sequence = 0;
            long measuredFrom = -1;
            long startNs = 0;
            long startCpuNs = 0;
            while (true) {
                sender.sendRun(sequence, batch);
                sequence += batch;
                sender.flush();
                final long now = System.nanoTime();
                if (measuredFrom < 0 && now - start >= WARM_UP_NS) {
                    measuredFrom = sequence;
                    startNs = now;
                    startCpuNs = THREADS.getCurrentThreadUserTime();
                } else if (measuredFrom >= 0 && now - startNs >= windowNs) {
                    final long frames = sequence - measuredFrom;
                    System.out.printf("%s size=%d batch=%d frames/s=%.0f user-ns/frame=%.1f%n", args[0], size, batch,
                        frames * 1e9 / (now - startNs), (THREADS.getCurrentThreadUserTime() - startCpuNs) / (double)frames);
                    break;
                }
            }
            sender.close();
            drain.interrupt();
        }
    }

    private static void drain(final ServerSocketChannel server) {
        try (SocketChannel channel = server.accept()) {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
            while (channel.read(buffer.clear()) >= 0) {
                // discarded: the sender is measured
            }
        } catch (final IOException ex) {
            // the sender closed
        }
    }

    private interface Sender {
        void send(long sequence) throws IOException;

        /** Sends {@code count} frames from {@code first} on: one send after another unless the mode has a run of its own. */
        default void sendRun(final long first, final int count) throws IOException {
            for (int i = 0; i < count; i++) {
                send(first + i);
            }
        }

        void flush() throws IOException;

        void close() throws IOException;
    }

    /** A batch claimed as one run: the sequences at claimStride() apart, one commit. */
    private static final class PeregrineRunSender extends PeregrineSender {
        PeregrineRunSender(final InetSocketAddress address, final int size) {
            super(address, size);
        }

        @Override
        public void sendRun(final long first, final int count) {
            long at;
            while ((at = transport.tryClaim(id, size, count)) < 0) {
                reactor.doWork(); // the duty cycle writes what the socket takes
            }
            final MemorySegment buffer = transport.claimBuffer();
            final long stride = transport.claimStride();
            for (int i = 0; i < count; i++) {
                buffer.set(SEQUENCE, at + i * stride, first + i);
            }
            transport.commit();
        }
    }

    /** Claim, sequence, commit; a flush per batch, a duty cycle when the socket is full. */
    private static class PeregrineSender implements Sender, ChannelHandler {
        final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()));
        final TcpTransport transport;
        final long id;
        final int size;
        private boolean connected;

        PeregrineSender(final InetSocketAddress address, final int size) {
            this.size = size;
            this.transport = new TcpTransport(reactor, new TcpOptions().framing(Framing.parse("length:4be"))
                .maxFrameLength(Math.max(size, 64)).outboundBufferSize(1024 * 1024), this);
            this.id = transport.connect(address);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!connected && System.nanoTime() < deadline) {
                reactor.doWork();
            }
            if (!connected) {
                throw new IllegalStateException("no connection to " + address);
            }
        }

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            connected = true;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        }

        @Override
        public void send(final long sequence) {
            final long at = transport.tryClaim(id, size);
            if (at < 0) {
                sendAfterBackPressure(sequence);
                return;
            }
            transport.claimBuffer().set(SEQUENCE, at, sequence);
            transport.commit();
        }

        // the rare path in a method of its own, as the bench's sender has it, so that send() stays small
        private void sendAfterBackPressure(final long sequence) {
            long at;
            while ((at = transport.tryClaim(id, size)) < 0) {
                reactor.doWork(); // the duty cycle writes what the socket takes
            }
            transport.claimBuffer().set(SEQUENCE, at, sequence);
            transport.commit();
        }

        @Override
        public void flush() {
            if (transport.flush(id) > 0) {
                reactor.doWork();
            }
        }

        @Override
        public void close() {
            transport.close();
            reactor.close();
        }
    }

    /** The same frames put by hand into a segment held in a field; one write per batch. */
    private static final class SegmentSender implements Sender {
        private static final int CAPACITY = 1 << 20;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment segment = arena.allocate(CAPACITY, 64);
        private final ByteBuffer view = segment.asByteBuffer();
        private final SocketChannel channel;
        private final int frameLength;
        private int head;
        private int tail;

        SegmentSender(final InetSocketAddress address, final int size) throws IOException {
            this.channel = SocketChannel.open(address);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.configureBlocking(false);
            this.frameLength = 4 + size;
        }

        @Override
        public void send(final long sequence) throws IOException {
            while (CAPACITY - tail < frameLength) {
                flush();
            }
            segment.set(LENGTH, tail, frameLength - 4);
            segment.set(SEQUENCE, tail + 4, sequence);
            tail += frameLength;
        }

        @Override
        public void flush() throws IOException {
            channel.write(view.limit(tail).position(head));
            head = view.position();
            if (head == tail) {
                head = 0;
                tail = 0;
            } else if (head > 0) {
                MemorySegment.copy(segment, head, segment, 0, tail - head);
                tail -= head;
                head = 0;
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
            arena.close();
        }
    }
}
