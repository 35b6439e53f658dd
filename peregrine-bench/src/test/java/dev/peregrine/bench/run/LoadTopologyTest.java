package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench load}'s topologies over real loopback connections, in one JVM: by default one responder (one
 * thread) serves every client and one thread drives every client; {@code per-client} keeps a responder and a
 * thread per client.
 */
@Timeout(120)
class LoadTopologyTest {
    private static final int CLIENTS = 5;
    private static final long MESSAGES = 2_000;
    private static final long WARMUP = 500;

    /** A real transport, watched: how often a responder starts, the threads it starts, the threads that send. */
    private static final class Watched implements BenchTransport {
        final BenchTransport real;
        final AtomicInteger responders = new AtomicInteger();
        final AtomicInteger sharedResponders = new AtomicInteger();
        final Set<Long> responderThreads = ConcurrentHashMap.newKeySet();
        final Set<Thread> sendingThreads = ConcurrentHashMap.newKeySet();
        final AtomicLong echoedAtClose = new AtomicLong();

        Watched(final String name) {
            this.real = Transports.byName(name);
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public String description() {
            return real.description();
        }

        @Override
        public String path() {
            return real.path();
        }

        @Override
        public boolean sharedResponder() {
            return real.sharedResponder();
        }

        @Override
        public Responder startResponder(final BenchConfig config) throws Exception {
            return watch(() -> real.startResponder(config));
        }

        @Override
        public Responder startSharedResponder(final BenchConfig config) throws Exception {
            sharedResponders.incrementAndGet();
            return watch(() -> real.startSharedResponder(config));
        }

        private Responder watch(final java.util.concurrent.Callable<Responder> start) throws Exception {
            final Set<Long> before = new HashSet<>(ThreadAllocation.liveThreadIds());
            final Responder responder = start.call();
            final Set<Long> started = new HashSet<>(ThreadAllocation.liveThreadIds());
            started.removeAll(before);
            responderThreads.addAll(started);
            responders.incrementAndGet();
            return new Responder() {
                @Override
                public long messages() {
                    return responder.messages();
                }

                @Override
                public void close() {
                    echoedAtClose.addAndGet(responder.messages());
                    responder.close();
                }
            };
        }

        @Override
        public PingClient connect(final BenchConfig config) throws Exception {
            return watch(real.connect(config));
        }

        @Override
        public List<PingClient> connectAll(final BenchConfig config, final int count) throws Exception {
            return real.connectAll(config, count).stream().map(this::watch).toList();
        }

        private PingClient watch(final PingClient client) {
            return new PingClient() {
                @Override
                public void send(final long sequence) {
                    sendingThreads.add(Thread.currentThread());
                    client.send(sequence);
                }

                @Override
                public long poll() {
                    return client.poll();
                }

                @Override
                public void close() {
                    client.close();
                }
            };
        }
    }

    private static RunSpec spec(final BenchTransport transport, final long rate, final boolean shared) {
        return spec(transport, rate, CLIENTS, shared);
    }

    private static RunSpec spec(final BenchTransport transport, final long rate, final int clients,
                                final boolean shared) {
        return new RunSpec("load", transport, 64, MESSAGES, WARMUP, rate, clients, true, -1, -1, false, "127.0.0.1")
            .withSharedResponder(shared);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"peregrine-tcp", "nio", "nio-selector", "netty", "peregrine-udp", "peregrine-shm",
        "peregrine-shm-backoff", "peregrine-shm-packed"})
    void shouldServeFiveClientsWithOneResponderThreadAndDriveThemFromOneClientThread(final String name) {
        final Watched transport = new Watched(name);

        final RunResult result = new BenchRunner(new Progress(System.err, true)).pingpong(spec(transport, 5000, true));

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(CLIENTS * MESSAGES);
        assertThat(result.rtt().getTotalCount()).isEqualTo(CLIENTS * MESSAGES);
        assertThat(transport.responders.get()).as("responders started").isEqualTo(1);
        assertThat(transport.sharedResponders.get()).as("of them, the shared topology's").isEqualTo(1);
        assertThat(transport.responderThreads).as("threads the responder started").hasSize(1);
        assertThat(transport.echoedAtClose.get()).as("echoes of the one responder")
            .isEqualTo(CLIENTS * (WARMUP + MESSAGES));
        assertThat(transport.sendingThreads).as("threads that sent").hasSize(1);
    }

    @Test
    void shouldKeepAResponderAndAThreadPerClientWhenAskedTo() {
        final Watched transport = new Watched("peregrine-tcp");

        final RunResult result = new BenchRunner(new Progress(System.err, true)).pingpong(spec(transport, 5000, false));

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(CLIENTS * MESSAGES);
        assertThat(transport.responders.get()).isEqualTo(CLIENTS);
        assertThat(transport.sharedResponders.get()).isZero();
        assertThat(transport.responderThreads).hasSize(CLIENTS);
        assertThat(transport.sendingThreads).hasSize(CLIENTS);
    }

    @Test
    void shouldReportATransportWithoutASharedResponderUnavailableAndSayWhatElseRunsIt() {
        final Watched transport = new Watched("peregrine-shm-futex");

        final RunResult result = new BenchRunner(new Progress(System.err, true)).pingpong(spec(transport, 5000, true));

        assertThat(result.status()).isEqualTo(RunResult.Status.UNAVAILABLE);
        assertThat(result.note()).isEqualTo("peregrine-shm-futex has no responder that serves several clients on one thread"
            + " (--topology per-client runs it with a responder per client)");
        assertThat(transport.responders.get()).isZero();
    }

    @Test
    void shouldRunOneClientOfATransportWithoutASharedResponder() {
        final Watched transport = new Watched("peregrine-shm-futex");

        final RunResult result = new BenchRunner(new Progress(System.err, true)).pingpong(spec(transport, 5000, 1, true));

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(MESSAGES);
        assertThat(transport.responders.get()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0} busySpin={1}")
    @CsvSource({"peregrine-tcp, false", "nio-selector, false", "nio-selector, true", "peregrine-udp, false",
        "peregrine-udp, true", "peregrine-shm, false", "peregrine-shm-backoff, false", "peregrine-shm-packed, false"})
    void shouldGiveFiveClientsAtFiveRatesTheirOwnCountsThroughOneResponder(final String name, final boolean busySpin)
        throws Exception {
        final Watched transport = new Watched(name);
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1",
            BenchConfig.PORTS_PER_RESPONDER), 64, RunEnvironment.freshFolder(), busySpin);
        final long[] rates = {50, 1000, 1500, 2000, 2500}; // the first far below the others
        final long[] counts = {50, 1000, 1500, 2000, 2500}; // one second of each schedule
        try (Responder responder = transport.startSharedResponder(config)) {
            assertThat(transport.responderThreads).as("threads the responder started").hasSize(1);
            final List<PingClient> clients = transport.connectAll(config, CLIENTS);
            try {
                final SharedClientLoop loop = new SharedClientLoop(clients.toArray(new PingClient[0]), rates, 2500, null,
                    false, transport.real.lossy());
                final org.HdrHistogram.Histogram[] histograms = new org.HdrHistogram.Histogram[CLIENTS];
                for (int k = 0; k < CLIENTS; k++) {
                    histograms[k] = PingPongLoop.newHistogram();
                }

                assertThat(loop.run(0, counts, histograms, 0)).isEqualTo(7050);
                assertThat(loop.lost()).isZero();

                for (int k = 0; k < CLIENTS; k++) {
                    assertThat(loop.completed(k)).isEqualTo(counts[k]);
                    assertThat(histograms[k].getTotalCount()).as("client %d", k).isEqualTo(counts[k]);
                    // its own schedule: its last message due (count - 1) of its own intervals after its first
                    assertThat(loop.intendedSendNs(k, (int)counts[k] - 1) - loop.intendedSendNs(k, 0)).as("client %d", k)
                        .isCloseTo((counts[k] - 1) * 1_000_000_000L / rates[k], org.assertj.core.data.Offset.offset(1L));
                }
                final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
                while (responder.messages() != 7050 && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // counted after each echo left: the last count may trail the last echo
                }
                assertThat(responder.messages()).isEqualTo(7050);
                assertThat(transport.sendingThreads).as("threads that sent").containsExactly(Thread.currentThread());
            } finally {
                for (final PingClient client : clients) {
                    client.close();
                }
            }
        } finally {
            RunEnvironment.deleteFolder(config.directory());
        }
    }
}
