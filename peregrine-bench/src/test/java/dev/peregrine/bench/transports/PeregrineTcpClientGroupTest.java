package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.EchoReadiness;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Five clients on one reactor driven by the test's thread, against one responder: each gets its own echoes,
 * and the thread allocates nothing per round trip once warm.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // up to five sets of windows on a loaded two-core machine
class PeregrineTcpClientGroupTest {
    private static final int CLIENTS = 5;

    @TempDir
    Path directory;

    private BenchConfig config(final boolean busySpin) throws IOException {
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        return new BenchConfig("127.0.0.1", port, 64, directory, busySpin);
    }

    private static void closeAll(final List<PingClient> clients) {
        for (final PingClient client : clients) {
            client.close();
        }
    }

    @ParameterizedTest(name = "busySpin={0}")
    @ValueSource(booleans = {false, true})
    void shouldGiveEachClientItsOwnEchoesAndAllocateNothingOnceWarm(final boolean busySpin) throws Exception {
        final BenchConfig config = config(busySpin);
        final PeregrineTcpBench bench = new PeregrineTcpBench();
        try (Responder responder = bench.startResponder(config)) {
            final List<PingClient> clients = bench.connectAll(config, CLIENTS);
            try {
                final long[] next = {0};
                final Runnable roundTrips = () -> {
                    final long n = next[0]++;
                    // every client sends before any reads: the echoes wait in their own clients' rings
                    for (int k = 0; k < CLIENTS; k++) {
                        clients.get(k).send((long)k << 32 | n);
                    }
                    for (int k = CLIENTS - 1; k >= 0; k--) {
                        final long echoed = clients.get(k).receive();
                        if (echoed != ((long)k << 32 | n)) {
                            throw new AssertionError("client " + k + " sent " + n + ", echo carried " + echoed);
                        }
                    }
                };
                // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
                final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(5_000, 2_000, 10, 5, roundTrips);
                assertThat(measured.totalBytes()).as("bytes in the last set of %d (windows of 2 000 x 5 round trips)",
                    measured.sets()).isZero();
                for (final PingClient client : clients) {
                    assertThat(client.poll()).isEqualTo(-1);
                }
                final long sent = next[0] * CLIENTS;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (responder.messages() != sent && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(responder.messages()).isEqualTo(sent);
            } finally {
                closeAll(clients);
            }
        }
    }

    @Test
    void shouldRunOneDutyCyclePerPassOverItsMembersWhenNoneHasAnEcho() throws Exception {
        final BenchConfig config = config(true);
        final PeregrineTcpBench bench = new PeregrineTcpBench();
        try (Responder responder = bench.startResponder(config)) {
            final List<PingClient> clients = bench.connectAll(config, CLIENTS);
            try {
                final long before = ((PeregrineTcpClientGroup.Member)clients.get(0)).groupCycles();
                for (int pass = 0; pass < 100; pass++) {
                    for (final PingClient client : clients) {
                        assertThat(client.poll()).isEqualTo(-1);
                    }
                }
                // one cycle reads every connection: a cycle per member would read each of them five times a pass
                assertThat(((PeregrineTcpClientGroup.Member)clients.get(0)).groupCycles() - before).isEqualTo(100);
                assertThat(responder.messages()).isZero();
            } finally {
                closeAll(clients);
            }
        }
    }

    @Test
    void shouldNameOnlyTheMembersAnEchoReachedEachOnce() throws Exception {
        final BenchConfig config = config(false);
        final PeregrineTcpBench bench = new PeregrineTcpBench();
        try (Responder responder = bench.startResponder(config)) {
            final List<PingClient> clients = bench.connectAll(config, CLIENTS);
            try {
                final EchoReadiness group = clients.get(0).readiness();
                assertThat(group).isNotNull();
                for (int k = 0; k < CLIENTS; k++) {
                    assertThat(clients.get(k).readiness()).isSameAs(group);
                    assertThat(group.indexOf(clients.get(k))).isEqualTo(k);
                }
                final int[] ready = new int[CLIENTS];
                // members 1 and 3 send two messages each; the others nothing
                for (final int k : new int[] {1, 3}) {
                    clients.get(k).send((long)k << 32);
                    clients.get(k).send((long)k << 32 | 1);
                }
                final List<Integer> named = new java.util.ArrayList<>();
                int echoes = 0;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (echoes < 4) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("named " + named + " with " + echoes + " echoes taken");
                    }
                    final int n = group.pollReady(ready);
                    for (int i = 0; i < n; i++) {
                        if (!named.contains(ready[i])) {
                            named.add(ready[i]);
                        }
                        // drained as the loop does: every echo, then one poll that finds none
                        while (clients.get(ready[i]).poll() >= 0) {
                            echoes++;
                        }
                    }
                }
                assertThat(named).containsExactlyInAnyOrder(1, 3);
                // a marker after them: member 4's echo is the next and only name, whatever came before it
                clients.get(4).send(4L << 32);
                final List<Integer> after = new java.util.ArrayList<>();
                while (after.isEmpty()) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("member 4 never named");
                    }
                    final int n = group.pollReady(ready);
                    for (int i = 0; i < n; i++) {
                        after.add(ready[i]);
                    }
                }
                assertThat(after).containsExactly(4);
                assertThat(clients.get(4).poll()).isEqualTo(4L << 32);
                assertThat(responder.messages()).isEqualTo(5);
            } finally {
                closeAll(clients);
            }
        }
    }

    @Test
    void shouldTellTheClientWhoseConnectionClosedWhy() throws Exception {
        final BenchConfig config = config(false);
        final PeregrineTcpBench bench = new PeregrineTcpBench();
        final Responder responder = bench.startResponder(config);
        final List<PingClient> clients;
        try {
            clients = bench.connectAll(config, 2);
            clients.get(0).send(1);
            assertThat(clients.get(0).receive()).isEqualTo(1);
        } finally {
            responder.close(); // the connections close with it
        }
        try {
            assertThatThrownBy(() -> {
                for (int i = 0; i < 1_000_000; i++) {
                    clients.get(1).poll();
                }
            }).isInstanceOf(IllegalStateException.class).hasMessageStartingWith("connection closed, ");
        } finally {
            closeAll(clients);
        }
    }
}
