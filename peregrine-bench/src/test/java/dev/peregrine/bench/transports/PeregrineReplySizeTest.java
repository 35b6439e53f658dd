package dev.peregrine.bench.transports;

import dev.peregrine.testkit.Needs;
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

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code --reply-size} on every Peregrine adapter: a 16-byte message answered by a 1024-byte reply carrying its
 * sequence, and a client that refuses a reply of another length than it was told.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeregrineReplySizeTest {
    private static final int ROUND_TRIPS = 300;

    @TempDir
    Path dir;

    private BenchConfig config(final boolean busySpin) throws Exception {
        return new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", 6), 16, dir, busySpin, 1024);
    }

    /** Six consecutive free ports, TCP and UDP (MoldUDP64 takes six). */
    @ParameterizedTest(name = "{0} busySpin={1}")
    @CsvSource({"peregrine-tcp, false", "peregrine-tcp, true", "peregrine-shm, true", "peregrine-shm-packed, true",
        "peregrine-shm-futex, false", "peregrine-shm-backoff, false", "peregrine-udp, false", "peregrine-udp, true",
        "peregrine-mold, false"})
    void shouldAnswerSixteenBytesWithAKilobyteCarryingTheSequence(final String name, final boolean busySpin)
        throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = config(busySpin);
        Needs.platform(name + " on Linux loopback", () -> transport.unavailableReason(config));
        assertThat(transport.supportsReplySize()).isTrue();
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            for (long sequence = 0; sequence < ROUND_TRIPS; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence); // the client checks the length is 1024
            }
            awaitCount(responder, ROUND_TRIPS);
        }
    }

    /** Jocket's scenario: the 4-byte ping carries its sequence's low 32 bits, which wrap to 0 halfway through. */
    @ParameterizedTest(name = "{0} busySpin={1}")
    @CsvSource({"peregrine-tcp, false", "peregrine-tcp, true", "peregrine-shm, true", "peregrine-shm-packed, true",
        "peregrine-shm-futex, false", "peregrine-shm-backoff, false", "peregrine-udp, false", "peregrine-udp, true",
        "peregrine-mold, false"})
    void shouldAnswerFourBytesWithAKilobyteCarryingTheLow32BitsOfTheSequence(final String name, final boolean busySpin)
        throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", 6), 4, dir, busySpin, 1024);
        Needs.platform(name + " on Linux loopback", () -> transport.unavailableReason(config));
        final long first = (1L << 32) - ROUND_TRIPS / 2;
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            for (long sequence = first; sequence < first + ROUND_TRIPS; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence); // the client checks the length is 1024
            }
            awaitCount(responder, ROUND_TRIPS);
        }
    }

    /** Some responders count an answer just after it left: the count may trail the client by one answer. */
    private static void awaitCount(final Responder responder, final long expected) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (responder.messages() != expected && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(responder.messages()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"peregrine-tcp", "peregrine-shm", "peregrine-udp", "peregrine-mold"})
    void shouldRefuseAReplyOfAnotherLengthThanConfigured(final String name) throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = config(false);
        Needs.platform(name + " on Linux loopback", () -> transport.unavailableReason(config));
        // the client is told to expect 2048 bytes (so its frame limits take the 1024 the responder sends)
        try (Responder responder = transport.startResponder(config);
             PingClient client = transport.connect(config.withReplySize(2048))) {
            client.send(5);
            assertThatThrownBy(client::receive).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("length=1024").hasMessageContaining("sequence=5")
                .hasMessageContaining("expected replySize=2048");
            awaitCount(responder, 1);
        }
    }

    /** The oracle is a plain blocking socket: four bytes out, a kilobyte back that starts with those four. */
    @Test
    void shouldPutAKilobyteFrameStartingWithThePingOnTheWireForAFourBytePing() throws Exception {
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", 6), 4, dir, false, 1024);
        try (Responder responder = new PeregrineTcpBench().startResponder(config); Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(config.host(), config.port()));
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final byte[][] pings = {{1, 2, 3, 4}, {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}, {0, 0, 0, 0}};
            for (final byte[] ping : pings) {
                out.writeInt(4); // big-endian length, then the payload
                out.write(ping);
                out.flush();

                assertThat(in.readInt()).isEqualTo(1024);
                final byte[] reply = new byte[1024];
                in.readFully(reply);
                assertThat(java.util.Arrays.copyOf(reply, 4)).containsExactly(ping);
            }
            assertThat(in.available()).isZero();
            assertThat(responder.messages()).isEqualTo(3);
        }
    }

    /** The oracle is a plain blocking socket reading the frame as the wire layout says, not the adapter's client. */
    @Test
    void shouldPutAKilobyteFrameWithTheSequenceOnTheWireForASixteenBytePing() throws Exception {
        final BenchConfig config = config(false);
        try (Responder responder = new PeregrineTcpBench().startResponder(config); Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(config.host(), config.port()));
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            for (long sequence = 40; sequence < 43; sequence++) {
                final ByteBuffer ping = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(0, sequence);
                out.writeInt(16); // big-endian length, then the payload
                out.write(ping.array());
                out.flush();

                assertThat(in.readInt()).isEqualTo(1024);
                final byte[] reply = new byte[1024];
                in.readFully(reply);
                assertThat(ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getLong(0)).isEqualTo(sequence);
            }
            assertThat(in.available()).isZero();
            assertThat(responder.messages()).isEqualTo(3);
        }
    }
}
