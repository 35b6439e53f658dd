package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelCommand;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.ScriptedTransport;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demux driven by a scripted transport on the test thread (the reactor thread): per-key order and exactly once
 * through three worker threads with pausing, the held worker that pauses and resumes, drops without a pausable
 * transport, a throwing handler, and zero allocation on both sides.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerDemuxTest {
    private static final long WAIT_LIMIT_NS = 60_000_000_000L;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message = arena.allocate(64, 8);
    private Reactor reactor;

    private Reactor reactor() {
        reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
        return reactor;
    }

    @AfterEach
    void close() {
        if (reactor != null) {
            reactor.close();
        }
    }

    /** Like TCP: records pauses and resumes, and its driver delivers nothing to a paused channel. */
    private static final class PausingScript implements ReadPausable {
        final boolean[] paused;
        long pauses;
        long resumes;

        PausingScript(final int channels) {
            paused = new boolean[channels];
        }

        @Override
        public long pauseReading(final long channelId) {
            pauses++;
            paused[(int)channelId] = true;
            return 0;
        }

        @Override
        public long resumeReading(final long channelId) {
            resumes++;
            paused[(int)channelId] = false;
            return 0;
        }
    }

    /** Checks every channel's sequence on the worker thread: open first, then 0, 1, 2, ..., then close. */
    private static final class OrderChecker implements WorkerHandler {
        final int channelsPerKey;
        final long[] next;
        final boolean[] open;
        final boolean[] closed;
        final AtomicLong received = new AtomicLong();
        final AtomicReference<String> failure = new AtomicReference<>();

        OrderChecker(final int channels) {
            this(channels, 1);
        }

        OrderChecker(final int channels, final int channelsPerKey) {
            this.channelsPerKey = channelsPerKey;
            next = new long[channels];
            open = new boolean[channels];
            closed = new boolean[channels];
        }

        @Override
        public void onOpened(final long channelId) {
            open[(int)channelId] = true;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final int channel = (int)channelId;
            final int key = channel / channelsPerKey;
            final long sequence = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8);
            if (!open[channel] || closed[channel] || length != 16
                || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != channelId || sequence != next[key]) {
                failure.compareAndSet(null, "channel=" + channel + " open=" + open[channel] + " closed="
                    + closed[channel] + " length=" + length + " sequence=" + sequence + " expected=" + next[key]);
            }
            next[key]++;
            received.incrementAndGet();
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason) {
            closed[(int)channelId] = true;
            received.incrementAndGet();
        }
    }

    private void deliver(final WorkerDemux demux, final long channelId, final long sequence) {
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, channelId);
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, sequence);
        demux.onMessage(channelId, message, 0, 16);
    }

    private static void await(final java.util.function.BooleanSupplier condition, final Runnable between,
                              final java.util.function.Supplier<String> progress) {
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            between.run();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached in time: " + progress.get());
            }
            Thread.yield();
        }
    }

    @Test
    void shouldKeepEachChannelsOrderExactlyOnceThroughThreeWorkersWhilePausingFullOnes() {
        final int workers = 3;
        final int channels = 64;
        final int perChannel = 5_000;
        final Reactor reactor = reactor();
        final ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
        final int index = commands.register(new ScriptedTransport());
        final WorkerDemux demux = new WorkerDemux(reactor, workers, 4096, KeyFunction.CHANNEL_ID, null);
        final PausingScript script = new PausingScript(channels);
        demux.pauseWith(script);
        final OrderChecker[] checkers = new OrderChecker[workers];
        final WorkerRunner[] runners = new WorkerRunner[workers];
        for (int w = 0; w < workers; w++) {
            checkers[w] = new OrderChecker(channels);
            runners[w] = new WorkerRunner("worker-" + w, new WorkerAgent(demux.ring(w), checkers[w], commands, index,
                errors::add, 64, 4), new YieldingIdleStrategy(), -1).start();
        }
        try {
            for (int c = 0; c < channels; c++) {
                demux.onAccepted(1, c, null);
            }
            final long[] sent = new long[channels];
            long remaining = (long)channels * perChannel;
            final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
            while (remaining > 0) {
                for (int c = 0; c < channels; c++) {
                    if (!script.paused[c] && sent[c] < perChannel) {
                        deliver(demux, c, sent[c]++);
                        remaining--;
                    }
                }
                reactor.doWork();
                assertThat(System.nanoTime()).as("sending stuck, remaining=%d", remaining).isLessThan(deadline);
            }
            for (int c = 0; c < channels; c++) {
                demux.onClosed(c, CloseReason.BY_PEER, "end");
            }
            final long expected = (long)channels * (perChannel + 1);
            await(() -> total(checkers) == expected, reactor::doWork, () -> "received=" + total(checkers));
        } finally {
            for (final WorkerRunner runner : runners) {
                runner.close();
            }
        }
        for (int w = 0; w < workers; w++) {
            assertThat(checkers[w].failure.get()).as("worker %d", w).isNull();
        }
        for (int c = 0; c < channels; c++) {
            final OrderChecker owner = checkers[demux.workerOf(c)];
            assertThat(owner.next[c]).as("channel %d", c).isEqualTo(perChannel);
            assertThat(owner.closed[c]).as("channel %d closed", c).isTrue();
        }
        assertThat(total(checkers)).isEqualTo((long)channels * (perChannel + 1));
        assertThat(script.pauses).as("pauses").isPositive().isEqualTo(demux.paused());
        assertThat(script.resumes).isEqualTo(script.pauses);
        assertThat(demux.dropped()).isZero();
        assertThat(demux.overflowed()).isZero();
        assertThat(errors).isEmpty();
        demux.close();
    }

    @Test
    void shouldKeepEachKeysOrderAcrossTheChannelsThatShareItWhilePausingFullOnes() {
        final int workers = 3;
        final int channels = 64;
        final int channelsPerKey = 4;
        final int perChannel = 2_000;
        final Reactor reactor = reactor();
        final ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
        final int index = commands.register(new ScriptedTransport());
        final KeyFunction byKey = (channelId, buffer, offset, length) -> channelId / channelsPerKey;
        final WorkerDemux demux = new WorkerDemux(reactor, workers, 4096, byKey, null);
        final PausingScript script = new PausingScript(channels);
        demux.pauseWith(script);
        final OrderChecker[] checkers = new OrderChecker[workers];
        final WorkerRunner[] runners = new WorkerRunner[workers];
        for (int w = 0; w < workers; w++) {
            checkers[w] = new OrderChecker(channels, channelsPerKey);
            java.util.Arrays.fill(checkers[w].open, true); // opens go by channel id, not by this key
            runners[w] = new WorkerRunner("worker-" + w, new WorkerAgent(demux.ring(w), checkers[w], commands, index,
                errors::add, 64, 4), new YieldingIdleStrategy(), -1).start();
        }
        final long[] keySequence = new long[channels / channelsPerKey];
        try {
            final long[] sent = new long[channels];
            long remaining = (long)channels * perChannel;
            final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
            while (remaining > 0) {
                for (int c = 0; c < channels; c++) {
                    if (!script.paused[c] && sent[c] < perChannel) {
                        sent[c]++;
                        deliver(demux, c, keySequence[c / channelsPerKey]++);
                        remaining--;
                    }
                }
                reactor.doWork();
                assertThat(System.nanoTime()).as("sending stuck, remaining=%d", remaining).isLessThan(deadline);
            }
            final long expected = (long)channels * perChannel;
            await(() -> total(checkers) == expected, reactor::doWork, () -> "received=" + total(checkers));
        } finally {
            for (final WorkerRunner runner : runners) {
                runner.close();
            }
        }
        for (int w = 0; w < workers; w++) {
            assertThat(checkers[w].failure.get()).as("worker %d", w).isNull();
        }
        for (int k = 0; k < keySequence.length; k++) {
            assertThat(checkers[demux.workerOf(k)].next[k]).as("key %d", k).isEqualTo(keySequence[k])
                .isEqualTo((long)channelsPerKey * perChannel);
        }
        assertThat(script.pauses).as("pauses").isPositive();
        assertThat(script.resumes).isEqualTo(script.pauses);
        assertThat(demux.dropped()).isZero();
        assertThat(demux.overflowed()).isZero();
        assertThat(errors).isEmpty();
        demux.close();
    }

    private static long total(final OrderChecker[] checkers) {
        long total = 0;
        for (final OrderChecker checker : checkers) {
            total += checker.received.get();
        }
        return total;
    }

    @Test
    void shouldPauseTheChannelOfAHeldWorkerAndResumeItWithNothingLost() {
        final Reactor reactor = reactor();
        final ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
        final int index = commands.register(new ScriptedTransport());
        final WorkerDemux demux = new WorkerDemux(reactor, 1, 1024, KeyFunction.CHANNEL_ID, null);
        final PausingScript script = new PausingScript(2);
        demux.pauseWith(script);
        final OrderChecker checker = new OrderChecker(2);
        final WorkerAgent agent = new WorkerAgent(demux.ring(0), checker, commands, index, errors::add, 1000, 4);
        demux.onAccepted(1, 1, null);
        long sent = 0;
        while (!script.paused[1]) { // the worker is held: nothing reads its ring
            deliver(demux, 1, sent++);
            assertThat(sent).as("never paused").isLessThan(1000);
        }
        assertThat(sent).as("1024 bytes hold the open (16) and 31 messages (32); the 32nd is kept").isEqualTo(32);
        assertThat(script.pauses).isEqualTo(1);
        reactor.doWork();
        assertThat(script.resumes).as("no room yet").isZero();
        agent.doWork();
        reactor.doWork();
        assertThat(script.resumes).isEqualTo(1);
        agent.doWork();
        assertThat(checker.failure.get()).isNull();
        assertThat(checker.next[1]).isEqualTo(sent);
        assertThat(demux.dropped()).isZero();
        demux.close();
    }

    @Test
    void shouldDropAndCountWhatAFullWorkerCannotTakeWithoutAPausableTransport() {
        final Reactor reactor = reactor();
        final ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
        final int index = commands.register(new ScriptedTransport());
        final WorkerDemux demux = new WorkerDemux(reactor, 1, 1024, KeyFunction.CHANNEL_ID, null);
        final OrderChecker checker = new OrderChecker(2);
        final WorkerAgent agent = new WorkerAgent(demux.ring(0), checker, commands, index, errors::add, 1000, 4);
        checker.open[1] = true; // a datagram endpoint: no open event
        for (int i = 0; i < 40; i++) {
            deliver(demux, 1, i);
        }
        assertThat(demux.dropped()).as("32 records of 32 bytes fill 1024").isEqualTo(8);
        agent.doWork();
        assertThat(checker.next[1]).isEqualTo(32);
        assertThat(demux.paused()).isZero();
        demux.close();
    }

    @Test
    void shouldCloseTheChannelOfAThrowingHandlerThroughTheCommandRingAndGoOnWithTheOthers() {
        final Reactor reactor = reactor();
        final ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
        final ScriptedTransport transport = new ScriptedTransport();
        final int index = commands.register(transport);
        final WorkerDemux demux = new WorkerDemux(reactor, 1, 1 << 16, KeyFunction.CHANNEL_ID, null);
        final List<String> seen = new ArrayList<>();
        final WorkerAgent agent = new WorkerAgent(demux.ring(0), new WorkerHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                final long sequence = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8);
                seen.add(channelId + ":" + sequence);
                if (channelId == 7 && sequence == 1) {
                    throw new IllegalStateException("bad message");
                }
            }

            @Override
            public void onClosed(final long channelId, final CloseReason reason) {
                seen.add(channelId + ":closed");
            }
        }, commands, index, errors::add, 1000, 4);
        for (int i = 0; i < 3; i++) {
            deliver(demux, 7, i);
            deliver(demux, 8, i);
        }
        assertThat(agent.doWork()).isEqualTo(6);
        assertThat(seen).containsExactly("7:0", "8:0", "7:1", "8:1", "8:2");
        assertThat(agent.failures()).isEqualTo(1);
        assertThat(agent.skipped()).isEqualTo(1);
        assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessageContaining("channelId=7")
            .hasRootCauseMessage("bad message"));
        reactor.doWork();
        assertThat(transport.commands()).containsExactly(new ChannelCommand.Close(7));
        demux.onClosed(7, CloseReason.LOCAL, "closed by the worker");
        deliver(demux, 8, 3);
        agent.doWork();
        assertThat(seen).endsWith("7:closed", "8:3");
        demux.close();
    }

    @Test
    void shouldAllocateNothingOnTheReactorNorOnTheWorkerInSteadyState() {
        final Reactor reactor = reactor();
        final ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
        final int index = commands.register(new ScriptedTransport());
        final WorkerDemux demux = new WorkerDemux(reactor, 2, 1024, KeyFunction.CHANNEL_ID, null);
        final PausingScript script = new PausingScript(4);
        demux.pauseWith(script);
        final OrderChecker[] checkers = {new OrderChecker(4), new OrderChecker(4)};
        final WorkerAgent[] agents = {
            new WorkerAgent(demux.ring(0), checkers[0], commands, index, errors::add, 8, 4),
            new WorkerAgent(demux.ring(1), checkers[1], commands, index, errors::add, 8, 4)};
        final long[] sequence = new long[4];
        for (int c = 0; c < 4; c++) {
            demux.onAccepted(1, c, null);
        }
        // more than a ring holds each round, read a few at a time: every round pauses, moves the backlog, resumes
        final Runnable round = () -> {
            for (int i = 0; i < 40; i++) {
                for (int c = 0; c < 4; c++) {
                    if (!script.paused[c]) {
                        deliver(demux, c, sequence[c]++);
                    }
                }
                if (i % 4 == 0) {
                    agents[0].doWork();
                    agents[1].doWork();
                    demux.doWork(0);
                }
            }
            for (int i = 0; i < 40; i++) {
                agents[0].doWork();
                agents[1].doWork();
                demux.doWork(0);
            }
        };
        final long pausesBefore = script.pauses;
        // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(2_000, 200, 10, 5, round);
        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
        assertThat(script.pauses).as("the pause path ran").isGreaterThan(pausesBefore);
        for (final OrderChecker checker : checkers) {
            assertThat(checker.failure.get()).isNull();
        }
        assertThat(demux.dropped()).isZero();
        demux.close();
    }
}
