package dev.peregrine.bench.transports;

import dev.peregrine.testkit.Needs;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeregrineShmBenchTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"peregrine-shm", "peregrine-shm-packed", "peregrine-shm-futex", "peregrine-shm-backoff"})
    void shouldRoundTripInOrderWithoutAllocatingOnTheClientThread(final String name) throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = new BenchConfig("127.0.0.1", 17000, 32, dir, true);
        Needs.platform(name + " on Linux (shared memory, futex, a Unix socket path)", () -> transport.unavailableReason(config));
        assertThat(transport.path()).isEqualTo("shm");
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            final long[] next = {0};
            final long[] outOfOrder = {0};
            final Runnable roundTrip = () -> {
                final long sequence = next[0]++;
                client.send(sequence);
                if (client.receive() != sequence) {
                    outOfOrder[0]++;
                }
            };
            // warm-up: JIT of the ring and of the futex downcall; then zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 5_000, 10, 5, roundTrip);
            assertThat(outOfOrder[0]).isZero();
            assertThat(measured.totalBytes()).as("client-thread bytes in the last set of %d (windows of 5 000 round trips)",
                measured.sets()).isZero();
            assertThat(responder.messages()).isEqualTo(next[0]);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"peregrine-shm", "peregrine-shm-packed", "peregrine-shm-futex", "peregrine-shm-backoff"})
    void shouldStreamEverySequenceInOrder(final String name) throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = new BenchConfig("127.0.0.1", 17002, 32, dir, true);
        Needs.platform(name + " on Linux (shared memory, futex, a Unix socket path)", () -> transport.unavailableReason(config));
        assertThat(transport.supportsStream()).isTrue();
        try (StreamReceiver receiver = transport.startStreamReceiver(config);
             StreamSender sender = transport.connectStreamSender(config)) {
            final long[] next = {0};
            final boolean[] ordered = {true};
            long sent = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (next[0] < 200_000 && System.nanoTime() < deadline) {
                if (sent < 200_000 && sender.offer(sent)) {
                    sent++;
                }
                receiver.poll(seq -> {
                    ordered[0] &= seq == next[0];
                    next[0]++;
                });
            }
            assertThat(ordered[0]).isTrue();
            assertThat(next[0]).isEqualTo(200_000);
        }
    }

    @Test
    void shouldRefuseMoreClientsThanTheirRingsFitInTheRunsSharedMemory() {
        final PeregrineShmBench shm = new PeregrineShmBench();
        final BenchConfig config = new BenchConfig("127.0.0.1", 17004, 256, dir, false);

        assertThat(shm.clientsUnavailableReason(config, 256)).isNull();
        assertThat(shm.clientsUnavailableReason(config, 257)).isEqualTo("peregrine-shm gives each client two rings"
            + " of 1024 KiB: 257 clients would map 514 MiB of shared memory; it runs at most 256 clients (of 512 MiB)");
        assertThat(Transports.byName("peregrine-shm+workers=2").clientsUnavailableReason(config, 1000))
            .as("with workers too").startsWith("peregrine-shm gives each client two rings of 1024 KiB: 1000 clients");
    }
}
