package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.FreePorts;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code peregrine-soup} in process: found by the service loader, and 0 bytes per message on both sides once warm,
 * in the ping-pong (client thread and the server's reactor thread) and in the stream (the publishing thread and
 * the receiving thread), as {@link PeregrineTcpBenchTest} proves it for {@code peregrine-tcp}. Order and exactly-once
 * are the conformance suite's ({@code dev.peregrine.peers.PeregrineSoupConformanceTest}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeregrineSoupBenchTest {
    private static final int WINDOW = 1_000;
    private static final int WINDOWS = 10;

    @TempDir
    Path directory;

    private BenchConfig config(final int size, final boolean busySpin) {
        return new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", BenchConfig.PORTS_PER_RESPONDER), size,
            directory, busySpin);
    }

    @Test
    void shouldBeFoundByTheServiceLoader() {
        assertThat(ServiceLoader.load(BenchTransport.class).stream().map(ServiceLoader.Provider::get))
            .anySatisfy(transport -> {
                assertThat(transport.name()).isEqualTo("peregrine-soup");
                assertThat(transport.path()).isEqualTo("tcp");
                assertThat(transport.supportsStream()).isTrue();
                assertThat(transport.sharedResponder()).isTrue();
            });
    }

    @ParameterizedTest(name = "busySpin={0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingPerRoundTripOnTheClientThreadNorOnTheServersReactorThread(final boolean busySpin)
        throws Exception {
        final BenchConfig config = config(32, busySpin);
        final PeregrineSoupBench bench = new PeregrineSoupBench();
        try (PeregrineSoupResponder responder = PeregrineSoupResponder.start(config);
             PingClient client = bench.connect(config)) {
            final long serverThread = responder.reactorThread().threadId();
            final long[] next = {0};
            final Runnable roundTrip = () -> {
                final long sequence = next[0]++;
                client.send(sequence);
                final long echoed = client.receive();
                if (echoed != sequence) {
                    throw new AssertionError("sent " + sequence + ", answer carried " + echoed);
                }
            };
            for (int i = 0; i < 5_000; i++) {
                roundTrip.run();
            }
            // both threads measured over the same windows: the client's own, the server's reactor from here
            final AllocationMeter.Windows clientWindows = new AllocationMeter.Windows(WINDOW);
            final long[] serverWindows = new long[WINDOWS];
            for (int w = 0; w < WINDOWS; w++) {
                final long serverBefore = AllocationMeter.allocatedBytes(serverThread);
                clientWindows.begin();
                for (int i = 0; i < WINDOW; i++) {
                    roundTrip.run();
                }
                clientWindows.end();
                serverWindows[w] = AllocationMeter.allocatedBytes(serverThread) - serverBefore;
            }
            assertThat(clientWindows.steadyStateBytes()).as("client-thread bytes in windows of %d warm round trips",
                WINDOW).isZero();
            assertThat(quietAsTheMeterAsks(serverWindows)).as("server reactor bytes per window of %d round trips: %s",
                WINDOW, java.util.Arrays.toString(serverWindows)).isTrue();
            assertThat(client.poll()).isEqualTo(-1);
            assertThat(responder.messages()).isEqualTo(next[0]);
        }
    }

    /** {@link AllocationMeter.Windows#steadyStateBytes()}'s rule: median 0, at most one window in five allocated. */
    private static boolean quietAsTheMeterAsks(final long[] windows) {
        final long[] sorted = windows.clone();
        java.util.Arrays.sort(sorted);
        final long allocating = java.util.Arrays.stream(windows).filter(bytes -> bytes != 0).count();
        return sorted[(sorted.length - 1) / 2 + (sorted.length % 2 == 0 ? 1 : 0)] == 0
            && allocating <= Math.max(1, windows.length / 5);
    }

    @Test
    void shouldAllocateNothingPerMessageOnThePublishingThreadNorOnTheReceivingThread() throws Exception {
        final BenchConfig config = config(32, false);
        final PeregrineSoupBench bench = new PeregrineSoupBench();
        final long warmup = 200_000;
        final long total = warmup + (long)WINDOWS * 20_000;
        final AtomicLong receiverWindows = new AtomicLong(-1);
        final java.util.concurrent.atomic.AtomicBoolean flushed = new java.util.concurrent.atomic.AtomicBoolean();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        try (StreamReceiver receiver = bench.startStreamReceiver(config)) {
            // the receiver on a thread of its own, measuring itself in windows of 20 000 messages after the warm-up
            final CompletableFuture<Long> receiving = CompletableFuture.supplyAsync(() -> {
                final long[] next = {0};
                final java.util.function.LongConsumer check = sequence -> { // one instance: a lambda made per poll allocates
                    if (sequence != next[0]) {
                        throw new AssertionError("received " + sequence + " where " + next[0] + " was due");
                    }
                    next[0]++;
                };
                while (next[0] < warmup && System.nanoTime() < deadline) {
                    receiver.poll(check);
                }
                final AllocationMeter.Windows windows = new AllocationMeter.Windows(20_000);
                for (int w = 0; w < WINDOWS; w++) {
                    final long end = warmup + (w + 1) * 20_000L;
                    windows.begin();
                    while (next[0] < end && System.nanoTime() < deadline) {
                        receiver.poll(check);
                    }
                    windows.end();
                }
                receiverWindows.set(windows.count());
                while (!flushed.get() && System.nanoTime() < deadline) {
                    receiver.poll(check); // until the sender has its last credit
                }
                assertThat(next[0]).isEqualTo(total);
                return windows.steadyStateBytes();
            });
            try (StreamSender sender = bench.connectStreamSender(config)) {
                final long[] offered = {0};
                final Runnable offerOne = () -> {
                    while (!sender.offer(offered[0])) {
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("no credit by the deadline at " + offered[0]);
                        }
                    }
                    offered[0]++;
                    if ((offered[0] & 255) == 0) {
                        sender.flush();
                    }
                };
                final long senderBytes = AllocationMeter.steadyStateBytes((int)warmup, 20_000, WINDOWS, offerOne);
                while (!sender.flush() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                flushed.set(true);
                assertThat(senderBytes).as("publishing-thread bytes in windows of 20 000 messages").isZero();
                assertThat(receiving.get(60, TimeUnit.SECONDS)).as("receiving-thread bytes in windows of 20 000")
                    .isZero();
                assertThat(receiverWindows.get()).isEqualTo(WINDOWS);
                assertThat(offered[0]).isEqualTo(total);
            }
        }
    }
}
