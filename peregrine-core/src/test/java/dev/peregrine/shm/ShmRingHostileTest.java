package dev.peregrine.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rings written by a hostile or broken peer: the reader answers CORRUPT, never hangs and never faults. */
class ShmRingHostileTest {
    private static final int CAPACITY = 1024;

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAnswerCorruptInsteadOfLoopingWhenAWholeLapIsPadding() {
        final MemorySegment ring = ShmRingTest.newRing(CAPACITY, 100, 10, ShmRingDescriptor.MIN_ALIGNMENT);
        final ShmRingReader reader = new ShmRingReader(ring);
        // every record of the lap is padding: a reader that only counts messages would go round for ever
        for (int index = 0; index < CAPACITY; index += 64) {
            ring.set(ValueLayout.JAVA_INT, ShmRingDescriptor.HEADER_LENGTH + index, 64);
            ring.set(ValueLayout.JAVA_INT, ShmRingDescriptor.HEADER_LENGTH + index + 4L, ShmRingDescriptor.TYPE_PADDING);
        }
        final ShmRingTest.Collector collector = new ShmRingTest.Collector();
        assertThat(reader.poll(collector, 10)).isEqualTo(ShmRingReader.CORRUPT);
        assertThat(reader.corruption()).contains("past a whole lap");
        assertThat(collector.messages).isEmpty();
        assertThat(reader.poll(collector, 10)).isEqualTo(ShmRingReader.CORRUPT);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAnswerCorruptWhenALapOfMessagesIsFollowedByMore() {
        final MemorySegment ring = ShmRingTest.newRing(CAPACITY, 100, 1000, ShmRingDescriptor.MIN_ALIGNMENT);
        final ShmRingReader reader = new ShmRingReader(ring);
        // a full lap of 16-byte messages with no free header after the last: more than any writer may publish
        for (int index = 0; index < CAPACITY; index += 16) {
            ring.set(ValueLayout.JAVA_INT, ShmRingDescriptor.HEADER_LENGTH + index, 16);
            ring.set(ValueLayout.JAVA_INT, ShmRingDescriptor.HEADER_LENGTH + index + 4L, ShmRingDescriptor.TYPE_MESSAGE);
        }
        final ShmRingTest.Collector collector = new ShmRingTest.Collector();
        assertThat(reader.poll(collector, 10_000)).isEqualTo(ShmRingReader.CORRUPT);
        assertThat(collector.messages).hasSizeLessThan(CAPACITY / 16);
    }

    @Test
    void shouldAnswerCorruptForAHeadThatIsNotAligned() {
        final MemorySegment ring = ShmRingTest.newRing(CAPACITY, 100, 10);
        ring.set(ValueLayout.JAVA_LONG, ShmRingDescriptor.HEAD_OFFSET, 2);
        final ShmRingReader reader = new ShmRingReader(ring);
        assertThat(reader.poll(new ShmRingTest.Collector(), 10)).isEqualTo(ShmRingReader.CORRUPT);
        assertThat(reader.corruption()).contains("head=2");
        assertThatThrownBy(() -> new ShmRingWriter(ring)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("head=2");
    }
}
