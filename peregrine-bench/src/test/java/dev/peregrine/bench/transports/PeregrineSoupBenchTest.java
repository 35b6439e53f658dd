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
@Timeout(value = 300, unit = TimeUnit.SECONDS) // up to five sets of windows on a loaded two-core machine
class PeregrineSoupBenchTest {
    private static final int WINDOW = 1_000;
    private static final int WINDOWS = 10;
    /** Sets of windows measured, at most, until one allocates nothing on any thread measured. */
    private static final int MAX_SETS = 5;

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
            // both threads measured over the same windows: the client's own, the server's reactor from here (read
            // outside the client's window). Zero tolerance once the JIT has settled: sets of ten windows until one is
            // clean on both threads, at most MAX_SETS
            final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(1, MAX_SETS);
            AllocationMeter.Windows clientWindows;
            AllocationMeter.Windows serverWindows;
            do {
                clientWindows = new AllocationMeter.Windows(WINDOW);
                serverWindows = new AllocationMeter.Windows(WINDOW, serverThread);
                for (int w = 0; w < WINDOWS; w++) {
                    serverWindows.begin();
                    clientWindows.begin();
                    for (int i = 0; i < WINDOW; i++) {
                        roundTrip.run();
                    }
                    clientWindows.end();
                    serverWindows.end();
                }
            } while (sets.another(clientWindows.totalBytes() + serverWindows.totalBytes()));
            assertThat(clientWindows.totalBytes()).as("client-thread bytes in the last set of %d (windows of %d round trips)",
                sets.sets(), WINDOW).isZero();
            assertThat(serverWindows.totalBytes()).as("server reactor bytes in the last set of %d (windows of %d round trips)",
                sets.sets(), WINDOW).isZero();
            assertThat(client.poll()).isEqualTo(-1);
            assertThat(responder.messages()).isEqualTo(next[0]);
        }
    }

    @Test
    void shouldAllocateNothingPerMessageOnThePublishingThreadNorOnTheReceivingThread() throws Exception {
        final BenchConfig config = config(32, false);
        final PeregrineSoupBench bench = new PeregrineSoupBench();
        final long warmup = 200_000;
        final AtomicLong receiverSets = new AtomicLong(-1);
        final AtomicLong flushedSets = new AtomicLong();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        // zero tolerance once the JIT has settled, on both threads: each measures a set of ten windows of 20 000
        // messages, then both agree whether to measure another (either allocated), at most MAX_SETS
        final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(2, MAX_SETS);
        try (StreamReceiver receiver = bench.startStreamReceiver(config)) {
            // the receiver on a thread of its own, measuring itself in windows of 20 000 messages after the warm-up
            final CompletableFuture<AllocationMeter.Windows> receiving = CompletableFuture.supplyAsync(() -> {
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
                long start = warmup;
                int measured = 0;
                AllocationMeter.Windows windows;
                do {
                    windows = new AllocationMeter.Windows(20_000);
                    for (int w = 0; w < WINDOWS; w++) {
                        final long end = start + (w + 1) * 20_000L;
                        windows.begin();
                        while (next[0] < end && System.nanoTime() < deadline) {
                            receiver.poll(check);
                        }
                        windows.end();
                    }
                    start += WINDOWS * 20_000L;
                    measured++;
                    while (flushedSets.get() < measured && System.nanoTime() < deadline) {
                        receiver.poll(check); // until the sender has the credit its flush waits for (outside the windows)
                    }
                } while (sets.another(windows.totalBytes()));
                receiverSets.set(measured);
                assertThat(next[0]).isEqualTo(start);
                return windows;
            });
            try (StreamSender sender = bench.connectStreamSender(config)) {
                final long[] offered = {0};
                // every other message through a claimed run of one (offer(first, count), what the throughput run
                // calls), the others through offer(sequence): both paths measured
                final Runnable offerOne = () -> {
                    while ((offered[0] & 1) == 0 ? !sender.offer(offered[0]) : sender.offer(offered[0], 1) == 0) {
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("no credit by the deadline at " + offered[0]);
                        }
                    }
                    offered[0]++;
                    if ((offered[0] & 255) == 0) {
                        sender.flush();
                    }
                };
                AllocationMeter.bytesAllocatedBy((int)warmup, 0, offerOne);
                AllocationMeter.Windows senderWindows;
                do {
                    senderWindows = AllocationMeter.windows(0, 20_000, WINDOWS, offerOne);
                    // a set's last messages flushed outside its windows: the receiver ends its set on them
                    while (!sender.flush() && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    flushedSets.incrementAndGet();
                } while (sets.another(senderWindows.totalBytes()));
                final long total = warmup + (long)WINDOWS * 20_000 * sets.sets();
                assertThat(senderWindows.totalBytes()).as("publishing-thread bytes in the last set of %d (windows of 20 000 "
                    + "messages)", sets.sets()).isZero();
                assertThat(receiving.get(60, TimeUnit.SECONDS).totalBytes()).as("receiving-thread bytes in the last set "
                    + "of %d (windows of 20 000 messages)", sets.sets()).isZero();
                assertThat(receiverSets.get()).isEqualTo(sets.sets());
                assertThat(offered[0]).isEqualTo(total);
            }
        }
    }
}
