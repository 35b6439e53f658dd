package dev.peregrine.bench.transports;

import dev.peregrine.bench.run.BenchRunner;
import dev.peregrine.bench.run.PingPongLoop;
import dev.peregrine.bench.run.Progress;
import dev.peregrine.bench.run.RunEnvironment;
import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.run.SharedClientLoop;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.FreePorts;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench load --transport peregrine-mold --loss P --seed S}: the clients' publishers drop packets, the
 * responder recovers them from each client's request server, and every message is echoed exactly once, in order
 * (the loop fails on a duplicate, a reordering or a missing echo: MoldUDP64 is not a lossy transport).
 */
@Timeout(120)
class MoldLoadTest {
    private static final int CLIENTS = 3;

    private static LossyLoadTransport mold(final double loss, final long seed) {
        return new LossyLoadTransport((RecoveringStreamTransport)Transports.byName("peregrine-mold"),
            new StreamLoss(loss, seed));
    }

    @Test
    void shouldEchoEveryMessageExactlyOnceThroughOneResponderWhenTheClientsLoseATenthOfTheirPackets() throws Exception {
        final LossyLoadTransport transport = mold(0.1, 42);
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1",
            BenchConfig.PORTS_PER_RESPONDER * CLIENTS), 64, RunEnvironment.freshFolder(), false);
        final List<BenchConfig> configs = RunEnvironment.forResponders(config, CLIENTS);
        final long[] rates = {200, 2000, 2000}; // the first far below the others, on a schedule of its own
        final long[] counts = {100, 1000, 1000};
        final List<Responder> responders = new ArrayList<>();
        final List<PingClient> clients = new ArrayList<>();
        try {
            for (final BenchConfig each : configs) {
                responders.add(transport.startResponder(each));
                clients.add(transport.connect(each));
            }
            final SharedClientLoop loop = new SharedClientLoop(clients.toArray(new PingClient[0]), rates, 1000, null,
                false, transport.lossy());
            final Histogram[] histograms = {PingPongLoop.newHistogram(), PingPongLoop.newHistogram(),
                PingPongLoop.newHistogram()};

            assertThat(loop.run(0, counts, histograms, 0)).isEqualTo(2100);

            assertThat(transport.lossy()).isFalse();
            assertThat(transport.dropped()).as("packets the clients dropped").isPositive();
            for (int k = 0; k < CLIENTS; k++) {
                assertThat(loop.completed(k)).isEqualTo(counts[k]);
                assertThat(histograms[k].getTotalCount()).as("client %d's echoes", k).isEqualTo(counts[k]);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (responders.get(k).messages() != counts[k] && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // counted after each echo left: the last count may trail the last echo
                }
                assertThat(responders.get(k).messages()).as("messages responder %d echoed", k).isEqualTo(counts[k]);
            }
        } finally {
            for (final PingClient client : clients) {
                client.close();
            }
            for (final Responder responder : responders) {
                responder.close();
            }
            RunEnvironment.deleteFolder(config.directory());
        }
    }

    @Test
    void shouldCompleteALoadRunPerClientWithEveryMessageOnceUnderLoss() {
        final LossyLoadTransport transport = mold(0.05, 7);
        final RunSpec spec = new RunSpec("load", transport, 64, 1_000, 200, 2_000, CLIENTS, true, -1, -1, false,
            "127.0.0.1").withSharedResponder(false);

        final RunResult result = new BenchRunner(new Progress(System.err, true)).pingpong(spec);

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(CLIENTS * 1_000L);
        assertThat(result.rtt().getTotalCount()).isEqualTo(CLIENTS * 1_000L);
        assertThat(result.peregrine()).isTrue();
        assertThat(transport.dropped()).isPositive();
    }
}
