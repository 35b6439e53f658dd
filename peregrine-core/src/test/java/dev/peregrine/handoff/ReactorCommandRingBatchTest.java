package dev.peregrine.handoff;

import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.AllocationMeter;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The command ring's batch claim ({@link ReactorCommandRing#tryClaimBatch}): every message of a batch once and in
 * order, across the wrap and under concurrent producers; a batch that does not fit refused whole; a batch cut by the
 * drain limit or a back-pressured transport resumed where it stopped; the claim timeout; misuse; zero allocation.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReactorCommandRingBatchTest {
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

    /**
     * Claims a batch of {@code count} messages of {@code 12 + extra} bytes, each the producer's number and its next
     * sequence, and commits it; the code of a refused claim, or of the commit.
     */
    static long offerBatch(final ReactorCommandRing ring, final int transport, final int producer,
                           final long firstSequence, final int count, final int extra) {
        final long claim = ring.tryClaimBatch(transport, producer, 12 + extra, count);
        if (claim < 0) {
            return claim;
        }
        for (int i = 0; i < count; i++) {
            final long offset = ring.batchOffset(claim, i);
            ring.buffer().set(RecordingTransport.INT, offset, producer);
            ring.buffer().set(RecordingTransport.LONG, offset + 4, firstSequence + i);
        }
        return ring.commit(claim);
    }

    @Test
    void shouldDeliverEveryMessageOfEveryBatchOnceInOrderAcrossManyWraps() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1024));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        long sequence = 0;
        for (int round = 0; round < 5_000; round++) {
            final int count = 1 + round % 7; // counts and lengths that move the wrap point round the ring
            final int extra = round % 13;
            assertThat(offerBatch(ring, index, 0, sequence, count, extra)).as("round %d", round).isZero();
            sequence += count;
            if (round % 3 == 0) { // single claims between the batches
                assertThat(RecordingTransport.offer(ring, index, 0, sequence, round % 5)).isZero();
                sequence++;
            }
            reactor.doWork();
            assertThat(transport.taken).as("round %d", round).isEqualTo(sequence);
        }
        assertThat(transport.outOfOrder).isZero();
        assertThat(transport.wrongLength).isZero();
        assertThat(ring.delivered()).isEqualTo(sequence);
        assertThat(ring.misused()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldRefuseABatchThatDoesNotFitNowAndWriteNothingOfIt() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1024));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        // 6 messages of 16 bytes: 32 + 6 * 16 = 128 bytes a batch; four fill 512 of the 1024
        long sequence = 0;
        for (int i = 0; i < 4; i++) {
            assertThat(offerBatch(ring, index, 0, sequence, 6, 4)).isZero();
            sequence += 6;
        }
        final long lastSingle = ring.tryClaim(index, 0, 12 + 300); // 336 bytes: 848 of 1024 taken
        assertThat(lastSingle).isEqualTo(512);
        ring.buffer().set(RecordingTransport.INT, ring.offset(lastSingle), 0);
        ring.buffer().set(RecordingTransport.LONG, ring.offset(lastSingle) + 4, sequence);
        assertThat(ring.commit(lastSingle)).isZero();
        sequence++;
        // 176 bytes left: a batch of 128 + 64 = 192 does not fit, and nothing of it is written
        assertThat(ring.tryClaimBatch(index, 0, 16, 10)).isEqualTo(ReactorCommandRing.BACK_PRESSURED);
        assertThat(ring.backPressured()).isEqualTo(1);
        assertThat(ring.buffer().get(RecordingTransport.LONG, (long)CommandRingDescriptor.HEADER_LENGTH + 848))
            .as("the state word where the refused batch would have gone").isZero();
        final long fits = ring.tryClaimBatch(index, 0, 16, 9); // 32 + 9 * 16 = 176: the room left exactly
        assertThat(fits).as("the tail did not move for the refused batch").isEqualTo(848);
        assertThat(ring.abortClaim(fits)).isZero();
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(sequence);
        assertThat(transport.outOfOrder).isZero();
        assertThat(offerBatch(ring, index, 0, sequence, 10, 4)).as("room again after the drain").isZero();
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(sequence + 10);
        assertThat(transport.outOfOrder).isZero();
    }

    @Test
    void shouldResumeABatchWhereTheDrainLimitAndABackPressuredTransportStoppedIt() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(),
            new CommandRingOptions().capacity(4096).drainLimit(3));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        assertThat(offerBatch(ring, index, 0, 0, 8, 0)).isZero();
        assertThat(RecordingTransport.offer(ring, index, 0, 8, 0)).isZero();
        assertThat(ring.doWork(clock[0])).isEqualTo(3);
        assertThat(transport.taken).isEqualTo(3);
        transport.refuseNext = 1;
        assertThat(ring.doWork(clock[0])).as("the transport refuses the fourth").isZero();
        assertThat(ring.isBackPressured(index)).isTrue();
        assertThat(ring.doWork(clock[0])).isEqualTo(3);
        assertThat(ring.isBackPressured(index)).isFalse();
        assertThat(ring.doWork(clock[0])).as("the batch's last two, then the single behind it").isEqualTo(3);
        assertThat(ring.doWork(clock[0])).isZero();
        assertThat(transport.taken).isEqualTo(9);
        assertThat(transport.nextSequence[0]).isEqualTo(9);
        assertThat(transport.outOfOrder).isZero();
        assertThat(ring.delivered()).isEqualTo(9);
    }

    @Test
    void shouldPadOverABatchNeverCommittedAfterTheTimeoutAndRefuseItsLateCommit() {
        final long timeoutNs = CommandRingOptions.MIN_CLAIM_TIMEOUT_NS;
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(),
            new CommandRingOptions().claimTimeoutNs(timeoutNs));
        final RecordingTransport transport = new RecordingTransport(2);
        final int index = ring.register(transport);
        final long hung = ring.tryClaimBatch(index, 1, 12, 5);
        assertThat(hung).isGreaterThanOrEqualTo(0);
        for (int i = 0; i < 5; i++) { // written, and then its producer is descheduled past the timeout
            ring.buffer().set(RecordingTransport.INT, ring.batchOffset(hung, i), 1);
        }
        assertThat(offerBatch(ring, index, 0, 0, 4, 0)).isZero();
        reactor.doWork();
        assertThat(transport.taken).as("behind the batch until the timeout").isZero();
        clock[0] += timeoutNs;
        reactor.doWork();
        assertThat(transport.taken).isEqualTo(4);
        assertThat(ring.abandoned()).isEqualTo(1);
        assertThat(ring.commit(hung)).isEqualTo(ReactorCommandRing.ABANDONED);
        reactor.doWork();
        assertThat(transport.takenPerProducer[1]).as("nothing of the late commit").isZero();
    }

    @Test
    void shouldRefuseBatchMisuseAtTheProducer() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1024));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        assertThat(ring.maxBatchCount(16)).as("(512 - 32) / 16").isEqualTo(30);
        assertThat(ring.tryClaimBatch(index, 0, 16, 31)).isEqualTo(ReactorCommandRing.MESSAGE_TOO_LARGE);
        assertThat(ring.tryClaimBatch(index, 0, 16, Integer.MAX_VALUE)).isEqualTo(ReactorCommandRing.MESSAGE_TOO_LARGE);
        assertThatThrownBy(() -> ring.tryClaimBatch(index, 0, 16, 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("count=0");
        assertThatThrownBy(() -> ring.tryClaimBatch(index, 0, -1, 2)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("length=-1");
        assertThatThrownBy(() -> ring.tryClaimBatch(5, 0, 16, 2)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("transportIndex=5");
        final long claim = ring.tryClaimBatch(index, 0, 16, 30);
        assertThat(claim).isGreaterThanOrEqualTo(0);
        assertThatThrownBy(() -> ring.batchOffset(claim, 30)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("index=30").hasMessageContaining("count=30");
        assertThat(ring.batchOffset(claim, 29) - ring.batchOffset(claim, 0)).isEqualTo(29 * 16);
        assertThat(ring.abortClaim(claim)).isZero();
        final long single = ring.tryClaim(index, 0, 16);
        assertThatThrownBy(() -> ring.batchOffset(single, 0)).as("a single claim is not a batch")
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(ring.abortClaim(single)).isZero();
        assertThat(ring.misused()).isEqualTo(5);
        reactor.doWork();
        assertThat(transport.taken).isZero();
        assertThat(ring.delivered()).isZero();
    }

    @Test
    void shouldKeepEachProducersOrderWhenProducersMixBatchesAndSingles() throws Exception {
        final int producers = 3;
        final int perProducer = 300_000;
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
                    long sequence = 0;
                    while (sequence < perProducer) {
                        final int count = (int)Math.min(1 + sequence % 9, perProducer - sequence);
                        final long result = count == 1
                            ? RecordingTransport.offer(ring, index, producer, sequence, (int)(sequence % 23))
                            : offerBatch(ring, index, producer, sequence, count, (int)(sequence % 23));
                        if (result == 0) {
                            sequence += count;
                        } else {
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
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (transport.taken != (long)producers * perProducer && failure.get() == null) {
            reactor.doWork();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("taken=" + transport.taken + ", refused=" + ring.backPressured());
            }
        }
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
        assertThat(ring.delivered()).isEqualTo((long)producers * perProducer);
        assertThat(ring.abandoned()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldAllocateNothingInSteadyStateWithBatches() {
        final ReactorCommandRing ring = new ReactorCommandRing(manualReactor(), new CommandRingOptions().capacity(1 << 12));
        final RecordingTransport transport = new RecordingTransport(1);
        final int index = ring.register(transport);
        final long[] sequence = {0};
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 20_000, 20, 5, () -> {
            final int count = 1 + (int)(sequence[0] % 5);
            if (offerBatch(ring, index, 0, sequence[0], count, count * 3) != 0) {
                throw new IllegalStateException("refused");
            }
            sequence[0] += count;
            reactor.doWork();
        });
        assertThat(transport.taken).isEqualTo(sequence[0]);
        assertThat(transport.outOfOrder).isZero();
        assertThat(measured.totalBytes()).as("bytes allocated by producer and reactor in the last set of %d",
            measured.sets()).isZero();
    }
}
