package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.function.IntUnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A 4-byte ping carries only its sequence's low 32 bits, yet the loop still tells a wrong or stale pong from the
 * one it waits for. The pongs come from a hand-written responder (a plain socket speaking the TCP peers' frames:
 * a big-endian length, then the payload) that answers each ping with 1024 bytes whose first four it chooses; the
 * client is the socket peer's own, so its decoding is what is checked.
 */
@Timeout(30)
class PingPongLoopShortSequenceTest {
    /** Three sequences before 2^32 and three after: the low 32 bits wrap to 0 in the middle. */
    private static final long FIRST = (1L << 32) - 3;
    private static final int REPLY_SIZE = 1024;

    @TempDir
    Path directory;

    private ServerSocket server;
    private Thread responder;
    private PingClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        server.close();
        responder.join(5_000);
    }

    @Test
    void shouldMeasureEveryRoundTripWhoseFourBytePongCarriesThePing() throws Exception {
        final PingPongLoop loop = new PingPongLoop(connect(field -> field), null, false);
        final Histogram histogram = PingPongLoop.newHistogram();

        assertThat(loop.oneInFlight(FIRST, 6, histogram)).isEqualTo(6);
        assertThat(histogram.getTotalCount()).isEqualTo(6);
    }

    @Test
    void shouldFailOnAStalePongOfTheMessageBefore() throws Exception {
        final int[] previous = {(int) (FIRST - 1)};
        final PingPongLoop loop = new PingPongLoop(connect(field -> {
            final int stale = previous[0];
            previous[0] = field;
            return stale;
        }), null, false);

        assertThatThrownBy(() -> loop.oneInFlight(FIRST, 6, PingPongLoop.newHistogram()))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("echo out of order: expected sequence=4294967293 got=4294967292");
    }

    @Test
    void shouldFailOnAPongOfAnotherSequenceAfterThe32BitWrap() throws Exception {
        // right until the low bits wrap to 0, then one ahead: 2^32 is answered as 2^32 + 1
        final PingPongLoop loop = new PingPongLoop(connect(field -> Integer.compareUnsigned(field, 0xFFFF_FFF0) >= 0
            ? field : field + 1), null, false);

        assertThatThrownBy(() -> loop.oneInFlight(FIRST, 6, PingPongLoop.newHistogram()))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("echo out of order: expected sequence=4294967296 got=4294967297");
    }

    @Test
    void shouldFailOnAWrongPongAtAFixedRateToo() throws Exception {
        final PingPongLoop loop = new PingPongLoop(connect(field -> field ^ 0x10), null, false);

        assertThatThrownBy(() -> loop.atRate(FIRST, 6, 1_000, new long[6], PingPongLoop.newHistogram()))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("echo out of order: expected sequence=4294967293 got=4294967277");
    }

    /**
     * Starts the hand-written responder and connects the socket peer's client to it.
     *
     * @param pong the first four bytes of each pong (little-endian int) from those of its ping
     */
    private PingClient connect(final IntUnaryOperator pong) throws Exception {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        responder = new Thread(() -> answer(pong), "test-short-sequence-responder");
        responder.setDaemon(true);
        responder.start();
        final BenchConfig config = new BenchConfig("127.0.0.1", server.getLocalPort(), 4, directory, false, REPLY_SIZE);
        client = Transports.byName("socket").connect(config);
        return client;
    }

    private void answer(final IntUnaryOperator pong) {
        try (Socket socket = server.accept()) {
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            final byte[] ping = new byte[4];
            while (true) {
                assertThat(in.readInt()).isEqualTo(4);
                in.readFully(ping);
                final int field = ByteBuffer.wrap(ping).order(ByteOrder.LITTLE_ENDIAN).getInt();
                final ByteBuffer reply = ByteBuffer.allocate(REPLY_SIZE).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(0, pong.applyAsInt(field));
                out.writeInt(REPLY_SIZE);
                out.write(reply.array());
                out.flush();
            }
        } catch (final IOException ended) {
            // the client closed the connection, or the test closed the server
        }
    }
}
