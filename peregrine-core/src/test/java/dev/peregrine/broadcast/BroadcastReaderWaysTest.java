package dev.peregrine.broadcast;

import dev.peregrine.shm.ShmFutex;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.testkit.Needs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The reader as a reactor pollable and as a blocking reader on futex: one commit wakes every sleeping reader. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BroadcastReaderWaysTest {
    @TempDir
    Path temp;

    private Path dir() {
        return temp.resolve("logs");
    }

    @Test
    void shouldDeliverThroughAPollableAndFailOnlyThatReaderWhenItsHandlerThrows() {
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "pollable",
            BroadcastLogOptions.of(16, 16, 2, BroadcastPolicy.BLOCK))) {
            final RecordingHandler events = new RecordingHandler();
            final List<Throwable> errors = new ArrayList<>();
            final BroadcastHandler throwing = new BroadcastHandler() {
                @Override
                public void onRecord(final MemorySegment buffer, final long offset, final int length,
                    final long position) {
                    events.onRecord(buffer, offset, length, position);
                    if (position == 2) {
                        throw new IllegalStateException("handler failure at 2");
                    }
                }

                @Override
                public void onJoined(final long startPosition) {
                    events.onJoined(startPosition);
                }
            };
            try (BroadcastPollable pollable = new BroadcastPollable(
                BroadcastReader.attach(dir(), "pollable", "p", BroadcastStart.LIVE), throwing, errors::add, 2)) {
                final byte[] bytes = new byte[8];
                for (long i = 0; i < 5; i++) {
                    MemorySegment.ofArray(bytes).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                    assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
                }
                assertThat(pollable.doWork(0)).isEqualTo(2);
                assertThat(pollable.doWork(0)).as("the throw is caught and counted as work").isEqualTo(1);
                assertThat(pollable.doWork(0)).isZero();
                assertThat(events.take()).containsExactly("joined 0", "r 0 0", "r 1 1", "r 2 2");
                assertThat(errors).hasSize(1);
                assertThat(pollable.handlerErrors()).isEqualTo(1);
                assertThat(pollable.reader().failure()).contains("handler threw").contains("handler failure at 2");
            }
        }
    }

    @Test
    void shouldWakeEveryReaderSleepingOnTheFutexWithOneCommit() throws Exception {
        Needs.platform("futex", ShmFutex.isAvailable(), ShmFutex.unavailableReason());
        final int readers = 3;
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "futex",
            BroadcastLogOptions.of(16, 16, readers, BroadcastPolicy.DROP))) {
            final CountDownLatch attached = new CountDownLatch(readers);
            final AtomicLong received = new AtomicLong();
            final List<Thread> threads = new ArrayList<>();
            for (int r = 0; r < readers; r++) {
                final String name = "sleeper-" + r;
                final Thread thread = new Thread(() -> {
                    try (BroadcastBlockingReader reader = new BroadcastBlockingReader(
                        BroadcastReader.attach(dir(), "futex", name, BroadcastStart.LIVE), BroadcastWait.FUTEX,
                        TimeUnit.SECONDS.toNanos(60))) {
                        attached.countDown();
                        final BroadcastHandler handler = (buffer, offset, length, position) ->
                            received.incrementAndGet();
                        // one read, one sleep of up to a minute: only the writer's wake-up ends it within the test
                        reader.read(handler, 16, TimeUnit.SECONDS.toNanos(60));
                    }
                }, name);
                thread.start();
                threads.add(thread);
            }
            assertThat(attached.await(20, TimeUnit.SECONDS)).isTrue();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            // every reader asleep in the kernel: the sleepers count the writer reads before it wakes them
            while (writer.sleepers() < readers && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(writer.sleepers()).isEqualTo(readers);
            assertThat(writer.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            for (final Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(20));
                assertThat(thread.isAlive()).as(thread.getName() + " woken").isFalse();
            }
            assertThat(received.get()).isEqualTo(readers);
        }
    }

    @Test
    void shouldWakeOncePerRequestNotOncePerRecordWhileASleeperStaysCounted() throws Exception {
        Needs.platform("futex", ShmFutex.isAvailable(), ShmFutex.unavailableReason());
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "wakes",
            BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir(), "wakes", "r", BroadcastStart.LIVE)) {
            // the reader asks to be woken (nothing to read, so it sleeps its 1 ms bound and returns, its request set)
            reader.sleep(TimeUnit.MILLISECONDS.toNanos(1));
            // a sleeper that stays counted, as a reader woken but not yet scheduled, or stopped with SIGSTOP asleep
            changeFile(writer.path(), log -> log.set(ValueLayout.JAVA_INT, BroadcastDescriptor.SLEEPERS_OFFSET, 1));
            final byte[] bytes = new byte[8];
            for (int i = 0; i < 1_000; i++) {
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            }
            assertThat(writer.sleepers()).as("still counted").isEqualTo(1);
            assertThat(writer.wakes()).as("one request, one wake-up").isEqualTo(1);

            reader.poll((buffer, offset, length, position) -> { }, 1_000);
            reader.sleep(TimeUnit.MILLISECONDS.toNanos(1));
            for (int i = 0; i < 1_000; i++) {
                assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            }
            assertThat(writer.wakes()).as("a second request, a second wake-up").isEqualTo(2);
        }
    }

    /**
     * A futex reader waits {@link BroadcastBlockingReader#FUTEX_WINDOW_NS} after its spins before it asks to be
     * woken: a wait shorter than that costs the writer no wake-up, a longer one costs one. The clock is the test's,
     * a microsecond a reading (fails if the reader sleeps straight after its spins: the short wait makes a request).
     * Its 100 spins read the clock once in {@link BroadcastBlockingReader#SPIN_POLLS_PER_CLOCK_READ} polls: a few
     * microseconds of this clock, inside the 10 allowed for them.
     */
    @Test
    void shouldWaitBeforeItAsksToBeWoken() {
        Needs.platform("futex", ShmFutex.isAvailable(), ShmFutex.unavailableReason());
        final long[] now = {0};
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "yields",
            BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastBlockingReader reader = new BroadcastBlockingReader(
                 BroadcastReader.attach(dir(), "yields", "r", BroadcastStart.LIVE), BroadcastWait.FUTEX,
                 TimeUnit.MILLISECONDS.toNanos(1), () -> now[0] += 1_000)) {
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            final byte[] bytes = new byte[8];

            // 100 spins, then yields and parks, inside the window: the wait ends without a request
            final long spins = 10_000;
            assertThat(reader.read(none, 10, spins + BroadcastBlockingReader.FUTEX_WINDOW_NS / 2)).isZero();
            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(writer.wakes()).as("no request inside the window").isZero();
            assertThat(reader.read(none, 10, 1_000_000)).isEqualTo(1);

            // a wait past the window: the reader asks, and the next record costs the writer one wake-up
            assertThat(reader.read(none, 10, spins + BroadcastBlockingReader.FUTEX_WINDOW_NS + 20_000)).isZero();
            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(writer.wakes()).as("one request past the window").isEqualTo(1);
        }
    }

    /**
     * A {@code BLOCK} reader waits for the writer to acknowledge its attach, which the writer does in its next offer.
     * A futex reader attached to a live writer that has nothing to send sleeps meanwhile, as it does once joined
     * (it looped through its sleep without sleeping, some 2 million idle polls a second, found in the fan-out
     * bench's reader JVMs: docs/broadcast-bcast14.md), and the writer's next record both acknowledges and wakes it.
     * Fails with the pending reader kept awake: hundreds of thousands of idle polls in the 200 ms.
     */
    @Test
    void shouldSleepWhileTheWriterHasNotYetAcknowledgedItsAttach() {
        Needs.platform("futex", ShmFutex.isAvailable(), ShmFutex.unavailableReason());
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "pending",
            BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.BLOCK));
             BroadcastBlockingReader reader = new BroadcastBlockingReader(
                 BroadcastReader.attach(dir(), "pending", "r", BroadcastStart.LIVE), BroadcastWait.FUTEX,
                 TimeUnit.MILLISECONDS.toNanos(1))) {
            final List<Long> positions = new ArrayList<>();
            final BroadcastHandler handler = (buffer, offset, length, position) -> positions.add(position);

            assertThat(reader.read(handler, 10, TimeUnit.MILLISECONDS.toNanos(200))).isZero();
            // 100 spins, the window's yields and parks, then sleeps of at most 1 ms: a few hundred polls
            assertThat(reader.idlePolls()).as("idle polls in 200 ms before the writer's first offer").isLessThan(5_000);

            assertThat(writer.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(writer.wakes()).as("the sleeping reader's request, seen at that offer").isEqualTo(1);
            assertThat(reader.read(handler, 10, TimeUnit.SECONDS.toNanos(1))).isEqualTo(1);
            assertThat(positions).containsExactly(0L);
        }
    }

    /**
     * While its wait only spins, the blocking reader reads its clock once in
     * {@link BroadcastBlockingReader#SPIN_POLLS_PER_CLOCK_READ} idle polls: a reading at every poll (60-80 ns on this
     * VM) was most of the CPU of four spinning readers on 2 vCPUs (docs/broadcast-bcast12.md). A busy-spinning
     * reader on the test's clock, a microsecond a reading, waits out its millisecond on some 1 000 readings and many
     * times as many polls (fails with a reading per poll); a timeout shorter than
     * {@link BroadcastBlockingReader#SPIN_CLOCK_MIN_TIMEOUT_NS} is kept exactly, a reading per poll.
     */
    @Test
    void shouldReadItsClockOnceInManyPollsWhileItSpins() {
        final long[] readings = {0};
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "spin-clock",
            BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastBlockingReader reader = new BroadcastBlockingReader(
                 BroadcastReader.attach(dir(), "spin-clock", "r", BroadcastStart.LIVE), BroadcastWait.BUSY_SPIN,
                 TimeUnit.MILLISECONDS.toNanos(1), () -> ++readings[0] * 1_000)) {
            final BroadcastHandler none = (buffer, offset, length, position) -> { };

            assertThat(reader.read(none, 10, 1_000_000)).isZero();
            assertThat(readings[0]).as("readings of a 1 ms wait").isEqualTo(1_001);
            assertThat(reader.idlePolls()).as("idle polls in it")
                .isGreaterThanOrEqualTo((readings[0] - 1) * (BroadcastBlockingReader.SPIN_POLLS_PER_CLOCK_READ - 1));

            final long readingsBefore = readings[0];
            final long pollsBefore = reader.idlePolls();
            assertThat(reader.read(none, 10, 50_000)).isZero();
            assertThat(reader.idlePolls() - pollsBefore).as("a short timeout: a reading per idle poll")
                .isEqualTo(readings[0] - readingsBefore - 1);
            assertThat(writer.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(reader.read(none, 10, 1_000_000)).isEqualTo(1);
        }
    }

    /**
     * An idle reader looks at the writer's liveness with a clock reading only once in
     * {@link WriterCheckSchedule#IDLE_POLLS_PER_CLOCK_READ} idle polls, and at the first idle poll after a sleep (fails
     * with a reading per idle poll, and without the reading after the sleep).
     */
    @Test
    void shouldReadTheClockForTheWritersCheckOnceInManyIdlePolls() {
        Needs.platform("futex", ShmFutex.isAvailable(), ShmFutex.unavailableReason());
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "check-clock",
            BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir(), "check-clock", "r", BroadcastStart.LIVE)) {
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            assertThat(reader.poll(none, 10)).isZero(); // the join
            final long before = reader.writerClockReads();
            final int polls = 10 * WriterCheckSchedule.IDLE_POLLS_PER_CLOCK_READ;
            for (int i = 0; i < polls; i++) {
                assertThat(reader.poll(none, 10)).isZero();
            }
            assertThat(reader.writerClockReads() - before).as("readings in %d idle polls", polls).isBetween(9L, 11L);

            reader.sleep(1);
            final long beforeFirstAfterSleep = reader.writerClockReads();
            assertThat(reader.poll(none, 10)).isZero();
            assertThat(reader.writerClockReads()).as("the first idle poll after a sleep reads it")
                .isEqualTo(beforeFirstAfterSleep + 1);
            assertThat(writer.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(reader.poll(none, 10)).isEqualTo(1);
        }
    }

    /**
     * The writer looks for a wake request without a fence, so it can miss one made at the very moment it commits;
     * such a request is the first of an idle spell, or one that was not set before, and its sleep is short. Proven
     * with nobody to wake the reader: a sleep allowed a minute returns (the class's deadline is 60 s).
     */
    @Test
    void shouldSleepShortWhenTheWriterCouldHaveMissedTheRequest() {
        Needs.platform("futex", ShmFutex.isAvailable(), ShmFutex.unavailableReason());
        final long minute = TimeUnit.MINUTES.toNanos(1);
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "short-first",
            BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir(), "short-first", "r", BroadcastStart.LIVE)) {
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            final byte[] bytes = new byte[8];

            reader.sleep(minute); // the first since attaching: returns at the short bound though nobody wakes it
            assertThat(reader.lastSleepBoundNs()).isEqualTo(BroadcastReader.FIRST_SLEEP_NS);
            reader.sleep(1_000_000); // its own request, set well before, still stands: the caller's bound
            assertThat(reader.lastSleepBoundNs()).isEqualTo(1_000_000);

            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(writer.wakes()).as("the standing request is seen").isEqualTo(1);
            assertThat(reader.poll(none, 10)).isEqualTo(1);
            reader.sleep(minute); // the first since a record
            assertThat(reader.lastSleepBoundNs()).isEqualTo(BroadcastReader.FIRST_SLEEP_NS);

            // a record clears the standing request; this reader, which has slept since its last record, asks afresh
            assertThat(writer.offer(bytes, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            assertThat(writer.wakes()).isEqualTo(2);
            reader.sleep(minute); // a record is there, so no wait; its bound is the short one
            assertThat(reader.lastSleepBoundNs()).isEqualTo(BroadcastReader.FIRST_SLEEP_NS);
        }
    }

    @Test
    void shouldAllocateNothingAskingForAndMakingAWakeUp() {
        Needs.platform("futex", ShmFutex.isAvailable(), ShmFutex.unavailableReason());
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "wake-alloc",
            BroadcastLogOptions.of(64, 32, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir(), "wake-alloc", "r", BroadcastStart.LIVE)) {
            final MemorySegment payload = MemorySegment.ofArray(new byte[32]);
            final long[] sum = new long[1];
            final BroadcastHandler handler = (buffer, offset, length, position) -> sum[0] += length;
            final long[] cycles = new long[1];
            final Runnable cycle = () -> {
                reader.sleep(1); // asks for a wake-up; nothing to read, so the kernel wait times out at once
                if (writer.offer(payload, 0, 32) != BroadcastWriter.OFFERED || reader.poll(handler, 1) != 1) {
                    throw new AssertionError("not offered or not read");
                }
                cycles[0]++;
            };
            // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 5_000, 10, 5, cycle);
            assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
            assertThat(writer.wakes()).as("a wake-up per request").isEqualTo(cycles[0]);
        }
    }

    private static void changeFile(final Path file, final java.util.function.Consumer<MemorySegment> change)
        throws java.io.IOException {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
             java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
                 java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            change.accept(channel.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena));
        }
    }
}
