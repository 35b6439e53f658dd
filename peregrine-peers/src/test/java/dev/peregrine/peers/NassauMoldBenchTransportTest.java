package dev.peregrine.peers;

import com.paritytrading.nassau.moldudp64.MoldUDP64DownstreamPacket;
import com.paritytrading.nassau.moldudp64.MoldUDP64Server;
import dev.peregrine.peers.nassau.NassauMoldBenchTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Nassau's MoldUDP64 as a peer. Not the shared conformance suite: a unicast MoldUDP64 session publishes to
 * one client's feed, so several clients need sessions each (the shared responder makes them when each client
 * introduces itself), and a stream sender must go on serving re-requests after its last message.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NassauMoldBenchTransportTest {
    private static final int MESSAGES = 20_000;

    @TempDir
    Path directory;

    private BenchConfig config(final int size) throws Exception {
        return new BenchConfig("127.0.0.1", BenchTransportConformanceTest.freePort(), size, directory, false);
    }

    @Test
    void shouldEchoEverySequenceInOrderAndCheckTheReplyLength() throws Exception {
        final NassauMoldBenchTransport transport = new NassauMoldBenchTransport();
        final BenchConfig config = config(32).withReplySize(512);
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            for (long sequence = 0; sequence < 2000; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence);
            }
            assertThat(client.poll()).isEqualTo(-1);
            assertThat(responder.messages()).isEqualTo(2000);
        }
        final BenchConfig mismatched = config(32).withReplySize(512);
        try (Responder responder = transport.startResponder(mismatched);
             PingClient client = transport.connect(mismatched.withReplySize(32))) {
            client.send(7);
            assertThatThrownBy(client::receive).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("length=512").hasMessageContaining("sequence=7");
            assertThat(responder.messages()).isEqualTo(1);
        }
    }

    @Test
    void shouldEchoEachClientsSequencesInOrderThroughOneSharedResponderThread() throws Exception {
        final NassauMoldBenchTransport transport = new NassauMoldBenchTransport();
        final BenchConfig config = config(32);
        final int clients = 3;
        final int rounds = 500;
        assertThat(transport.sharedResponder()).isTrue();
        try (Responder responder = transport.startSharedResponder(config)) {
            final List<PingClient> connected = transport.connectAll(config, clients);
            try {
                assertThat(Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("nassau-mold-responder") && t.isAlive()).count()).isEqualTo(1);
                final List<Long> wrong = new ArrayList<>();
                for (long round = 0; round < rounds; round++) {
                    for (int k = 0; k < clients; k++) {
                        connected.get(k).send((long)k << 32 | round);
                    }
                    for (int k = 0; k < clients; k++) { // one thread polls them all, as bench load's client thread does
                        final long echo = connected.get(k).receive();
                        if (echo != ((long)k << 32 | round) && wrong.size() < 10) {
                            wrong.add(echo);
                        }
                    }
                }

                assertThat(wrong).as("echoes out of order, repeated or another client's").isEmpty();
                for (final PingClient client : connected) {
                    assertThat(client.poll()).isEqualTo(-1);
                }
                assertThat(responder.messages()).isEqualTo((long)clients * rounds);
            } finally {
                for (final PingClient client : connected) {
                    client.close();
                }
            }
        }
    }

    @Test
    void shouldKeepTheResponderServingWhenItsClientClosesFirst() throws Exception {
        final NassauMoldBenchTransport transport = new NassauMoldBenchTransport();
        final BenchConfig config = config(32);
        try (Responder responder = transport.startResponder(config)) {
            final Thread thread = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("nassau-mold-responder") && t.isAlive()).findFirst().orElseThrow();
            try (PingClient client = transport.connect(config)) {
                client.send(1);
                assertThat(client.receive()).isEqualTo(1);
            }
            // the feed's port is closed now. Go on with the PING session from a publisher of the test's own: each
            // echo goes to the closed port and brings back ICMP port unreachable, which the responder's next send
            // on that socket meets; it answers the next message only if it took that in its stride
            try (DatagramChannel channel = DatagramChannel.open()) {
                channel.connect(new InetSocketAddress("127.0.0.1", config.port()));
                final MoldUDP64Server ping = new MoldUDP64Server(channel, "PING");
                ping.setNextSequenceNumber(2);
                final MoldUDP64DownstreamPacket packet = new MoldUDP64DownstreamPacket();
                for (long sequence = 2; sequence <= 4; sequence++) {
                    packet.clear();
                    packet.put(ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN).putLong(0, sequence));
                    ping.send(packet);
                    awaitMessages(responder, sequence, thread);
                }
            }

            assertThat(thread.isAlive()).as("the responder's thread after its client left").isTrue();
            assertThat(responder.messages()).isEqualTo(4);
        }
    }

    /** Waits for the responder to have taken {@code count} messages; the deadline only fails a hung wait. */
    private static void awaitMessages(final Responder responder, final long count, final Thread thread)
        throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (responder.messages() < count && thread.isAlive() && System.nanoTime() - deadline < 0) {
            Thread.sleep(1); // polls for the event; the time decides nothing
        }
        assertThat(responder.messages()).as("messages the responder took (its thread %s)",
            thread.isAlive() ? "alive" : "dead").isEqualTo(count);
    }

    @Test
    void shouldDeliverEveryStreamSequenceExactlyOnceInOrderWhenTheServerDropsPackets() throws Exception {
        final NassauMoldBenchTransport transport = new NassauMoldBenchTransport();
        final BenchConfig config = config(64);
        final List<Long> wrong = new ArrayList<>();
        final long[] next = {0};
        final long[] recoveries = {0};
        try (RecoveringStreamReceiver receiver = transport.startStreamReceiver(config);
             RecoveringStreamSender sender = transport.connectStreamSender(config, new StreamLoss(0.05, 11))) {
            receiver.recoveryLatencies(nanos -> recoveries[0]++);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
            long sequence = 0;
            while (next[0] < MESSAGES && System.nanoTime() < deadline) {
                for (int i = 0; i < 64 && sequence < MESSAGES; i++) {
                    assertThat(sender.offer(sequence++)).isTrue();
                }
                sender.flush();
                sender.service();
                receiver.poll(received -> {
                    if (received != next[0] && wrong.size() < 10) {
                        wrong.add(received);
                    }
                    next[0] = received + 1;
                });
            }

            assertThat(wrong).as("sequences out of order or repeated").isEmpty();
            assertThat(next[0]).isEqualTo(MESSAGES);
            assertThat(sender.packetsDropped()).isPositive();
            assertThat(recoveries[0]).as("gap-fill episodes").isPositive();
        }
    }
}
