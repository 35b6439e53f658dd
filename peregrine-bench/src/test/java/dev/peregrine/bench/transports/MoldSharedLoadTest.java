package dev.peregrine.bench.transports;

import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.run.PingPongLoop;
import dev.peregrine.bench.run.Progress;
import dev.peregrine.bench.run.RunEnvironment;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.run.SharedClientLoop;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.FreePorts;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.testkit.FileDescriptors;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench load --transport peregrine-mold} in the shared topology: one responder reactor thread follows every
 * client's session and echoes on a session of its own to each, the clients share one reactor on the caller's
 * thread. {@link SharedClientLoop} fails on an echo that is missing, repeated, out of order or another client's
 * (MoldUDP64 is not a lossy transport), so a completed run with the exact counts is every echo once and in order.
 * Nassau's MoldUDP64 ({@code nassau-mold}) runs the same way, one thread polling every client's sessions.
 */
@Timeout(120)
class MoldSharedLoadTest {
    private static final int CLIENTS = 4;
    private static final long[] RATES = {300, 2000, 2000, 2000}; // the first far below the others
    private static final long[] COUNTS = {150, 1000, 1000, 1000};
    /** Lossy runs measured at most until one allocates nothing on either thread. */
    private static final int MAX_RUNS = 8;

    private static long total() {
        long total = 0;
        for (final long count : COUNTS) {
            total += count;
        }
        return total;
    }

    private static BenchConfig config() {
        return new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", BenchConfig.PORTS_PER_RESPONDER), 64,
            RunEnvironment.freshFolder(), false);
    }

    /** Runs the clients of one shared responder at their rates and checks each one's echoes, and the responder's count. */
    private static void runAgainstOneResponder(final BenchTransport transport, final String responderThread)
        throws Exception {
        final BenchConfig config = config();
        final Responder responder = transport.startSharedResponder(config);
        List<PingClient> clients = List.of();
        try {
            clients = transport.connectAll(config, CLIENTS);
            assertThat(clients).hasSize(CLIENTS);
            final SharedClientLoop loop = new SharedClientLoop(clients.toArray(new PingClient[0]), RATES, 1000, null,
                false, transport.lossy());
            final Histogram[] histograms = new Histogram[CLIENTS];
            for (int k = 0; k < CLIENTS; k++) {
                histograms[k] = PingPongLoop.newHistogram();
            }

            assertThat(loop.run(0, COUNTS, histograms, 0)).isEqualTo(total());

            assertThat(transport.lossy()).isFalse();
            assertThat(loop.lost()).isZero();
            for (int k = 0; k < CLIENTS; k++) {
                assertThat(loop.completed(k)).as("client %d's echoes in order", k).isEqualTo(COUNTS[k]);
                assertThat(histograms[k].getTotalCount()).as("client %d's latencies", k).isEqualTo(COUNTS[k]);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (responder.messages() != total() && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // counted after each echo was offered: the last count may trail the last echo
            }
            assertThat(responder.messages()).as("messages the one responder echoed").isEqualTo(total());
            assertThat(Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(responderThread) && t.isAlive()).count())
                .as("responder threads").isEqualTo(1);
        } finally {
            for (final PingClient client : clients) {
                client.close();
            }
            responder.close();
            RunEnvironment.deleteFolder(config.directory());
        }
    }

    @Test
    void shouldEchoEveryMessageOnceAndInOrderToEachClientThroughOneResponderThread() throws Exception {
        runAgainstOneResponder(Transports.byName("peregrine-mold"), "peregrine-mold-responder");
    }

    @Test
    void shouldEchoEveryMessageOnceAndInOrderThroughOneResponderThreadWhenEachClientLosesATenthOfItsPackets()
        throws Exception {
        final LossyLoadTransport transport = new LossyLoadTransport(
            (RecoveringStreamTransport)Transports.byName("peregrine-mold"), new StreamLoss(0.1, 42));

        runAgainstOneResponder(transport, "peregrine-mold-responder");

        assertThat(transport.dropped()).as("packets the clients dropped, recovered by the responder").isPositive();
    }

    /**
     * Zero garbage under loss, recovery included, on the clients' thread and the responder's: whole lossy load runs
     * in the form of {@link AllocationMeter#firstCleanSet}, each run a set, until one allocates nothing on either
     * thread, at most {@value #MAX_RUNS} runs. What the first runs allocate in their measured window (traced with JFR,
     * docs/proof-notes.md, proof7) is HotSpot's, not ours, and not per drop: bursts of {@code String} +
     * {@code byte[]} pairs at the entry (bci -1) of a tier-3 compiled method, on the thread whose invocation counter
     * asks for its C2 compile, just before that compile starts. {@code CompileBroker::compile_method} resolves every
     * String literal of the method's class not yet resolved before a C2 compile ("to prevent allocation during
     * compilation"): {@code Reactor} 16, {@code UdpEndpoint} 17, {@code MoldUDP64Subscriber} 9,
     * {@code MoldUDP64Publisher} and {@code MoldUDP64RequestServer} 4 each, the same sizes in every JVM. Their count
     * is that of the literals, each once per JVM, so a later run is clean. The path of a drop (gap detected, request,
     * the client's request server answering, the reorder buffer drained) allocates nothing of its own: every run
     * drops tens to hundreds of packets, so one object per drop shows in every run and fails.
     */
    @Test
    void shouldCompleteASharedTopologyLoadRunWithEveryMessageOnceUnderLoss() {
        final AllocationMeter.CleanSets runs = new AllocationMeter.CleanSets(1, MAX_RUNS);
        LossyRun run;
        do {
            run = lossyRun(runs.sets());
        } while (runs.another(run.clientBytes() + run.responderBytes()));

        assertThat(new long[] {run.clientBytes(), run.responderBytes()})
            .as("bytes the clients' thread and the responder allocated in run %d of at most %d, %d packets dropped",
                runs.sets(), MAX_RUNS, run.dropped())
            .containsExactly(0L, 0L);
    }

    /** What one lossy run dropped and what each side allocated in its measured window. */
    private record LossyRun(long dropped, long clientBytes, long responderBytes) {
    }

    /** One shared-topology load run at 5 % loss with its sockets above descriptor 256, its counts checked. */
    private static LossyRun lossyRun(final int number) {
        final LossyLoadTransport transport = new LossyLoadTransport(
            (RecoveringStreamTransport)Transports.byName("peregrine-mold"), new StreamLoss(0.05, 7));
        final RunSpec spec = new RunSpec("load", transport, 64, 1_000, 200, 2_000, CLIENTS, true, -1, -1, false,
            "127.0.0.1").withSharedResponder(true);

        final RunResult result;
        // the sockets above descriptor 256, as a server's are: where the JDK's selector boxes each ready descriptor
        // unless the JVM's Integer cache covers it (SelectorBoxing; the test JVM has the launcher's option)
        try (FileDescriptors.Held low = FileDescriptors.holdBelow(256)) {
            result = new BenchRunner(new Progress(System.err, true)).pingpong(spec);
            assertThat(low.count()).as("descriptors held below 256").isPositive();
        }

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(CLIENTS * 1_000L);
        assertThat(result.rtt().getTotalCount()).isEqualTo(CLIENTS * 1_000L);
        assertThat(transport.dropped()).isPositive();
        // The JDK's DatagramChannel.receive decodes a sender's address anew when it differs from the last one on that
        // socket; each socket here hears one peer (the subscriber asks and is answered on a socket of its own), so
        // it decodes once however many packets were dropped, in the warm-up: at most one per socket that can hear a
        // peer (per client, its feed, request and request-server sockets on either side, and the responder's
        // rendezvous).
        assertThat(transport.responders()).hasSize(1);
        final long responderChanges = ((PeregrineMoldSharedResponder)transport.responders().get(0)).senderAddressChanges();
        final long clientChanges = transport.clients().stream()
            .map(client -> ((PeregrineMoldClientGroup.Member)client).group()).distinct()
            .mapToLong(PeregrineMoldClientGroup::senderAddressChanges).sum();
        final long measured = result.messages();
        final long clientBytes = Math.round(result.clientAllocatedPerMessage() * measured);
        final long responderBytes = Math.round(result.responderAllocatedPerMessage() * measured);
        System.out.println("MoldSharedLoadTest run " + number + ": " + transport.dropped() + " packets dropped; client "
            + clientBytes + " bytes, " + clientChanges + " sender changes; responder " + responderBytes + " bytes, "
            + responderChanges + " sender changes");
        assertThat(clientChanges).as("sender-address decodes on the client thread, %d packets dropped",
            transport.dropped()).isBetween(1L, 3L * CLIENTS);
        assertThat(responderChanges).as("sender-address decodes on the responder thread, %d packets dropped",
            transport.dropped()).isBetween(1L, 1 + 3L * CLIENTS);
        return new LossyRun(transport.dropped(), clientBytes, responderBytes);
    }

    @Test
    void shouldEchoEveryMessageOnceAndInOrderToEachNassauClientThroughOneResponderThread() throws Exception {
        runAgainstOneResponder(Transports.byName("nassau-mold"), "nassau-mold-responder");
    }

    @Test
    void shouldCompleteASharedTopologyLoadRunOfNassauWithEveryMessageOnce() {
        final RunSpec spec = new RunSpec("load", Transports.byName("nassau-mold"), 64, 1_000, 200, 2_000, CLIENTS, true,
            -1, -1, false, "127.0.0.1").withSharedResponder(true);

        final RunResult result = new BenchRunner(new Progress(System.err, true)).pingpong(spec);

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(CLIENTS * 1_000L);
        assertThat(result.rtt().getTotalCount()).isEqualTo(CLIENTS * 1_000L);
    }
}
