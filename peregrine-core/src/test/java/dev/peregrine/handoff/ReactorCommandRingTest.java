package dev.peregrine.handoff;

import dev.peregrine.reactor.BlockingSelectIdleStrategy;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The command ring against a recording transport: exactly once and in each producer's order under three producers,
 * back-pressure without loss, the claim timeout and its race, discards, misuse, the blocking reactor's wake-up, and
 * zero allocation.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReactorCommandRingTest {
    private static final long WAIT_LIMIT_NS = 60_000_000_000L;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final long[] clock = {1_000_000_000L};
    private Reactor reactor;

    private Reactor reactor(final ReactorOptions options) {
        reactor = new Reactor(options.errorHandler(errors::add));
        return reactor;
    }

    private Reactor manualReactor() {
        return reactor(new ReactorOptions().clock(() -> clock[0]));
    }

    @AfterEach
    void closeReactor() {
        if (reactor != null) {
            reactor.close();
        }
    }

    private void drainUntil(final java.util.function.BooleanSupplier condition,
                            final java.util.function.Supplier<String> progress) {
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached in time: " + progress.get());
            }
        }
    }

    @Test
    void shouldDeliverEveryCommittedCommandExactlyOnceInEachProducersOrder() throws Exception {
        final int producers = 3;
        final int perProducer = 500_000;
        final Reactor reactor = reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()));
        final ReactorCommandRing ring = new ReactorCommandRing(reactor, new CommandRingOptions().capacity(1 << 14));
        final RecordingTransport transport = new RecordingTransport(producers);
        final int index = ring.register(transport);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            final int producer = p;
            threads[p] = new Thread(() -> {
                try {
                    final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
                    for (long sequence = 0; sequence < perProducer; sequence++) {
                        // a varying length moves the wrap point around
                        while (RecordingTransport.offer(ring, index, producer, sequence, (int)(sequence % 23)) != 0) {
                            if (System.nanoTime() > deadline) {
                                throw new IllegalStateException("producer " + producer + " stuck at " + sequence);
                            }
                            Thread.yield(); // two cores, shared: let the reactor run
                        }
                    }
                } catch (final Throwable ex) {
                    failure.set(ex);
                }
            }, "producer-" + p);
            threads[p].start();
        }
        drainUntil(() -> transport.taken == (long)producers * perProducer || failure.get() != null,
            () -> "taken=" + transport.taken + ", perProducer=" + java.util.Arrays.toString(transport.takenPerProducer)
                + ", refused=" + ring.backPressured() + ", abandoned=" + ring.abandoned() + ", errors=" + errors);
        for (final Thread thread : threads) {
            thread.join();
        }
        assertThat(failure.get()).isNull();
        reactor.doWork();
        assertThat(transport.taken).isEqualTo((long)producers * perProducer);
        for (int p = 0; p < producers; p++) {
            assertThat(transport.takenPerProducer[p]).as("producer %d", p).isEqualTo(perProducer);
            assertThat(transport.nextSequence[p]).as("producer %d", p).isEqualTo(perProducer);
        }
        assertThat(transport.outOfOrder).isZero();
        assertThat(transport.wrongLength).isZero();
        assertThat(ring.delivered()).isEqualTo((long)producers * perProducer);
        assertThat(ring.discarded()).isZero();
        assertThat(ring.abandoned()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldAnswerBackPressuredWhenFullAndLoseNothingCommitted() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1024));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        long committed = 0;
        long result;
        while ((result = RecordingTransport.offer(ring, index, 0, committed, 20)) == 0) {
            committed++;
        }
        assertThat(result).isEqualTo(ReactorCommandRing.BACK_PRESSURED);
        assertThat(committed).as("records of 56 bytes in 1024").isEqualTo(1024 / 56);
        assertThat(ring.backPressured()).isEqualTo(1);
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(committed);
        assertThat(transport.nextSequence[0]).isEqualTo(committed);
        assertThat(RecordingTransport.offer(ring, index, 0, committed, 20)).as("room again").isZero();
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(committed + 1);
        assertThat(transport.outOfOrder).isZero();
    }

    @Test
    void shouldDeliverEachCommandOnceWhenOneDrainTakesTheWholeRing() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1024));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        long committed = 0;
        while (RecordingTransport.offer(ring, index, 0, committed, 28) == 0) {
            committed++;
        }
        assertThat(committed).as("records of 64 bytes fill 1024 exactly: the drain wraps onto where it began")
            .isEqualTo(16);
        reactor.doWork();
        assertThat(transport.taken).as("taken once each, not again from the lap before").isEqualTo(committed);
        assertThat(transport.outOfOrder).isZero();
        assertThat(ring.delivered()).isEqualTo(committed);
    }

    @Test
    void shouldKeepACommandTheTransportRefusesAndFlagTheTransportUntilItIsTaken() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions());
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        transport.refuseNext = 1;
        assertThat(RecordingTransport.offer(ring, index, 0, 0, 0)).isZero();
        assertThat(RecordingTransport.offer(ring, index, 0, 1, 0)).as("flag not yet set: committed").isZero();
        reactor.doWork();
        assertThat(transport.taken).isZero();
        assertThat(ring.isBackPressured(index)).isTrue();
        assertThat(RecordingTransport.offer(ring, index, 0, 2, 0)).isEqualTo(ReactorCommandRing.BACK_PRESSURED);
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(2);
        assertThat(ring.isBackPressured(index)).isFalse();
        assertThat(RecordingTransport.offer(ring, index, 0, 2, 0)).isZero();
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(3);
        assertThat(transport.outOfOrder).isZero();
        assertThat(ring.discarded()).isZero();
    }

    @Test
    void shouldPadOverAClaimNeverCommittedAfterTheTimeoutAndRefuseItsLateCommit() {
        final long timeoutNs = CommandRingOptions.MIN_CLAIM_TIMEOUT_NS;
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(),
            new CommandRingOptions().claimTimeoutNs(timeoutNs));
        final RecordingTransport transport = new RecordingTransport(2);
        final int index = ring.register(transport);
        final long hung = ring.tryClaim(index, 1, 12);
        assertThat(hung).isGreaterThanOrEqualTo(0);
        for (long sequence = 0; sequence < 3; sequence++) {
            assertThat(RecordingTransport.offer(ring, index, 0, sequence, 0)).isZero();
        }
        reactor.doWork();
        clock[0] += timeoutNs - 1;
        reactor.doWork();
        assertThat(transport.taken).as("behind the claim until the timeout").isZero();
        clock[0] += 1;
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(3);
        assertThat(ring.abandoned()).isEqualTo(1);
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0)).hasMessageContaining("claim=" + hung).hasMessageContaining("ABANDONED");
        ring.buffer().set(RecordingTransport.INT, ring.offset(hung), 1);
        assertThat(ring.commit(hung)).isEqualTo(ReactorCommandRing.ABANDONED);
        reactor.doWork();
        assertThat(transport.takenPerProducer[1]).as("nothing of the late commit").isZero();
        assertThat(ring.misused()).isZero();
    }

    @Test
    void shouldDeliverAClaimCommittedBeforeTheTimeoutEvenAfterItBlockedTheHead() {
        final long timeoutNs = CommandRingOptions.MIN_CLAIM_TIMEOUT_NS;
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(),
            new CommandRingOptions().claimTimeoutNs(timeoutNs));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        final long claim = ring.tryClaim(index, 0, 12);
        reactor.doWork();
        clock[0] += timeoutNs - 1;
        reactor.doWork();
        ring.buffer().set(RecordingTransport.INT, ring.offset(claim), 0);
        ring.buffer().set(RecordingTransport.LONG, ring.offset(claim) + 4, 0L);
        assertThat(ring.commit(claim)).isZero();
        clock[0] += timeoutNs;
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(1);
        assertThat(ring.abandoned()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldDiscardCountAndReportACommandWhoseChannelClosedBeforeTheDrain() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions());
        final RecordingTransport transport = new RecordingTransport(3);
        final int index = ring.register(transport);
        assertThat(RecordingTransport.offer(ring, index, 0, 0, 0)).isZero();
        assertThat(RecordingTransport.offer(ring, index, 2, 0, 0)).isZero();
        assertThat(RecordingTransport.offer(ring, index, 2, 1, 0)).isZero();
        assertThat(RecordingTransport.offer(ring, index, 1, 0, 0)).isZero();
        transport.closedChannel = 2; // closed after the commits, before the drain
        reactor.doWork();
        assertThat(transport.takenPerProducer).containsExactly(1, 1, 0);
        assertThat(ring.discarded()).isEqualTo(2);
        assertThat(ring.delivered()).isEqualTo(2);
        assertThat(errors).as("one report a second at most").hasSize(1);
        assertThat(errors.get(0)).hasMessageContaining("discarded 1 ").hasMessageContaining("channelId=2")
            .hasMessageContaining("CLOSED");
        clock[0] += 1_000_000_000L;
        assertThat(RecordingTransport.offer(ring, index, 2, 2, 0)).isZero();
        reactor.doWork();
        assertThat(errors).hasSize(2);
        assertThat(errors.get(1)).hasMessageContaining("discarded 2 ");
        assertThat(ring.discarded()).isEqualTo(3);
    }

    @Test
    void shouldCarryCloseAndAbortInOrder() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions());
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        assertThat(RecordingTransport.offer(ring, index, 0, 0, 0)).isZero();
        assertThat(ring.close(index, 5)).isZero();
        assertThat(ring.abort(index, 6)).isZero();
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(1);
        assertThat(transport.controls).containsExactly("close 5", "abort 6");
        assertThat(ring.delivered()).isEqualTo(3);
    }

    @Test
    void shouldRefuseMisuseAtTheProducerAndDeliverNothingOfIt() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1024));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        assertThatThrownBy(() -> ring.tryClaim(index + 1, 0, 12)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("transportIndex=1");
        assertThatThrownBy(() -> ring.tryClaim(-1, 0, 12)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ring.tryClaim(index, 0, -1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("length=-1");
        assertThat(ring.tryClaim(index, 0, ring.maxMessageLength() + 1)).isEqualTo(ReactorCommandRing.MESSAGE_TOO_LARGE);
        assertThatThrownBy(() -> ring.commit(64)).as("commit without a claim").isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("claim=64");
        assertThatThrownBy(() -> ring.commit(3)).isInstanceOf(IllegalArgumentException.class);
        final long claim = ring.tryClaim(index, 0, 12);
        ring.buffer().set(RecordingTransport.INT, ring.offset(claim), 0);
        ring.buffer().set(RecordingTransport.LONG, ring.offset(claim) + 4, 0L);
        assertThat(ring.commit(claim)).isZero();
        assertThatThrownBy(() -> ring.commit(claim)).as("twice, before the drain").isInstanceOf(IllegalStateException.class);
        reactor.doWork();
        assertThatThrownBy(() -> ring.commit(claim)).as("twice, after the drain").isInstanceOf(IllegalStateException.class);
        final long aborted = ring.tryClaim(index, 0, 12);
        assertThat(ring.abortClaim(aborted)).isZero();
        assertThatThrownBy(() -> ring.commit(aborted)).as("after an abort").isInstanceOf(IllegalStateException.class);
        assertThat(RecordingTransport.offer(ring, index, 0, 1, 0)).as("the marker").isZero();
        reactor.doWork();
        assertThat(transport.taken).as("the one commit and the marker").isEqualTo(2);
        assertThat(transport.outOfOrder).isZero();
        assertThat(ring.misused()).isEqualTo(8);
        assertThat(ring.discarded()).isZero();
    }

    @Test
    void shouldWakeAReactorSleepingInABlockingSelect() throws Exception {
        final Reactor reactor = reactor(new ReactorOptions()
            .idleStrategy(new BlockingSelectIdleStrategy(TimeUnit.HOURS.toNanos(1))));
        final ReactorCommandRing ring = new ReactorCommandRing(reactor, new CommandRingOptions());
        final CountDownLatch delivered = new CountDownLatch(1);
        final RecordingTransport transport = new RecordingTransport(1) {
            @Override
            public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                final long result = super.send(channelId, buffer, offset, length);
                delivered.countDown();
                return result;
            }
        };
        final int index = ring.register(transport);
        final Thread thread = reactor.start();
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (!isSleeping(thread)) {
            assertThat(System.nanoTime()).as("reactor never slept").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(RecordingTransport.offer(ring, index, 0, 0, 0)).isZero();
        assertThat(delivered.await(60, TimeUnit.SECONDS)).as("woken by the commit").isTrue();
    }

    @Test
    void shouldRefuseAClaimTimeoutShorterThanOneSecond() {
        assertThat(new CommandRingOptions().claimTimeoutNs()).isEqualTo(1_000_000_000L);
        assertThatThrownBy(() -> new CommandRingOptions().claimTimeoutNs(999_999_999L))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("claimTimeoutNs=999999999 is below one second");
        assertThat(new CommandRingOptions().claimTimeoutNs(1_000_000_000L).claimTimeoutNs()).isEqualTo(1_000_000_000L);
    }

    @Test
    void shouldWakeABlockedReactorForTheClaimTimeoutWithoutAnotherCommit() throws Exception {
        final Reactor reactor = reactor(new ReactorOptions()
            .idleStrategy(new BlockingSelectIdleStrategy(TimeUnit.HOURS.toNanos(1))));
        final ReactorCommandRing ring = new ReactorCommandRing(reactor,
            new CommandRingOptions().claimTimeoutNs(CommandRingOptions.MIN_CLAIM_TIMEOUT_NS));
        final CountDownLatch delivered = new CountDownLatch(1);
        final RecordingTransport transport = new RecordingTransport(1) {
            @Override
            public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                final long result = super.send(channelId, buffer, offset, length);
                delivered.countDown();
                return result;
            }
        };
        final int index = ring.register(transport);
        final long hung = ring.tryClaim(index, 0, 12);
        assertThat(RecordingTransport.offer(ring, index, 0, 0, 0)).isZero();
        reactor.start();
        // the commit behind the hung claim is the last wake-up the reactor gets from a producer
        assertThat(delivered.await(60, TimeUnit.SECONDS)).as("delivered after the claim timeout").isTrue();
        assertThat(ring.abandoned()).isEqualTo(1);
        assertThat(ring.commit(hung)).isEqualTo(ReactorCommandRing.ABANDONED);
    }

    private static boolean isSleeping(final Thread thread) {
        for (final StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getMethodName().equals("selectBlocking")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void shouldAllocateNothingInSteadyStateOnTheProducerAndTheReactor() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1 << 12));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        final long[] sequence = {0};
        final MemorySegment source = Arena.ofAuto().allocate(64);
        // zero tolerance once the JIT has settled: the first whole set of 20 windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 20_000, 20, 5, () -> {
            for (int i = 0; i < 3; i++) {
                if (RecordingTransport.offer(ring, index, 0, sequence[0], i * 7) != 0) {
                    throw new IllegalStateException("refused");
                }
                sequence[0]++;
            }
            source.set(RecordingTransport.INT, 0, 0);
            source.set(RecordingTransport.LONG, 4, sequence[0]);
            if (ring.offer(index, 0, source, 0, 12) != 0) {
                throw new IllegalStateException("refused");
            }
            sequence[0]++;
            reactor.doWork();
        });
        assertThat(transport.taken).isEqualTo(sequence[0]);
        assertThat(transport.outOfOrder).isZero();
        assertThat(measured.totalBytes()).as("bytes allocated by producer and reactor in the last set of %d",
            measured.sets()).isZero();
    }
}
