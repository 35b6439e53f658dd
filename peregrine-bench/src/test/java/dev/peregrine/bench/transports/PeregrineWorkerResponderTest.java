package dev.peregrine.bench.transports;

import dev.peregrine.bench.run.ThreadAllocation;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.BackoffIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.shm.ShmTransport;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.testkit.FileDescriptors;
import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code bench load --workers N}: the responder's reactor hands every message to worker threads that answer
 * through its command ring; every client gets its own echoes, in order, and neither the reactor nor a worker
 * allocates per message. Workers yield when idle, so on a busy 2-core machine a round trip can take milliseconds:
 * the counts are small, the windows zero-tolerance.
 */
@Tag("slow") // a reactor, two workers and the client thread on a shared 2-core machine: about a minute a transport
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PeregrineWorkerResponderTest {
    private static final int CLIENTS = 5;

    @TempDir
    Path directory;

    private BenchConfig config() throws IOException {
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        return new BenchConfig("127.0.0.1", port, 64, directory, false);
    }

    @Test
    void shouldBeFoundByItsNameWithTheCountOfWorkers() {
        assertThat(Transports.byName("peregrine-tcp+workers=2").name()).isEqualTo("peregrine-tcp+workers=2");
        assertThat(Transports.byName("tcp+workers=3").name()).isEqualTo("peregrine-tcp+workers=3");
        assertThat(Transports.byName("peregrine-shm+workers=1").path()).isEqualTo("shm");
        assertThatThrownBy(() -> Transports.byName("netty+workers=2")).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("transport=netty has no worker responder; peregrine-tcp and peregrine-shm have");
        assertThatThrownBy(() -> Transports.byName("peregrine-tcp+workers=two"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("transport=peregrine-tcp+workers=two names no count of workers");
        assertThatThrownBy(() -> Transports.byName("peregrine-tcp+workers=0")).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("workers=0 must be in [1, " + PeregrineWorkersBench.MAX_WORKERS + "]");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"peregrine-tcp+workers=2", "peregrine-shm+workers=2"})
    @SuppressWarnings("try") // the held descriptors are only held
    void shouldEchoEachClientsSequencesInOrderWithoutAllocatingOnTheReactorOrTheWorkers(final String name)
        throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = config();
        Needs.platform(name + " on Linux", () -> transport.unavailableReason(config));
        final Set<Long> before = new HashSet<>(ThreadAllocation.liveThreadIds());
        // the responder's sockets get descriptors above 256, as a server's do: a clean-clone CI run, with enough jars
        // open, once saw 32 B per round here, the JDK's selector boxing each ready descriptor above the Integer cache
        // (SelectorBoxing; the test JVM has its option, without which every window allocates)
        try (FileDescriptors.Held low = FileDescriptors.holdBelow(256);
             Responder responder = transport.startSharedResponder(config)) {
            final Set<Long> responderThreads = new HashSet<>(ThreadAllocation.liveThreadIds());
            responderThreads.removeAll(before);
            assertThat(responderThreads).as("the reactor and two workers").hasSize(3);
            final List<PingClient> clients = transport.connectAll(config, CLIENTS);
            try {
                final long[] next = {0};
                final Runnable roundTrips = () -> {
                    final long n = next[0]++;
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
                for (int i = 0; i < 3_000; i++) {
                    roundTrips.run(); // warm: the JIT of the demux, the rings and the agents
                }
                // zero tolerance in the first clean set (AllocationMeter.firstCleanSet's rule, the three threads read
                // from this one): a set that allocated is the further warm-up of the next; an allocation once per set
                // (1 500 rounds) or more often shows in every set and fails
                final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(1, 5);
                final long[] windows = new long[5];
                do {
                    for (int w = 0; w < windows.length; w++) {
                        final long start = allocated(responderThreads);
                        for (int i = 0; i < 300; i++) {
                            roundTrips.run();
                        }
                        windows[w] = allocated(responderThreads) - start;
                    }
                } while (sets.another(java.util.Arrays.stream(windows).sum()));
                assertThat(windows).as("bytes the reactor and workers allocated in windows of 300 x %d round trips,"
                    + " set %d of at most 5", CLIENTS, sets.sets()).containsOnly(0L);
                final long sent = next[0] * CLIENTS;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (responder.messages() != sent && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // a worker counts an echo after it hands it over
                }
                assertThat(responder.messages()).isEqualTo(sent);
                assertThat(((PeregrineWorkerResponder)responder).failures()).isZero();
            } finally {
                for (final PingClient client : clients) {
                    client.close();
                }
            }
        }
    }

    @Test
    void shouldCloseTheConnectionOfAMessageTheDemuxDroppedSoThatTheRunFailsInsteadOfWaiting() throws Exception {
        final PeregrineShmBench shm = new PeregrineShmBench();
        final BenchConfig config = config();
        Needs.platform("peregrine-shm on Linux", () -> shm.unavailableReason(config));
        final Reactor reactor = new Reactor(new ReactorOptions().name("drop-test").idleStrategy(new BackoffIdleStrategy()));
        // one worker that never reads, its ring of 1 KiB: a few messages of 64 B fill it; the transport is shared
        // memory seen only as a Transport, so the demux cannot pause it and must drop: the path of any transport
        // that is not ReadPausable
        try (PeregrineWorkerResponder responder = PeregrineWorkerResponder.start(reactor,
                 handler -> new UnpausableTransport(new ShmTransport(reactor, shm.options(config), handler)),
                 PeregrineShmBenchSupport.address(config, "pp"), 1, YieldingIdleStrategy::new, 1024, false);
             PingClient client = shm.connect(config)) {
            for (int n = 0; n < 100; n++) { // far more than the worker's ring holds, far fewer than the client's
                client.send(n);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (responder.failures() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // the reactor reads them on its own thread
            }

            String closed = null;
            while (closed == null && System.nanoTime() < deadline) {
                try {
                    assertThat(client.poll()).as("the worker never answers").isEqualTo(-1);
                } catch (final IllegalStateException ex) {
                    closed = ex.getMessage();
                }
            }

            assertThat(closed).as("the client finds its connection closed").isEqualTo("shared-memory channel closed by"
                + " the responder");
            assertThat(responder.dropped()).isEqualTo(1);
            assertThat(responder.failures()).isEqualTo(1);
            assertThat(responder.messages()).isZero();
        }
    }

    private static long allocated(final Set<Long> threads) {
        long sum = 0;
        for (final long id : threads) {
            sum += AllocationMeter.allocatedBytes(id);
        }
        return sum;
    }

    /** A transport seen only through {@link dev.peregrine.channel.Transport}: not {@code ReadPausable}. */
    private record UnpausableTransport(dev.peregrine.channel.Transport delegate) implements dev.peregrine.channel.Transport {
        @Override
        public long listen(final java.net.SocketAddress localAddress) {
            return delegate.listen(localAddress);
        }

        @Override
        public long connect(final java.net.SocketAddress remoteAddress) {
            return delegate.connect(remoteAddress);
        }

        @Override
        public long send(final long channelId, final java.lang.foreign.MemorySegment buffer, final long offset,
                         final int length) {
            return delegate.send(channelId, buffer, offset, length);
        }

        @Override
        public void close(final long id) {
            delegate.close(id);
        }

        @Override
        public void abort(final long id) {
            delegate.abort(id);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
