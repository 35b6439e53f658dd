package dev.peregrine.handoff;

import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The worker ring's batch claim ({@link WorkerRing#tryClaimBatch}) on one thread: every record of every batch comes
 * back whole and in order wherever the wrap falls; a batch that does not fit is refused and writes nothing; misuse;
 * zero allocation.
 */
class WorkerRingBatchTest {
    /** Records each message as "channel:first byte:length" and checks that every payload byte is its first. */
    private static final class Recorder implements WorkerHandler {
        final List<String> read = new ArrayList<>();
        long torn;

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final byte first = length == 0 ? 0 : buffer.get(ValueLayout.JAVA_BYTE, offset);
            for (int i = 1; i < length; i++) {
                if (buffer.get(ValueLayout.JAVA_BYTE, offset + i) != first) {
                    torn++;
                }
            }
            read.add(channelId + ":" + first + ":" + length);
        }
    }

    /** Claims a batch, fills payload i with the byte {@code firstByte + i}, and publishes; false if refused. */
    private static boolean writeBatch(final WorkerRing ring, final long channelId, final int length, final int count,
                                      final int firstByte) {
        final long first = ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, channelId, length, count);
        if (first < 0) {
            return false;
        }
        final int stride = WorkerRingDescriptor.aligned(WorkerRingDescriptor.RECORD_HEADER_LENGTH + length);
        for (int i = 0; i < count; i++) {
            ring.buffer().asSlice(first + (long)i * stride, length).fill((byte)(firstByte + i));
        }
        ring.publish();
        return true;
    }

    @Test
    void shouldReturnEveryRecordOfEveryBatchWholeAndInOrderWhereverTheWrapFalls() {
        try (WorkerRing ring = new WorkerRing(1024)) {
            final Recorder recorder = new Recorder();
            long records = 0;
            for (int batch = 0; batch < 3_000; batch++) {
                final int count = 1 + batch % 6;
                final int length = batch % 41; // strides of 16 to 56 bytes: the wrap falls everywhere
                assertThat(writeBatch(ring, batch, length, count, batch)).as("batch %d", batch).isTrue();
                recorder.read.clear();
                assertThat(ring.read(recorder, 100)).isEqualTo(count);
                final List<String> expected = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    expected.add(batch + ":" + (length == 0 ? 0 : (byte)(batch + i)) + ":" + length);
                }
                assertThat(recorder.read).as("batch %d", batch).containsExactlyElementsOf(expected);
                records += count;
            }
            assertThat(recorder.torn).isZero();
            assertThat(ring.written()).isEqualTo(records);
            assertThat(ring.readCount()).isEqualTo(records);
        }
    }

    @Test
    void shouldRefuseABatchThatDoesNotFitAndWriteNothingOfIt() {
        try (WorkerRing ring = new WorkerRing(1024)) {
            final Recorder recorder = new Recorder();
            // records of 16 + 48 = 64 bytes: 12 take 768 of 1024
            assertThat(writeBatch(ring, 1, 48, 6, 10)).isTrue();
            assertThat(writeBatch(ring, 2, 48, 6, 20)).isTrue();
            assertThat(ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 3, 48, 5)).as("320 > 256 left")
                .isEqualTo(-1);
            assertThat(ring.refused()).isEqualTo(1);
            ring.publish();
            assertThat(ring.written()).as("nothing of the refused batch counted").isEqualTo(12);
            assertThat(ring.read(recorder, 100)).isEqualTo(12);
            assertThat(recorder.read).as("nothing of the refused batch shows").allMatch(r -> !r.startsWith("3:"));
            final long first = ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 3, 48, 4);
            assertThat(first).as("the tail did not move: 256 left before the wrap, exactly 4 records")
                .isEqualTo(WorkerRingDescriptor.HEADER_LENGTH + 768 + WorkerRingDescriptor.RECORD_HEADER_LENGTH);
        }
    }

    @Test
    void shouldRefuseBatchMisuse() {
        try (WorkerRing ring = new WorkerRing(1024)) {
            assertThatThrownBy(() -> ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 0, 16, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count=0");
            assertThatThrownBy(() -> ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 0, -1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length=-1");
            assertThatThrownBy(() -> ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 0, 16, 17))
                .as("17 records of 32 bytes are more than half the ring")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count=17");
            assertThat(ring.maxBatchCount(16)).isEqualTo(16);
            assertThat(ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 0, 16, 16)).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void shouldAllocateNothingInSteadyState() {
        try (WorkerRing ring = new WorkerRing(1 << 12)) {
            final long[] sum = {0};
            final WorkerHandler handler = new WorkerHandler() {
                @Override
                public void onMessage(final long channelId, final MemorySegment buffer, final long offset,
                                      final int length) {
                    sum[0] += buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                }
            };
            final long[] next = {0};
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 20_000, 20, 5, () -> {
                final int count = 1 + (int)(next[0] % 5);
                final int length = 8 + count * 3;
                final long first = ring.tryClaimBatch(WorkerRingDescriptor.TYPE_MESSAGE, 0, length, count);
                if (first < 0) {
                    throw new IllegalStateException("refused");
                }
                final int stride = WorkerRingDescriptor.aligned(WorkerRingDescriptor.RECORD_HEADER_LENGTH + length);
                for (int i = 0; i < count; i++) {
                    ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, first + (long)i * stride, next[0]++);
                }
                ring.publish();
                ring.read(handler, 100);
            });
            assertThat(ring.readCount()).isEqualTo(next[0]);
            assertThat(sum[0]).isEqualTo(next[0] * (next[0] - 1) / 2);
            assertThat(measured.totalBytes()).as("bytes allocated in the last set of %d", measured.sets()).isZero();
        }
    }
}
