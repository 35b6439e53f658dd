package dev.peregrine.bench.transports;

import dev.peregrine.bench.run.RunEnvironment;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench load --respond-every N} on Peregrine TCP's responder, in this JVM over loopback: it reads every
 * message and answers only those whose message number (the low 32 bits of the sequence) is a multiple of N, in
 * order, for one client or for several on one reactor.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeregrineRespondEveryTest {
    private static final int EVERY = 10;
    private static final int MESSAGES = 2_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "shared={0} size={1} replySize={2}")
    @CsvSource({"false, 64, 64", "false, 16, 64", "true, 64, 64"})
    void shouldAnswerOnlyEveryTenthMessageOfEachClientInOrder(final boolean shared, final int size, final int replySize)
        throws Exception {
        final BenchTransport transport = Transports.byName("peregrine-tcp");
        assertThat(transport.supportsRespondEvery()).isTrue();
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1",
            BenchConfig.PORTS_PER_RESPONDER), size, dir, false, replySize).withRespondEvery(EVERY);
        final int count = shared ? 2 : 1;
        try (Responder responder = shared ? transport.startSharedResponder(config) : transport.startResponder(config)) {
            final List<PingClient> clients = shared ? transport.connectAll(config, count) : List.of(transport.connect(config));
            try {
                for (int k = 0; k < count; k++) {
                    final long high = (long)(k + 5) << 32; // a client index in the high bits, as bench load sends them
                    for (long n = 0; n < MESSAGES; n++) {
                        clients.get(k).send(high | n);
                    }
                    for (long n = 0; n < MESSAGES; n += EVERY) { // 0, 10, 20, ...: written out, not asked of the code
                        assertThat(clients.get(k).receive()).as("client %d", k).isEqualTo(high | n);
                    }
                    clients.get(k).send(high | (MESSAGES + 1)); // not answered
                    clients.get(k).send(high | (MESSAGES + EVERY)); // answered: anything else would come before it
                    assertThat(clients.get(k).receive()).isEqualTo(high | (MESSAGES + EVERY));
                    assertThat(clients.get(k).poll()).isEqualTo(-1);
                }
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (responder.messages() != count * (MESSAGES + 2L) && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // counted after each answer left: the last count may trail the last answer
                }
                assertThat(responder.messages()).as("messages read, answered or not").isEqualTo(count * (MESSAGES + 2L));
            } finally {
                for (final PingClient client : clients) {
                    client.close();
                }
            }
        }
    }

    @Test
    void shouldSayWhichPeregrineTransportsAnswerEveryNthMessage() {
        // the others are reported unavailable for --respond-every, never run answering every message
        for (final String name : List.of("peregrine-udp", "peregrine-shm", "peregrine-mold")) {
            assertThat(Transports.byName(name).supportsRespondEvery()).as(name).isFalse();
        }
    }
}
