package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demux over real loopback TCP: workers answer every message through the command ring and each client checks
 * every answer, in order, exactly once; a worker held still fills its ring, the channel's reading pauses, and it
 * resumes with nothing lost.
 */
@Tag("slow")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WorkerDemuxTcpTest {
    private static final long WAIT_LIMIT_NS = 90_000_000_000L;
    private static final ValueLayout.OfLong BIG_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final dev.peregrine.reactor.ErrorHandler errorHandler = error -> {
        if (errors.size() < 100) { // a failure met on every message must not make the test quadratic
            if (errors.isEmpty()) {
                error.printStackTrace();
            }
            errors.add(error);
        }
    };
    private final AtomicReference<SocketAddress> bound = new AtomicReference<>();
    private Reactor reactor;
    private TcpTransport transport;
    private ReactorCommandRing commands;
    private WorkerDemux demux;
    private int index;

    private void start(final int workers, final int ringCapacity) {
        reactor = new Reactor(new ReactorOptions().errorHandler(errorHandler));
        commands = new ReactorCommandRing(reactor, new CommandRingOptions().capacity(1 << 16));
        demux = new WorkerDemux(reactor, workers, ringCapacity, KeyFunction.CHANNEL_ID, new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                throw new AssertionError("messages go to the workers");
            }

            @Override
            public void onListening(final long serverId, final SocketAddress localAddress) {
                bound.set(localAddress);
            }
        });
        transport = new TcpTransport(reactor, new TcpOptions().framing(Framing.parse("length:4be"))
            .maxFrameLength(64), demux);
        demux.pauseWith(transport);
        index = commands.register(transport);
        transport.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        poll(() -> bound.get() != null, () -> "not listening");
    }

    @AfterEach
    void close() {
        if (reactor != null) {
            transport.close();
            reactor.close();
        }
    }

    private void poll(final BooleanSupplier condition, final java.util.function.Supplier<String> progress) {
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached in time: " + progress.get());
            }
        }
    }

    /** Echoes every message through the command ring, after checking its channel's order. */
    private final class Echo implements WorkerHandler {
        final Map<Long, long[]> next = new HashMap<>();
        final AtomicReference<String> failure = new AtomicReference<>();
        final AtomicLong messages = new AtomicLong();

        @Override
        public void onOpened(final long channelId) {
            next.put(channelId, new long[1]);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final long sequence = buffer.get(BIG_LONG, offset);
            final long[] expected = next.get(channelId);
            if (expected == null || length != 8 || (sequence != expected[0] && sequence != -1)) {
                failure.compareAndSet(null, "channelId=" + channelId + " length=" + length + " sequence=" + sequence
                    + " expected=" + (expected == null ? "open first" : expected[0]));
            } else {
                expected[0]++;
            }
            final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
            long result;
            while ((result = commands.offer(index, channelId, buffer, offset, length)) == ReactorCommandRing.BACK_PRESSURED) {
                if (System.nanoTime() > deadline) {
                    failure.compareAndSet(null, "command ring stayed full");
                    return;
                }
                Thread.yield();
            }
            if (result != 0) {
                failure.compareAndSet(null, "offer answered " + result);
            }
            messages.incrementAndGet();
        }
    }

    /** One client: a writer thread sends 0..n-1 then the marker -1; the reader expects exactly that back. */
    private static Thread client(final SocketAddress address, final int n, final AtomicReference<Throwable> failure,
                                 final AtomicLong answered) {
        final Thread thread = new Thread(() -> {
            try (Socket socket = new Socket()) {
                socket.connect(address);
                final Thread writer = new Thread(() -> {
                    try {
                        final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                            socket.getOutputStream(), 1 << 14));
                        for (long i = 0; i < n; i++) {
                            out.writeInt(8);
                            out.writeLong(i);
                        }
                        out.writeInt(8);
                        out.writeLong(-1);
                        out.flush();
                    } catch (final Throwable ex) {
                        failure.compareAndSet(null, ex);
                    }
                });
                writer.start();
                final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 14));
                for (long i = 0; i <= n; i++) {
                    final int length = in.readInt();
                    final long sequence = in.readLong();
                    final long expected = i == n ? -1 : i;
                    if (length != 8 || sequence != expected) {
                        throw new IllegalStateException("answer " + i + ": length=" + length + " sequence=" + sequence);
                    }
                    answered.incrementAndGet();
                }
                writer.join();
            } catch (final Throwable ex) {
                failure.compareAndSet(null, ex);
            }
        }, "client");
        thread.start();
        return thread;
    }

    @Test
    void shouldAnswerEveryMessageOfEachClientInOrderExactlyOnceThroughThreeWorkers() throws Exception {
        final int workers = 3;
        final int clients = 6;
        final int perClient = 40_000;
        start(workers, 2048);
        final Echo[] echoes = new Echo[workers];
        final WorkerRunner[] runners = new WorkerRunner[workers];
        for (int w = 0; w < workers; w++) {
            echoes[w] = new Echo();
            runners[w] = new WorkerRunner("worker-" + w, new WorkerAgent(demux.ring(w), echoes[w], commands, index,
                errorHandler, 64, 4), new YieldingIdleStrategy(), -1).start();
        }
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong answered = new AtomicLong();
        final Thread[] threads = new Thread[clients];
        try {
            for (int c = 0; c < clients; c++) {
                threads[c] = client(bound.get(), perClient, failure, answered);
            }
            poll(() -> failure.get() != null || answered.get() == (long)clients * (perClient + 1),
                () -> "answered=" + answered.get() + " paused=" + demux.paused());
            for (final Thread thread : threads) {
                thread.join(WAIT_LIMIT_NS / 1_000_000L);
            }
        } finally {
            for (final WorkerRunner runner : runners) {
                runner.close();
            }
        }
        assertThat(failure.get()).isNull();
        assertThat(answered.get()).isEqualTo((long)clients * (perClient + 1));
        long messages = 0;
        for (final Echo echo : echoes) {
            assertThat(echo.failure.get()).isNull();
            messages += echo.messages.get();
        }
        assertThat(messages).isEqualTo((long)clients * (perClient + 1));
        assertThat(commands.delivered()).isEqualTo((long)clients * (perClient + 1));
        assertThat(commands.discarded()).isZero();
        assertThat(demux.dropped()).isZero();
        assertThat(demux.overflowed()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldPauseReadingTheChannelOfAHeldWorkerAndResumeItWithNothingLost() throws Exception {
        final int n = 500;
        start(1, 1024);
        final CountDownLatch hold = new CountDownLatch(1);
        final Echo echo = new Echo();
        final WorkerHandler held = new WorkerHandler() {
            @Override
            public void onOpened(final long channelId) {
                echo.onOpened(channelId);
            }

            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                try {
                    if (!hold.await(WAIT_LIMIT_NS, TimeUnit.NANOSECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                echo.onMessage(channelId, buffer, offset, length);
            }
        };
        final WorkerRunner runner = new WorkerRunner("held-worker", new WorkerAgent(demux.ring(0), held, commands, index,
            errorHandler, 64, 4), new YieldingIdleStrategy(), -1).start();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong answered = new AtomicLong();
        final Thread client;
        try {
            client = client(bound.get(), n, failure, answered);
            poll(() -> demux.paused() == 1, () -> "never paused, failure=" + failure.get());
            assertThat(answered.get()).as("the worker is held").isZero();
            hold.countDown();
            poll(() -> failure.get() != null || answered.get() == n + 1,
                () -> "answered=" + answered.get() + " paused=" + demux.paused());
            client.join(WAIT_LIMIT_NS / 1_000_000L);
        } finally {
            hold.countDown();
            runner.close();
        }
        assertThat(failure.get()).isNull();
        assertThat(answered.get()).isEqualTo(n + 1);
        assertThat(echo.failure.get()).isNull();
        assertThat(echo.messages.get()).isEqualTo(n + 1);
        assertThat(demux.paused()).as("paused at least once while held").isPositive();
        assertThat(demux.dropped()).isZero();
        assertThat(demux.overflowed()).isZero();
        assertThat(errors).isEmpty();
    }
}
