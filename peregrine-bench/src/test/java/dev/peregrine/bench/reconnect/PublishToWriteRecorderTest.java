package dev.peregrine.bench.reconnect;

import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PublishToWriteRecorderTest {
    @Test
    void shouldRecordEachMessageWhenTheBytesWrittenReachItsLastByte() {
        final PublishToWriteRecorder recorder = new PublishToWriteRecorder(4, 19);
        recorder.published(33, 52, 1_000);
        recorder.published(52, 71, 2_000);

        assertThat(recorder.written(51, 5_000)).as("one byte short of the first").isZero();
        assertThat(recorder.written(52, 6_000)).isEqualTo(1);
        assertThat(recorder.written(70, 7_000)).isZero();
        assertThat(recorder.written(71, 9_000)).isEqualTo(1);
        assertThat(recorder.lastMatchedPosition()).isEqualTo(71);
        assertThat(recorder.writtenAtLastMatch()).isEqualTo(71);

        assertThat(recorder.histogram().getTotalCount()).isEqualTo(2);
        assertThat(recorder.histogram().getMinValue()).isEqualTo(5_000);
        assertThat(recorder.histogram().valuesAreEquivalent(recorder.histogram().getMaxValue(), 7_000)).isTrue();
        assertThat(recorder.waiting()).isZero();
    }

    @Test
    void shouldRecordMessagesPublishedOutsideTheWindowApart() {
        final PublishToWriteRecorder recorder = new PublishToWriteRecorder(4, 19);
        recorder.published(0, 19, 1_000, true);
        recorder.published(19, 38, 2_000, false);
        recorder.published(38, 57, 3_000, false);

        assertThat(recorder.written(57, 10_000)).isEqualTo(3);
        assertThat(recorder.histogram().getTotalCount()).as("inside the window").isEqualTo(1);
        assertThat(recorder.histogram().valuesAreEquivalent(recorder.histogram().getMaxValue(), 9_000)).isTrue();
        assertThat(recorder.outsideWindow().getTotalCount()).as("outside it").isEqualTo(2);
        assertThat(recorder.outsideWindow().getMinValue()).isEqualTo(7_000);
    }

    @Test
    void shouldCountAMessageNotQueuedAloneAtItsPublishAsNotCaughtUpAndAFullRingAsOverflow() {
        final PublishToWriteRecorder recorder = new PublishToWriteRecorder(2, 19);
        recorder.published(-1, 19, 1); // no connection
        recorder.published(19, 19, 2); // back-pressured: nothing queued
        recorder.published(19, 57, 3); // a run of two: it was behind
        recorder.published(57, 76, 4);
        recorder.published(76, 95, 5);
        recorder.published(95, 114, 6); // ring of 2 is full

        assertThat(recorder.notCaughtUp()).isEqualTo(3);
        assertThat(recorder.overflowed()).isEqualTo(1);
        assertThat(recorder.waiting()).isEqualTo(2);
        assertThat(recorder.written(-2, 100)).as("the connection is gone").isZero();
        assertThat(recorder.written(114, 100)).isEqualTo(2);
    }

    @Test
    void shouldCountEveryWriteAndThoseThatLeftBytesForTheSocketWithTheMostLeft() {
        final PublishToWriteRecorder recorder = new PublishToWriteRecorder(4, 19);
        recorder.published(0, 19, 1_000);
        recorder.published(19, 38, 1_000);
        assertThat(recorder.onWritten(10, 28, 2_000)).as("a part of the first").isZero();
        assertThat(recorder.onWritten(30, 8, 3_000)).as("the first, and part of the second").isEqualTo(1);
        assertThat(recorder.onWritten(38, 0, 4_000)).isEqualTo(1);

        assertThat(recorder.writes()).isEqualTo(3);
        assertThat(recorder.partialWrites()).isEqualTo(2);
        assertThat(recorder.mostPending()).isEqualTo(28);
        assertThat(recorder.histogram().getMinValue()).as("stamped at the write that took its last byte")
            .isEqualTo(2_000);
    }

    @Test
    void shouldAllocateNothingPerMessage() {
        final PublishToWriteRecorder recorder = new PublishToWriteRecorder(1 << 10, 19);
        final long[] position = {0};
        // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 5_000, 10, 5, () -> {
            final long before = position[0];
            position[0] += 19;
            recorder.published(before, position[0], System.nanoTime());
            recorder.written(position[0], System.nanoTime());
        });
        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
        assertThat(recorder.histogram().getTotalCount()).isEqualTo(20_000 + 50_000L * measured.sets());
    }
}
