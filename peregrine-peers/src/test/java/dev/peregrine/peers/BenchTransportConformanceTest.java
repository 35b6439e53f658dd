package dev.peregrine.peers;

import dev.peregrine.peers.support.FreePorts;
import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The suite every peer passes (JCTools' QueueSanityTest style): echoes in order at two sizes, a one-way
 * stream that delivers each sequence exactly once and in order, and a clean close that leaves no thread
 * behind. Each subclass names one transport.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class BenchTransportConformanceTest {
    static final int ROUND_TRIPS = 5_000;
    static final int STREAM_MESSAGES = 50_000;
    /** Messages offered between two flushes; 50,000 is not a multiple, so the last batch ends with the final flush. */
    static final int STREAM_BATCH = 256;
    static final int BUSY_SPIN_ROUND_TRIPS = 500;
    /** Round trips of each short-message case, half of them before 2^32 and half after. */
    static final int SHORT_ROUND_TRIPS = 200;

    @TempDir
    Path directory;

    private Set<Thread> threadsBefore;

    /**
     * The transport under test.
     *
     * @return a fresh instance
     */
    abstract BenchTransport transport();

    @BeforeEach
    void rememberThreads() {
        threadsBefore = Thread.getAllStackTraces().keySet();
    }

    @AfterEach
    void shouldLeaveNoThreadOfItsOwnBehind() throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> leaked = newThreads();
        while (!leaked.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            leaked = newThreads();
        }
        assertThat(leaked).as("threads started by the transport and still alive after close").isEmpty();
    }

    private List<String> newThreads() {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.isAlive() && !threadsBefore.contains(thread))
            .filter(thread -> !thread.getName().startsWith("junit-"))
            .filter(thread -> !isSharedLibraryThread(thread.getName()))
            .map(Thread::getName)
            .sorted()
            .collect(Collectors.toList());
    }

    /**
     * Threads a library keeps for the whole JVM rather than per connection (they are not leaks of a close).
     *
     * @param name the thread's name
     * @return true to ignore it
     */
    boolean isSharedLibraryThread(final String name) {
        return false;
    }

    BenchConfig config(final int size) throws IOException {
        return config(size, busySpin());
    }

    /**
     * Whether the waiting sides spin in most tests (one test always spins). Correctness does not depend on it;
     * on a shared two-core machine three spinning threads take turns of milliseconds, so transports with a
     * spinning third thread back off here.
     *
     * @return false unless overridden
     */
    boolean busySpin() {
        return false;
    }

    BenchConfig config(final int size, final boolean busySpin) throws IOException {
        return new BenchConfig("127.0.0.1", freePort(), size, directory, busySpin);
    }

    /**
     * The one skip of a transport on this machine: a reason it gives for its configuration here (Aeron UDP will not
     * busy-spin on fewer cores than its three spinning threads need), which no install changes, so it skips
     * everywhere, CI included, naming the reason.
     */
    static void requireAvailable(final BenchTransport transport, final BenchConfig config) {
        final String reason = transport.unavailableReason(config);
        Needs.configuration(transport.name() + " with busySpin=" + config.busySpin() + " size=" + config.size(),
            reason == null, reason);
    }

    static int freePort() {
        return FreePorts.block("127.0.0.1", BenchConfig.PORTS_PER_RESPONDER);
    }

    @ParameterizedTest(name = "size {0}")
    @ValueSource(ints = {32, 256})
    void shouldEchoEverySequenceInOrder(final int size) throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(size);
        requireAvailable(transport, config);
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            for (long sequence = 0; sequence < ROUND_TRIPS; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence);
            }
            assertThat(client.poll()).isEqualTo(-1);
            assertThat(responder.messages()).isEqualTo(ROUND_TRIPS);
        }
    }

    @Test
    void shouldEchoInOrderWhileBusySpinning() throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(256, true);
        requireAvailable(transport, config);
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            for (long sequence = 0; sequence < BUSY_SPIN_ROUND_TRIPS; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence);
            }
            assertThat(responder.messages()).isEqualTo(BUSY_SPIN_ROUND_TRIPS);
        }
    }

    @Test
    void shouldAnswerASmallMessageWithALargeReplyCarryingItsSequence() throws Exception {
        final BenchTransport transport = transport();
        assertThat(transport.supportsReplySize()).as("every peer supports --reply-size").isTrue();
        final BenchConfig config = config(16).withReplySize(1024);
        requireAvailable(transport, config);
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            // the client checks every reply's length against the 1024 configured: a 16-byte echo would fail here
            for (long sequence = 0; sequence < BUSY_SPIN_ROUND_TRIPS; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence);
            }
            assertThat(client.poll()).isEqualTo(-1);
            assertThat(responder.messages()).isEqualTo(BUSY_SPIN_ROUND_TRIPS);
        }
    }

    /**
     * Jocket's scenario and its neighbours: a message or reply shorter than 8 bytes carries the sequence's low 32
     * bits; the sequences cross 2^32, so a client that returned the echoed bits as they came would fail here.
     */
    @ParameterizedTest(name = "size={0} replySize={1}")
    @org.junit.jupiter.params.provider.CsvSource({"4, 1024", "4, 4", "1024, 4", "7, 7"})
    void shouldCarryTheLow32BitsOfTheSequenceWhenAMessageOrReplyIsShorterThanEightBytes(final int size,
                                                                                         final int replySize)
        throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(size).withReplySize(replySize);
        requireAvailable(transport, config);
        final long first = (1L << 32) - SHORT_ROUND_TRIPS / 2;
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            for (long sequence = first; sequence < first + SHORT_ROUND_TRIPS; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence); // and the client checked the reply's length
            }
            assertThat(client.poll()).isEqualTo(-1);
            assertThat(responder.messages()).isEqualTo(SHORT_ROUND_TRIPS);
        }
    }

    @Test
    void shouldReturnAnOlderEchoOfAFourBytePingAsItsOwnSequenceNotTheOneLastSent() throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(4).withReplySize(1024);
        requireAvailable(transport, config);
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            // two in flight across 2^32: the first echo is a stale one for a loop that expects the last sequence sent
            client.send((1L << 32) - 1);
            client.send(1L << 32);
            assertThat(client.receive()).isEqualTo((1L << 32) - 1);
            assertThat(client.receive()).isEqualTo(1L << 32);
            assertThat(client.poll()).isEqualTo(-1);
            assertThat(responder.messages()).isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "size={0} replySize={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64, 64", "16, 64"})
    void shouldAnswerOnlyEveryTenthMessageInOrderWhenAskedTo(final int size, final int replySize) throws Exception {
        final BenchTransport transport = transport();
        assumeTrue(transport.supportsRespondEvery(), () -> transport.name() + " does not answer every Nth message");
        final BenchConfig config = config(size).withReplySize(replySize).withRespondEvery(10);
        requireAvailable(transport, config);
        final long client = 3L << 32; // a client index in the high bits, as bench load's shared loop sends them
        try (Responder responder = transport.startResponder(config); PingClient pinger = transport.connect(config)) {
            for (long n = 0; n < 1_000; n++) {
                pinger.send(client | n);
            }
            for (long n = 0; n < 1_000; n += 10) { // 0, 10, 20, ...: written out here, not asked of the code under test
                assertThat(pinger.receive()).isEqualTo(client | n);
            }
            pinger.send(client | 1_001); // not answered
            pinger.send(client | 1_010); // answered: had anything else come back, it would come before this one
            assertThat(pinger.receive()).isEqualTo(client | 1_010);
            assertThat(pinger.poll()).isEqualTo(-1);
            assertThat(responder.messages()).as("messages read, answered or not").isEqualTo(1_002);
        }
    }

    @Test
    void shouldRejectAReplyOfAnotherLengthThanConfigured() throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(16).withReplySize(1024);
        requireAvailable(transport, config);
        // the client expects echoes of 16 bytes; the responder answers with 1024
        try (Responder responder = transport.startResponder(config);
             PingClient client = transport.connect(config.withReplySize(16))) {
            client.send(7);
            org.assertj.core.api.Assertions.assertThatThrownBy(client::receive)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("length=1024").hasMessageContaining("sequence=7")
                .hasMessageContaining("expected replySize=16");
            assertThat(responder.messages()).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepEchoesOfConcurrentClientsApart() throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(64);
        requireAvailable(transport, config);
        final int clients = 3;
        try (Responder responder = transport.startResponder(config)) {
            final PingClient[] connected = new PingClient[clients];
            try {
                for (int c = 0; c < clients; c++) {
                    connected[c] = transport.connect(config);
                }
                for (long round = 0; round < 500; round++) {
                    for (int c = 0; c < clients; c++) {
                        connected[c].send(round * clients + c);
                    }
                    for (int c = 0; c < clients; c++) {
                        assertThat(connected[c].receive()).isEqualTo(round * clients + c);
                    }
                }
                for (final PingClient client : connected) {
                    assertThat(client.poll()).isEqualTo(-1);
                }
                assertThat(responder.messages()).isEqualTo(500L * clients);
            } finally {
                for (final PingClient client : connected) {
                    if (client != null) {
                        client.close();
                    }
                }
            }
        }
    }

    @Test
    void shouldEchoSeveralMessagesInFlightInOrder() throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(64);
        requireAvailable(transport, config);
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            long expected = 0;
            for (long sequence = 0; sequence < ROUND_TRIPS; sequence += 8) {
                for (long i = sequence; i < sequence + 8; i++) {
                    client.send(i);
                }
                for (int i = 0; i < 8; i++) {
                    assertThat(client.receive()).isEqualTo(expected++);
                }
            }
            assertThat(responder.messages()).isEqualTo(expected);
        }
    }

    @Test
    void shouldDeliverEveryStreamSequenceExactlyOnceInOrder() throws Exception {
        final BenchTransport transport = transport();
        final BenchConfig config = config(256);
        if (!transport.supportsStream()) { // not a skip: a transport without a stream says so when asked for one
            assertThatThrownBy(() -> transport.startStreamReceiver(config)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessage(transport.name() + " has no stream mode");
            assertThatThrownBy(() -> transport.connectStreamSender(config)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessage(transport.name() + " has no stream mode");
            return;
        }
        requireAvailable(transport, config);
        final AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        try (StreamReceiver receiver = transport.startStreamReceiver(config)) {
            final Thread sender = new Thread(() -> {
                try (StreamSender streamSender = transport.connectStreamSender(config)) {
                    for (long sequence = 0; sequence < STREAM_MESSAGES; sequence++) {
                        while (!streamSender.offer(sequence)) {
                            Thread.onSpinWait();
                        }
                        if (sequence % STREAM_BATCH == STREAM_BATCH - 1) {
                            streamSender.flush();
                        }
                    }
                    // a batching sender may hold the last messages until flushed
                    while (!streamSender.flush()) {
                        Thread.onSpinWait();
                    }
                    // keep the connection open until the receiver has read everything
                    while (!Thread.currentThread().isInterrupted()) {
                        Thread.sleep(5);
                    }
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                } catch (final Throwable ex) {
                    senderFailure.set(ex);
                }
            }, "test-stream-sender");
            sender.start();
            final long[] next = {0};
            final List<Long> wrong = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (next[0] < STREAM_MESSAGES && senderFailure.get() == null && System.nanoTime() < deadline) {
                receiver.poll(sequence -> {
                    if (sequence != next[0] && wrong.size() < 10) {
                        wrong.add(sequence);
                    }
                    next[0] = sequence + 1;
                });
            }
            // one poll more before the sender is stopped: a sender whose flush waits for the receiver's word that
            // it has everything (a SoupBinTCP publisher and its credits) hears it here
            receiver.poll(sequence -> wrong.add(sequence));
            sender.interrupt();
            sender.join(10_000);
            assertThat(sender.isAlive()).as("the sender thread, interrupted after its final flush").isFalse();
            assertThat(senderFailure.get()).isNull();
            assertThat(wrong).as("sequences out of order or repeated").isEmpty();
            assertThat(next[0]).isEqualTo(STREAM_MESSAGES);
            assertThat(receiver.poll(sequence -> wrong.add(sequence))).isZero();
        }
    }

    /**
     * Whether the stream sender holds offered messages back until a flush (or a full buffer), as an application
     * sending many messages at once does with this API.
     *
     * @return false unless overridden
     */
    boolean batchesUntilFlush() {
        return false;
    }

    @Test
    void shouldHoldABatchBackUntilFlushedThenDeliverItInOrder() throws Exception {
        final BenchTransport transport = transport();
        assumeTrue(batchesUntilFlush(), () -> transport.name() + " hands every message on at once");
        final BenchConfig config = config(64);
        try (StreamReceiver receiver = transport.startStreamReceiver(config);
             StreamSender sender = transport.connectStreamSender(config)) {
            final List<Long> received = new ArrayList<>();
            // a first message, flushed and received, proves the connection accepted and the bytes flowing
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // only fails a wait that hung
            assertThat(sender.offer(0)).isTrue();
            while (!sender.flush() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            while (received.isEmpty() && System.nanoTime() < deadline) {
                receiver.poll(received::add);
            }
            assertThat(received).containsExactly(0L);
            for (long sequence = 1; sequence < 4; sequence++) {
                assertThat(sender.offer(sequence)).isTrue();
            }
            // a sender that hands a message on at once has written it to loopback TCP, from this thread, before
            // offer returned: the receiver's next poll reads it. A count of polls decides here, not a time
            for (int i = 0; i < 100; i++) {
                receiver.poll(received::add);
            }
            assertThat(received).as("delivered before the flush").containsExactly(0L);

            while (!sender.flush() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            while (received.size() < 4 && System.nanoTime() < deadline) {
                receiver.poll(received::add);
            }
            assertThat(received).containsExactly(0L, 1L, 2L, 3L);
        }
    }

    @Test
    void shouldDescribeItself() {
        final BenchTransport transport = transport();
        assertThat(transport.name()).isNotBlank();
        assertThat(transport.description()).isNotBlank();
        assertThat(transport.path()).isIn("tcp", "udp", "shm");
    }
}
