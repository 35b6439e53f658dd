package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.shm.ShmOptions;
import dev.peregrine.shm.ShmTransport;
import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demux over shared memory: a worker held still fills its ring, the shm channel's reading pauses, the client's
 * ring backs up, and once the worker goes on every message arrives once, in order. Pausing and resuming a shm
 * channel allocates nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerDemuxShmTest {
    private static final long WAIT_LIMIT_NS = 60_000_000_000L;

    @TempDir
    Path dir;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
    private final AtomicReference<SocketAddress> listening = new AtomicReference<>();
    private final AtomicLong clientChannel = new AtomicLong(-1);
    private final AtomicLong serverChannel = new AtomicLong(-1);
    private final ShmOptions options = new ShmOptions().ringCapacity(16 * 1024).maxMessageLength(64)
        .maxMessagesInFlight(1000);

    @AfterEach
    void close() {
        reactor.close();
    }

    private void poll(final BooleanSupplier condition, final Supplier<String> progress) {
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached in time: " + progress.get());
            }
        }
    }

    private ShmTransport connect(final ShmTransport server, final ChannelHandler clientHandler) {
        final ShmTransport client = new ShmTransport(reactor, options, clientHandler);
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("demux.sock"));
        server.listen(address);
        poll(() -> listening.get() != null, () -> "not listening, errors=" + errors);
        client.connect(address);
        poll(() -> clientChannel.get() >= 0 && serverChannel.get() >= 0, () -> "not connected, errors=" + errors);
        return client;
    }

    private final ChannelHandler clientEvents = new ChannelHandler() {
        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            clientChannel.set(channelId);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        }
    };

    private final ChannelHandler serverEvents = new ChannelHandler() {
        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            listening.set(localAddress);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            throw new AssertionError("messages go to the workers");
        }
    };

    @Test
    void shouldPauseTheShmChannelOfAHeldWorkerBackPressureTheWriterAndResumeWithNothingLostOrReordered() {
        final int n = 5_000;
        final ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
        final WorkerDemux demux = new WorkerDemux(reactor, 1, 1024, KeyFunction.CHANNEL_ID, new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                throw new AssertionError("messages go to the workers");
            }

            @Override
            public void onListening(final long serverId, final SocketAddress localAddress) {
                listening.set(localAddress);
            }
        });
        final ShmTransport server = new ShmTransport(reactor, options.ringDirectory(dir), demux);
        demux.pauseWith(server);
        final int index = commands.register(server);
        final CountDownLatch hold = new CountDownLatch(1);
        final AtomicLong next = new AtomicLong();
        final AtomicReference<String> failure = new AtomicReference<>();
        final WorkerHandler held = new WorkerHandler() {
            @Override
            public void onOpened(final long channelId) {
                serverChannel.set(channelId);
            }

            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                try {
                    if (!hold.await(WAIT_LIMIT_NS, TimeUnit.NANOSECONDS)) {
                        failure.compareAndSet(null, "never released");
                    }
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                final long sequence = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                if (length != 8 || sequence != next.get()) {
                    failure.compareAndSet(null, "length=" + length + " sequence=" + sequence + " expected=" + next.get());
                }
                next.incrementAndGet();
            }
        };
        final WorkerRunner runner = new WorkerRunner("held-worker", new WorkerAgent(demux.ring(0), held, commands, index,
            errors::add, 64, 4), new YieldingIdleStrategy(), -1).start();
        try {
            final ShmTransport client = connect(server, clientEvents);
            final MemorySegment message = Arena.ofAuto().allocate(8, 8);
            final long[] sent = new long[1];
            final boolean[] backPressured = new boolean[1];
            // the worker is held: the demux fills its ring, pauses the channel, and the client's ring then fills
            final BooleanSupplier sendOne = () -> {
                if (sent[0] == n) {
                    return true;
                }
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, sent[0]);
                final long result = client.send(clientChannel.get(), message, 0, 8);
                if (result == SendResult.BACK_PRESSURED) {
                    backPressured[0] = true;
                } else if (result != 0) {
                    throw new AssertionError("send answered " + result);
                } else {
                    sent[0]++;
                }
                return sent[0] == n;
            };
            poll(() -> {
                sendOne.getAsBoolean();
                if (demux.overflowed() != 0) {
                    throw new AssertionError("the demux dropped: overflowed=" + demux.overflowed());
                }
                return demux.paused() == 1 && backPressured[0];
            }, () -> "sent=" + sent[0] + " paused=" + demux.paused() + " overflowed=" + demux.overflowed());
            assertThat(next.get()).as("the worker is held").isZero();
            assertThat(sent[0]).as("the writer was stopped by its full ring, not by the end").isLessThan(n);
            final long sentWhilePaused = sent[0];
            for (int i = 0; i < 1_000; i++) {
                sendOne.getAsBoolean();
                reactor.doWork();
            }
            assertThat(sent[0]).as("nothing read while paused: the ring stays full").isEqualTo(sentWhilePaused);

            hold.countDown();
            poll(() -> sendOne.getAsBoolean() && next.get() == n || failure.get() != null,
                () -> "sent=" + sent[0] + " received=" + next.get() + " paused=" + demux.paused());
        } finally {
            hold.countDown();
            runner.close();
        }
        assertThat(failure.get()).isNull();
        assertThat(next.get()).isEqualTo(n);
        assertThat(demux.paused()).isPositive();
        assertThat(demux.dropped()).isZero();
        assertThat(demux.overflowed()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldDeliverNothingWhilePausedAndAllocateNothingThroughPauseAndResume() {
        final AtomicLong channel = new AtomicLong(-1);
        final long[] received = new long[1];
        final ChannelHandler counting = new ChannelHandler() {
            @Override
            public void onListening(final long serverId, final SocketAddress localAddress) {
                listening.set(localAddress);
            }

            @Override
            public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
                serverChannel.set(channelId);
            }

            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                received[0]++;
            }
        };
        final ShmTransport server = new ShmTransport(reactor, options.ringDirectory(dir), counting);
        final ShmTransport client = connect(server, clientEvents);
        channel.set(serverChannel.get());
        final MemorySegment message = Arena.ofAuto().allocate(8, 8);
        final long[] deliveredWhilePaused = new long[1];
        final long id = channel.get();
        final long clientId = clientChannel.get();
        final Runnable pauseSendResume = () -> {
            server.pauseReading(id);
            client.send(clientId, message, 0, 8);
            final long before = received[0];
            reactor.doWork();
            reactor.doWork();
            deliveredWhilePaused[0] += received[0] - before;
            server.resumeReading(id);
            reactor.doWork();
        };

        // the whole cycle, then the two calls alone: zero tolerance once the JIT has settled, the first whole set of
        // ten windows that allocates nothing, at most five each
        final AllocationMeter.Windows cycle = AllocationMeter.firstCleanSet(20_000, 2_000, 10, 5, pauseSendResume);
        final AllocationMeter.Windows calls = AllocationMeter.firstCleanSet(20_000, 2_000, 10, 5, () -> {
            server.pauseReading(id);
            server.resumeReading(id);
        });

        assertThat(deliveredWhilePaused[0]).isZero();
        assertThat(received[0]).isEqualTo(20_000 + 2_000L * 10 * cycle.sets());
        assertThat(cycle.totalBytes()).as("pause, send, resume: bytes in the last set of %d", cycle.sets()).isZero();
        assertThat(calls.totalBytes()).as("pause and resume: bytes in the last set of %d", calls.sets()).isZero();
        assertThat(server.pauseReading(12345)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(errors).isEmpty();
    }
}
