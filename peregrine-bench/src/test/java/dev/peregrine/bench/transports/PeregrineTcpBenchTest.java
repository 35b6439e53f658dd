package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.testkit.AllocationMeter;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark adapter in process: found by the service loader, echoes every sequence in order, and
 * the client thread (which drives its own reactor) allocates nothing per round trip once warm.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeregrineTcpBenchTest {
    @TempDir
    Path directory;

    private BenchConfig config() throws IOException {
        return config(false);
    }

    private BenchConfig config(final boolean busySpin) throws IOException {
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        return new BenchConfig("127.0.0.1", port, 256, directory, busySpin);
    }

    @Test
    void shouldBeFoundByTheServiceLoader() {
        assertThat(ServiceLoader.load(BenchTransport.class).stream().map(ServiceLoader.Provider::get))
            .anySatisfy(transport -> {
                assertThat(transport.name()).isEqualTo("peregrine-tcp");
                assertThat(transport.path()).isEqualTo("tcp");
                assertThat(transport.supportsStream()).isTrue();
            });
    }

    @ParameterizedTest(name = "busySpin={0}")
    @ValueSource(booleans = {false, true})
    void shouldEchoTenThousandSequencesInOrderAndAllocateNothingOnTheClientThreadOnceWarm(final boolean busySpin)
        throws Exception {
        // busy-spin runs read by polling and select every 64th cycle; the others wait for the selector
        final BenchConfig config = config(busySpin);
        final PeregrineTcpBench bench = new PeregrineTcpBench();
        try (Responder responder = bench.startResponder(config); PingClient client = bench.connect(config)) {
            final long[] next = {0};
            final Runnable roundTrip = () -> {
                final long sequence = next[0]++;
                client.send(sequence);
                final long echoed = client.receive();
                if (echoed != sequence) {
                    throw new AssertionError("sent " + sequence + ", echo carried " + echoed);
                }
            };
            // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 5_000, 10, 5, roundTrip);
            assertThat(measured.totalBytes()).as("client-thread bytes in the last set of %d (windows of 5 000 round trips)",
                measured.sets()).isZero();
            assertThat(client.poll()).isEqualTo(-1);
            final long sent = next[0];
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (responder.messages() != sent && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(responder.messages()).isEqualTo(sent);
        }
    }

    @Test
    void shouldSlowAClientThatDoesNotReadItsEchoesInsteadOfDroppingIt() throws Exception {
        final BenchConfig config = config();
        // 100 MB of 256-byte messages each way: far past every buffer on the way, the kernel's included (its
        // receive buffers autotune up to tcp_rmem's maximum, 32 MB on this machine)
        final int frames = 400_000;
        try (PeregrineTcpResponder responder = PeregrineTcpResponder.start(config); Socket client = new Socket()) {
            client.setSendBufferSize(64 * 1024);
            client.setReceiveBufferSize(64 * 1024);
            client.connect(new InetSocketAddress(config.host(), config.port()));
            final AtomicLong written = new AtomicLong();
            final OutputStream counting = new FilterOutputStream(client.getOutputStream()) {
                @Override
                public void write(final byte[] bytes, final int offset, final int length) throws IOException {
                    out.write(bytes, offset, length);
                    written.addAndGet(length);
                }
            };
            final CompletableFuture<Void> writer = new CompletableFuture<>();
            final Thread writerThread = Thread.ofPlatform().daemon().start(() -> {
                try {
                    final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(counting, 1 << 16));
                    final byte[] padding = new byte[config.size() - 8];
                    for (long sequence = 0; sequence < frames; sequence++) {
                        out.writeInt(config.size());
                        out.writeLong(sequence);
                        out.write(padding);
                    }
                    out.flush();
                    writer.complete(null);
                } catch (final IOException | RuntimeException ex) {
                    writer.completeExceptionally(ex);
                }
            });
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (responder.pauses() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(responder.pauses()).as("the responder paused reading the client").isPositive();
            awaitBlockedInSocketWrite(writerThread, written);
            assertThat(writer).as("TCP flow control holds the client's writes back; %d echoed", responder.messages())
                .isNotDone();
            assertThat(written.get()).isLessThan((long)frames * (4 + config.size()));

            final DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream(), 1 << 16));
            final byte[] rest = new byte[config.size() - 8];
            for (long sequence = 0; sequence < frames; sequence++) {
                assertThat(in.readInt()).isEqualTo(config.size());
                final long echoed = in.readLong();
                if (echoed != sequence) {
                    throw new AssertionError("echo " + echoed + " where " + sequence + " was due");
                }
                in.readFully(rest);
            }
            writer.get(10, TimeUnit.SECONDS);
            assertThat(responder.messages()).isEqualTo(frames);
        }
    }

    @ParameterizedTest(name = "runs={0}")
    @ValueSource(booleans = {false, true})
    void shouldStreamSequencesInOrder(final boolean runs) throws Exception {
        final BenchConfig config = config();
        final PeregrineTcpBench bench = new PeregrineTcpBench();
        try (StreamReceiver receiver = bench.startStreamReceiver(config); StreamSender sender = bench.connectStreamSender(config)) {
            final long total = 50_000;
            final long[] expected = {0};
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // the sender on a thread of its own, as the throughput runner drives it: offers, then a flush
            // for the last messages, which a batching sender may still hold
            final CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                long offered = 0;
                while (offered < total && System.nanoTime() < deadline) {
                    if (!runs) {
                        offered += sender.offer(offered) ? 1 : 0;
                    } else { // runs of 1, 7, 256 and 5000 (longer than the sender claims at once)
                        final int[] lengths = {1, 7, 256, 5000};
                        offered += sender.offer(offered, (int)Math.min(total - offered, lengths[(int)(offered % 4)]));
                    }
                }
                while (!sender.flush() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            });
            while (expected[0] < total && System.nanoTime() < deadline) {
                receiver.poll(sequence -> {
                    assertThat(sequence).isEqualTo(expected[0]);
                    expected[0]++;
                });
            }
            sending.get(10, TimeUnit.SECONDS);
            assertThat(expected[0]).isEqualTo(total);
        }
    }

    /**
     * Waits, for a bounded time, until the writer is seen blocked: inside the socket's write in two
     * observations in a row with no byte written in between.
     */
    private static void awaitBlockedInSocketWrite(final Thread writer, final AtomicLong written) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long last = -1;
        while (true) {
            final long now = written.get();
            if (now == last && inSocketWrite(writer.getStackTrace())) {
                return;
            }
            last = inSocketWrite(writer.getStackTrace()) ? now : -1;
            assertThat(System.nanoTime()).as("the writer never blocked in a socket write; %d bytes written", now)
                .isLessThan(deadline);
            Thread.sleep(1); // the interval between two observations
        }
    }

    private static boolean inSocketWrite(final StackTraceElement[] stack) {
        for (final StackTraceElement frame : stack) {
            if (frame.getClassName().equals("sun.nio.ch.NioSocketImpl") && frame.getMethodName().contains("rite")) {
                return true;
            }
        }
        return false;
    }
}
