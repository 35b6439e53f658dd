package dev.peregrine.shm;

import dev.peregrine.testkit.Needs;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShmRingTest {
    private static final int CAPACITY = 1024;

    static MemorySegment newRing(final int capacity, final int maxMessageLength, final int maxMessages) {
        return newRing(capacity, maxMessageLength, maxMessages, ShmRingDescriptor.CACHE_LINE_ALIGNMENT);
    }

    static MemorySegment newRing(final int capacity, final int maxMessageLength, final int maxMessages,
                                 final int alignment) {
        final MemorySegment segment = Arena.ofAuto().allocate(ShmRingDescriptor.fileLength(capacity), 4096);
        ShmRingDescriptor.initialise(segment, capacity, maxMessageLength, maxMessages, alignment);
        return segment;
    }

    /** Collects messages as byte arrays. */
    static final class Collector implements ShmMessageHandler {
        final List<byte[]> messages = new ArrayList<>();

        @Override
        public void onMessage(final MemorySegment buffer, final long offset, final int length) {
            messages.add(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    static byte[] pattern(final int length, final int seed) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte)(seed * 31 + i);
        }
        return bytes;
    }

    static long write(final ShmRingWriter writer, final byte[] message) {
        return writer.offer(MemorySegment.ofArray(message), 0, message.length);
    }

    @Test
    void shouldDeliverMessagesInOrderExactlyOnce() {
        final MemorySegment ring = newRing(CAPACITY, 100, 1000);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final Collector collector = new Collector();
        for (int i = 0; i < 5; i++) {
            assertThat(write(writer, pattern(i * 7, i))).isPositive();
        }
        assertThat(reader.poll(collector, 3)).isEqualTo(3);
        assertThat(reader.poll(collector, 10)).isEqualTo(2);
        assertThat(reader.poll(collector, 10)).isZero();
        assertThat(collector.messages).hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat(collector.messages.get(i)).isEqualTo(pattern(i * 7, i));
        }
    }

    @ParameterizedTest(name = "record alignment {0}")
    @ValueSource(ints = {8, 64})
    void shouldWrapAroundAtEveryOffset(final int alignment) {
        final int max = ShmRingDescriptor.maxMessageLengthFor(CAPACITY);
        for (int first = 0; first <= max; first++) {
            final MemorySegment ring = newRing(CAPACITY, max, 1000, alignment);
            final ShmRingWriter writer = new ShmRingWriter(ring);
            final ShmRingReader reader = new ShmRingReader(ring);
            final Collector collector = new Collector();
            assertThat(write(writer, pattern(first, first))).isPositive();
            // then sizes that walk the wrap point through every alignment for several laps
            int expected = 1;
            for (int i = 0; i < 60; i++) {
                final int length = (first + i * 13) % 200;
                while (write(writer, pattern(length, i)) < 0) {
                    assertThat(reader.poll(collector, 1)).as("ring full yet nothing to read").isPositive();
                }
                expected++;
            }
            while (reader.poll(collector, 10) > 0) {
                // drain
            }
            assertThat(collector.messages).as("first=" + first).hasSize(expected);
            assertThat(collector.messages.get(0)).isEqualTo(pattern(first, first));
            for (int i = 0; i < 60; i++) {
                assertThat(collector.messages.get(i + 1)).as("first=" + first + " i=" + i)
                    .isEqualTo(pattern((first + i * 13) % 200, i));
            }
        }
    }

    @Test
    void shouldBackPressureWhenBytesAreFullAndResumeAfterPoll() {
        final MemorySegment ring = newRing(CAPACITY, 200, 1000, ShmRingDescriptor.MIN_ALIGNMENT);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        int written = 0;
        while (write(writer, pattern(150, written)) >= 0) {
            written++;
        }
        // 160-byte records (8 + 150 rounded up to 8), and 8 bytes must stay free for the next header: 6 fit
        assertThat(written).isEqualTo(6);
        assertThat(write(writer, pattern(150, 99))).isEqualTo(ShmRingWriter.BACK_PRESSURED);
        final Collector collector = new Collector();
        assertThat(reader.poll(collector, 1)).isEqualTo(1);
        // the next record needs the 64 bytes before the wrap as padding, 160 bytes and 8 more: still full
        assertThat(write(writer, pattern(150, written))).isEqualTo(ShmRingWriter.BACK_PRESSURED);
        assertThat(reader.poll(collector, 1)).isEqualTo(1);
        assertThat(write(writer, pattern(150, written))).isPositive();
        while (reader.poll(collector, 100) > 0) {
            // drain
        }
        assertThat(collector.messages).hasSize(7);
        for (int i = 0; i < 7; i++) {
            assertThat(collector.messages.get(i)).isEqualTo(pattern(150, i));
        }
    }

    @Test
    void shouldBackPressureWhenMessagesInFlightReachTheLimit() {
        final MemorySegment ring = newRing(CAPACITY, 100, 3);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        assertThat(write(writer, pattern(0, 0))).isPositive();
        assertThat(write(writer, pattern(0, 0))).isPositive();
        assertThat(write(writer, pattern(0, 0))).isPositive();
        assertThat(write(writer, pattern(0, 0))).isEqualTo(ShmRingWriter.BACK_PRESSURED);
        assertThat(reader.poll(new Collector(), 2)).isEqualTo(2);
        assertThat(write(writer, pattern(0, 0))).isPositive();
        assertThat(write(writer, pattern(0, 0))).isPositive();
        assertThat(write(writer, pattern(0, 0))).isEqualTo(ShmRingWriter.BACK_PRESSURED);
    }

    @Test
    void shouldCarryMaximumAndZeroLengthMessages() {
        final int max = ShmRingDescriptor.maxMessageLengthFor(CAPACITY);
        final MemorySegment ring = newRing(CAPACITY, max, 1000);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final Collector collector = new Collector();
        for (int i = 0; i < 20; i++) {
            while (write(writer, pattern(i % 2 == 0 ? max : 0, i)) < 0) {
                assertThat(reader.poll(collector, 1)).as("ring full yet nothing to read").isPositive();
            }
        }
        while (reader.poll(collector, 10) > 0) {
            // drain
        }
        assertThat(collector.messages).hasSize(20);
        for (int i = 0; i < 20; i++) {
            assertThat(collector.messages.get(i)).isEqualTo(pattern(i % 2 == 0 ? max : 0, i));
        }
    }

    @Test
    void shouldRefuseMessageOverTheMaximum() {
        final ShmRingWriter writer = new ShmRingWriter(newRing(CAPACITY, 100, 10));
        assertThatThrownBy(() -> writer.tryClaim(101)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("length=101").hasMessageContaining("maxMessageLength=100");
        assertThatThrownBy(() -> writer.tryClaim(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShmRingDescriptor.checkParameters(CAPACITY, CAPACITY, 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMessageLength=1024");
    }

    @Test
    void shouldSkipAbortedClaimsAndRejectForeignIndexes() {
        final MemorySegment ring = newRing(CAPACITY, 100, 10);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final long aborted = writer.tryClaim(50);
        assertThatThrownBy(() -> writer.tryClaim(10)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> writer.commit(aborted + 8)).isInstanceOf(IllegalStateException.class);
        writer.abort(aborted);
        final long index = writer.tryClaim(3);
        writer.buffer().set(ValueLayout.JAVA_BYTE, index, (byte)7);
        writer.buffer().set(ValueLayout.JAVA_BYTE, index + 1, (byte)8);
        writer.buffer().set(ValueLayout.JAVA_BYTE, index + 2, (byte)9);
        writer.commit(index);
        final Collector collector = new Collector();
        assertThat(reader.poll(collector, 10)).isEqualTo(1);
        assertThat(collector.messages.get(0)).containsExactly(7, 8, 9);
    }

    @Test
    void shouldGiveUpTheClaimOfAnOfferWhoseCopyFailedAndTakeTheNextOne() {
        final MemorySegment ring = newRing(CAPACITY, 100, 10);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final MemorySegment tooShort = Arena.ofAuto().allocate(8);
        final MemorySegment message = Arena.ofAuto().allocate(3);
        message.set(ValueLayout.JAVA_BYTE, 0, (byte)7);

        assertThatThrownBy(() -> writer.offer(tooShort, 0, 64)).isInstanceOf(IndexOutOfBoundsException.class);

        assertThat(writer.offer(message, 0, 3)).as("no claim left open by the failed copy").isNotNegative();
        final Collector collector = new Collector();
        assertThat(reader.poll(collector, 10)).isEqualTo(1);
        assertThat(collector.messages).hasSize(1);
        assertThat(collector.messages.get(0)).containsExactly(7, 0, 0);
    }

    @Test
    void shouldReportCorruptRecordInsteadOfTrustingIt() {
        final MemorySegment ring = newRing(CAPACITY, 100, 10);
        final ShmRingReader reader = new ShmRingReader(ring);
        ring.set(ValueLayout.JAVA_INT, ShmRingDescriptor.HEADER_LENGTH, 5000);
        assertThat(reader.poll(new Collector(), 10)).isEqualTo(ShmRingReader.CORRUPT);
        assertThat(reader.corruption()).contains("frameLength=5000");
    }

    @Test
    void shouldReportEndOfStreamAfterWriterClose() {
        final MemorySegment ring = newRing(CAPACITY, 100, 10);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        write(writer, pattern(5, 1));
        writer.close();
        assertThat(writer.tryClaim(1)).isEqualTo(ShmRingWriter.CLOSED);
        assertThat(reader.isWriterClosed()).isTrue();
        assertThat(reader.poll(new Collector(), 10)).isEqualTo(1);
    }

    @Test
    void shouldRefuseRingFilesWithBadMagicVersionOrSize(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("ring");
        try (Arena arena = Arena.ofShared()) {
            ShmRingFile.create(file, CAPACITY, 100, 10, 64, arena);
            assertThat(ShmRingFile.map(file, CAPACITY, 100, arena)).isNotNull();
            assertThatThrownBy(() -> ShmRingFile.map(file, CAPACITY * 2, 100, arena))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("size=1536");
            assertThatThrownBy(() -> ShmRingFile.map(file, CAPACITY, 99, arena))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxMessageLength=100");
            assertThatThrownBy(() -> ShmRingFile.create(file, CAPACITY, 100, 10, 64, arena))
                .hasMessageContaining("already exists");
            final MemorySegment mapped = ShmRingFile.map(file, CAPACITY, 100, arena);
            mapped.set(ValueLayout.JAVA_INT, ShmRingDescriptor.RECORD_ALIGNMENT_OFFSET, 24);
            assertThatThrownBy(() -> ShmRingFile.map(file, CAPACITY, 100, arena))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("recordAlignment=24");
            mapped.set(ValueLayout.JAVA_INT, ShmRingDescriptor.RECORD_ALIGNMENT_OFFSET, 64);
            mapped.set(ValueLayout.JAVA_INT, ShmRingDescriptor.VERSION_OFFSET, 77);
            assertThatThrownBy(() -> ShmRingFile.map(file, CAPACITY, 100, arena))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("version=77");
            mapped.set(ValueLayout.JAVA_LONG, ShmRingDescriptor.MAGIC_OFFSET, 0x1234L);
            assertThatThrownBy(() -> ShmRingFile.map(file, CAPACITY, 100, arena))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("magic=0x1234");
            assertThatThrownBy(() -> new ShmRingReader(mapped)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("magic");
        }
        final Path foreign = dir.resolve("foreign");
        Files.write(foreign, new byte[(int)ShmRingDescriptor.fileLength(CAPACITY)]);
        try (Arena arena = Arena.ofShared()) {
            assertThatThrownBy(() -> ShmRingFile.map(foreign, CAPACITY, 100, arena))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("magic=0x0");
        }
        assertThat(Files.getPosixFilePermissions(file)).hasSize(2);
    }

    @Test
    void shouldAllocateNothingWritingAndReadingInSteadyState() {
        final MemorySegment ring = newRing(64 * 1024, 1024, 1000);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final long[] sum = new long[1];
        final ShmMessageHandler handler = (buffer, offset, length) -> sum[0] += buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        final Runnable roundTrip = () -> {
            for (int i = 0; i < 10; i++) {
                final long index = writer.tryClaim(32 + i);
                writer.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, index, i);
                writer.commit(index);
            }
            reader.poll(handler, 100);
        };
        // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 20_000, 10, 5, roundTrip);
        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
        assertThat(sum[0]).as("every window runs: 50 000 warm-up and %d sets of 10 x 20 000 measured round trips",
            measured.sets()).isEqualTo((50_000L + 200_000L * measured.sets()) * 45);
    }

    @ParameterizedTest(name = "record alignment {0}")
    @ValueSource(ints = {8, 64})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldDeliverEveryMessageOnceInOrderUnderAProducerAndAConsumerThread(final int alignment) throws Exception {
        final MemorySegment ring = newRing(4096, 500, 64, alignment);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final int count = 100_000;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread producer = new Thread(() -> {
            final Random random = new Random(42);
            for (int seq = 0; seq < count && System.nanoTime() < deadline; seq++) {
                final int length = 9 + random.nextInt(492);
                long index;
                while ((index = writer.tryClaim(length)) < 0) {
                    if (System.nanoTime() > deadline || failure.get() != null) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                // every byte is written and checked: the writer's zeroing ahead must never touch unread records
                writer.buffer().asSlice(index + 8, length - 8).fill((byte)seq);
                writer.buffer().set(ValueLayout.JAVA_INT_UNALIGNED, index, seq);
                writer.buffer().set(ValueLayout.JAVA_INT_UNALIGNED, index + 4, length);
                if (random.nextInt(10) == 0) {
                    writer.abort(index);
                    seq--;
                } else {
                    writer.commit(index);
                }
            }
        });
        final AtomicLong received = new AtomicLong();
        final ShmMessageHandler checker = (buffer, offset, length) -> {
            final int seq = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
            boolean intact = true;
            for (int i = 8; i < length; i++) {
                intact &= buffer.get(ValueLayout.JAVA_BYTE, offset + i) == (byte)seq;
            }
            if (seq != received.get() || buffer.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4) != length || !intact) {
                failure.compareAndSet(null, new AssertionError("seq=" + seq + " expected=" + received.get()
                    + " length=" + length));
            }
            received.incrementAndGet();
        };
        producer.start();
        while (received.get() < count && failure.get() == null && System.nanoTime() < deadline) {
            if (reader.poll(checker, 50) == 0) {
                Thread.onSpinWait();
            }
        }
        producer.join();
        assertThat(failure.get()).isNull();
        assertThat(reader.corruption()).isNull();
        assertThat(received.get()).isEqualTo(count);
    }

    @Test
    void shouldResumeAfterTheLastPublishedRecordWhenAWriterIsCreatedOnARingWithMessagesInFlight() {
        final MemorySegment ring = newRing(CAPACITY, 100, 4);
        final ShmRingWriter first = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final Collector collector = new Collector();
        write(first, pattern(10, 0));
        assertThat(reader.poll(collector, 10)).isEqualTo(1);
        write(first, pattern(20, 1));
        first.abort(first.tryClaim(5));
        write(first, pattern(30, 2));

        final ShmRingWriter resumed = new ShmRingWriter(ring);

        assertThat(resumed.tailPosition()).isEqualTo(first.tailPosition());
        write(resumed, pattern(40, 3));
        write(resumed, pattern(50, 4));
        // the message bound counts what was already in flight: 4 unread, the maximum
        assertThat(write(resumed, pattern(1, 5))).isEqualTo(ShmRingWriter.BACK_PRESSURED);
        assertThat(reader.poll(collector, 10)).isEqualTo(4);
        assertThat(collector.messages).hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat(collector.messages.get(i)).isEqualTo(pattern(10 * (i + 1), i));
        }
    }

    @Test
    void shouldSayWhyFutexIsUnavailableOrWakeNobodyWhenNobodySleeps() {
        if (ShmFutex.isAvailable()) {
            assertThat(ShmFutex.unavailableReason()).isNull();
            final MemorySegment word = Arena.ofAuto().allocate(4, 4);
            assertThat(ShmFutex.wake(word, 1)).isZero();
            // the word differs from the expected value: FUTEX_WAIT returns at once (EAGAIN)
            assertThat(ShmFutex.await(word, 1, Arena.ofAuto().allocate(16, 8), 5_000_000_000L)).isEqualTo(-1);
            assertThat(ShmWaitStrategy.futexOrBackoff(10)).isInstanceOf(ShmFutexWait.class);
        } else {
            assertThat(ShmFutex.unavailableReason()).isNotBlank();
            assertThat(ShmWaitStrategy.futexOrBackoff(10)).isInstanceOf(ShmBackoffWait.class);
            assertThatThrownBy(() -> new ShmFutexWait(0)).hasMessageContaining("futex unavailable");
        }
    }

    private static boolean inFutexWait(final Thread thread) {
        for (final StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(ShmFutex.class.getName()) && frame.getMethodName().equals("await")) {
                return true;
            }
        }
        return false;
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldWakeAReaderSleepingOnTheFutexWhenAMessageIsCommitted() throws Exception {
        Needs.platform("a futex", ShmFutex::unavailableReason);
        final MemorySegment ring = newRing(CAPACITY, 100, 10);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        final Collector collector = new Collector();
        final ShmFutexWait wait = new ShmFutexWait(0);
        final AtomicLong sleeps = new AtomicLong();
        final Thread consumer = new Thread(() -> {
            while (collector.messages.size() < 3) {
                final int work = reader.poll(collector, 10);
                if (work == 0) {
                    sleeps.incrementAndGet();
                }
                wait.idle(reader, work, TimeUnit.SECONDS.toNanos(100));
            }
        });
        consumer.start();
        for (int i = 0; i < 3; i++) {
            // until the reader is asleep: its futex word says so and its thread is inside the futex wait
            while (ring.get(ValueLayout.JAVA_INT, ShmRingDescriptor.FUTEX_OFFSET) == 0 || !inFutexWait(consumer)) {
                writer.heartbeat(System.nanoTime()); // an idle writer acknowledges the reader's wish to sleep
                Thread.sleep(1);
            }
            write(writer, pattern(10, i));
        }
        consumer.join(); // a lost wake-up would hang for 100 s here, past the timeout
        assertThat(collector.messages).hasSize(3);
        assertThat(sleeps.get()).isGreaterThanOrEqualTo(3);
    }
}
