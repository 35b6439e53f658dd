package dev.peregrine.peers;

import dev.peregrine.peers.nio.NioSelectorBenchTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicReference;

import dev.peregrine.testkit.AllocationMeter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conformance suite through the single-selector responder (blocking {@code select()} unless a test spins), and
 * a client that reads slower than it writes, so that the responder's echoes meet a full socket and must wait for
 * OP_WRITE; and no allocation on the responder's thread in steady state.
 */
class NioSelectorBenchTransportTest extends BenchTransportConformanceTest {

    @Override
    BenchTransport transport() {
        return new NioSelectorBenchTransport();
    }

    /**
     * Answers far larger than the loopback socket buffers of both directions hold (a few MiB each): 24 MiB of echoes
     * in place, or 24 MiB of 1 KiB answers gathered per connection.
     */
    @ParameterizedTest(name = "size={0} replySize={1} frames={2}")
    @CsvSource({"256, 256, 98304", "16, 1024, 24576"})
    void shouldAnswerEveryFrameInOrderWhenTheClientFallsBehindTheResponder(final int size, final int replySize,
                                                                          final int frames) throws Exception {
        final BenchConfig config = config(size).withReplySize(replySize);
        try (Responder responder = transport().startResponder(config);
             Socket socket = new Socket(config.host(), config.port())) {
            socket.setTcpNoDelay(true);
            final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            // written by hand, not by the code under test: [int32 big-endian length][int64 little-endian sequence]...
            final Thread writer = new Thread(() -> {
                try {
                    final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(),
                        64 * 1024));
                    final byte[] padding = new byte[size - Long.BYTES];
                    for (long sequence = 0; sequence < frames; sequence++) {
                        out.writeInt(size);
                        out.writeLong(Long.reverseBytes(sequence));
                        out.write(padding);
                    }
                    out.flush();
                } catch (final IOException | RuntimeException ex) {
                    writerFailure.set(ex);
                }
            }, "burst-writer");
            writer.start();
            // read in small pieces: the responder's answers outrun this reader and fill the socket
            final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 512));
            final byte[] padding = new byte[replySize - Long.BYTES];
            for (long sequence = 0; sequence < frames; sequence++) {
                final int length = in.readInt();
                if (length != replySize) {
                    assertThat(length).as("length of answer %d", sequence).isEqualTo(replySize);
                }
                final long echoed = Long.reverseBytes(in.readLong());
                if (echoed != sequence) { // one assertion per frame would cost more than the burst
                    assertThat(echoed).as("answer %d", sequence).isEqualTo(sequence);
                }
                in.readFully(padding);
            }
            writer.join(10_000);
            assertThat(writerFailure.get()).isNull();
            assertThat(writer.isAlive()).isFalse();
            assertThat(responder.messages()).isEqualTo(frames);
        }
    }

    /**
     * Selecting and echoing allocate nothing on the responder's thread, blocking or spinning: each ready key reaches a
     * consumer held in a field, with no selected-key set to iterate. Measured from this thread on the responder's.
     */
    @ParameterizedTest(name = "busySpin={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void shouldAllocateNothingOnTheResponderThreadInSteadyState(final boolean busySpin) throws Exception {
        final BenchConfig config = config(256, busySpin);
        try (Responder responder = transport().startResponder(config); PingClient client = transport().connect(config)) {
            final long responderThread = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals("nio-selector-responder")).findFirst().orElseThrow()
                .threadId();
            long sequence = 0;
            for (int i = 0; i < 20_000; i++) { // warm-up: the JIT compiles the loop
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence++);
            }
            long allocated = -1;
            for (int set = 0; set < 5 && allocated != 0; set++) { // a JIT event may still allocate once in a set
                final long before = AllocationMeter.allocatedBytes(responderThread);
                for (int i = 0; i < 5_000; i++) {
                    client.send(sequence);
                    assertThat(client.receive()).isEqualTo(sequence++);
                }
                allocated = AllocationMeter.allocatedBytes(responderThread) - before;
            }
            assertThat(allocated).as("bytes allocated by the responder's thread in 5000 round trips").isZero();
            assertThat(responder.messages()).isEqualTo(sequence);
        }
    }
}
