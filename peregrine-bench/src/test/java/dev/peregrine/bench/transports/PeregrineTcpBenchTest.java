package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

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
            final long allocated = AllocationMeter.quietestWindowBytes(20_000, 10_000, 10, roundTrip);
            assertThat(allocated).as("fewest client-thread bytes in a window of 10 000 warm round trips").isZero();
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
    void shouldStreamSequencesInOrder() throws Exception {
        final BenchConfig config = config();
        final PeregrineTcpBench bench = new PeregrineTcpBench();
        try (StreamReceiver receiver = bench.startStreamReceiver(config); StreamSender sender = bench.connectStreamSender(config)) {
            final long total = 50_000;
            final long[] expected = {0};
            long offered = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (expected[0] < total && System.nanoTime() < deadline) {
                if (offered < total && sender.offer(offered)) {
                    offered++;
                }
                receiver.poll(sequence -> {
                    assertThat(sequence).isEqualTo(expected[0]);
                    expected[0]++;
                });
            }
            assertThat(expected[0]).isEqualTo(total);
        }
    }
}
