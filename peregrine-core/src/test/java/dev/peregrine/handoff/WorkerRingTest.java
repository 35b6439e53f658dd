package dev.peregrine.handoff;

import dev.peregrine.channel.CloseReason;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker ring on one thread: every length from 0 to 40 bytes, written and read over many laps, so that the wrap
 * falls at every distance from the end of the data area (8 bytes included), and each record comes back whole; a
 * full ring read in one call delivers each record once; a handler that throws leaves the rest for the next read.
 */
class WorkerRingTest {
    @Test
    void shouldReturnEveryRecordWholeWhereverTheWrapFalls() {
        try (WorkerRing ring = new WorkerRing(1024); Arena arena = Arena.ofConfined()) {
            final MemorySegment source = arena.allocate(64, 8);
            final List<String> read = new ArrayList<>();
            final WorkerHandler recorder = new WorkerHandler() {
                @Override
                public void onMessage(final long channelId, final MemorySegment buffer, final long offset,
                                      final int length) {
                    final StringBuilder text = new StringBuilder().append(channelId).append(':');
                    for (int i = 0; i < length; i++) {
                        text.append((char)buffer.get(ValueLayout.JAVA_BYTE, offset + i));
                    }
                    read.add(text.toString());
                }

                @Override
                public void onClosed(final long channelId, final CloseReason reason) {
                    read.add(channelId + ":" + reason);
                }
            };
            long written = 0;
            for (int round = 0; round < 2_000; round++) {
                final List<String> expected = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    final int length = (int)(written % 41);
                    final StringBuilder text = new StringBuilder().append(written).append(':');
                    for (int b = 0; b < length; b++) {
                        final char c = (char)('a' + (written + b) % 26);
                        source.set(ValueLayout.JAVA_BYTE, b, (byte)c);
                        text.append(c);
                    }
                    assertThat(ring.tryWrite(WorkerRingDescriptor.TYPE_MESSAGE, written, source, 0, length)).isTrue();
                    expected.add(text.toString());
                    written++;
                }
                source.set(ValueLayout.JAVA_INT, 0, CloseReason.RESET.ordinal());
                assertThat(ring.tryWrite(WorkerRingDescriptor.TYPE_CLOSED, -round, source, 0, 4)).isTrue();
                expected.add(-round + ":RESET");
                read.clear();
                assertThat(ring.read(recorder, 100)).isEqualTo(4);
                assertThat(read).containsExactlyElementsOf(expected);
            }
            assertThat(ring.written()).isEqualTo(8_000);
            assertThat(ring.readCount()).isEqualTo(8_000);
        }
    }

    /**
     * A read takes what lies below the tail the producer published, and a full ring's worth is delivered once, never a
     * record twice (fails if a read walks past the published tail: it meets the first record again a lap later).
     */
    @Test
    void shouldDeliverAFullRingOnceInOneRead() {
        try (WorkerRing ring = new WorkerRing(1024); Arena arena = Arena.ofConfined()) {
            final MemorySegment source = arena.allocate(8, 8);
            for (int lap = 0; lap < 3; lap++) {
                int written = 0;
                while (ring.tryWrite(WorkerRingDescriptor.TYPE_OPENED, written, source, 0, 0)) {
                    written++;
                }
                assertThat(written).isEqualTo(1024 / WorkerRingDescriptor.RECORD_HEADER_LENGTH);
                final List<Long> opened = new ArrayList<>();
                final WorkerHandler handler = new WorkerHandler() {
                    @Override
                    public void onMessage(final long channelId, final MemorySegment buffer, final long offset,
                                          final int length) {
                        throw new AssertionError("no message was written");
                    }

                    @Override
                    public void onOpened(final long channelId) {
                        opened.add(channelId);
                    }
                };
                assertThat(ring.read(handler, 10_000)).isEqualTo(written);
                assertThat(opened).hasSize(written).doesNotHaveDuplicates();
                assertThat(ring.read(handler, 10_000)).isZero();
            }
        }
    }

    /** A handler that throws: its record counts as read, the head moves past it, the rest come with the next read. */
    @Test
    void shouldReleaseWhatWasReadWhenTheHandlerThrows() {
        try (WorkerRing ring = new WorkerRing(1024); Arena arena = Arena.ofConfined()) {
            final MemorySegment source = arena.allocate(8, 8);
            for (int i = 0; i < 10; i++) {
                assertThat(ring.tryWrite(WorkerRingDescriptor.TYPE_OPENED, i, source, 0, 0)).isTrue();
            }
            final List<Long> opened = new ArrayList<>();
            final WorkerHandler handler = new WorkerHandler() {
                @Override
                public void onMessage(final long channelId, final MemorySegment buffer, final long offset,
                                      final int length) {
                }

                @Override
                public void onOpened(final long channelId) {
                    opened.add(channelId);
                    if (channelId == 3) {
                        throw new IllegalStateException("handler fails on 3");
                    }
                }
            };
            try {
                ring.read(handler, 100);
                throw new AssertionError("the handler's exception should reach the caller");
            } catch (final IllegalStateException expected) {
                assertThat(expected).hasMessage("handler fails on 3");
            }
            assertThat(ring.readCount()).isEqualTo(4);
            assertThat(ring.read(handler, 100)).isEqualTo(6);
            assertThat(opened).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
            int written = 0;
            while (ring.tryWrite(WorkerRingDescriptor.TYPE_OPENED, written, source, 0, 0)) {
                written++;
            }
            assertThat(written).as("the whole ring is free again")
                .isEqualTo(1024 / WorkerRingDescriptor.RECORD_HEADER_LENGTH);
        }
    }

    /**
     * Appended records stay unseen until publish, then all show in order, wherever the wrap falls inside the batch
     * (fails if a read looks past the published tail, or if append releases the tail).
     */
    @Test
    void shouldShowAnAppendedBatchOnlyWhenPublished() {
        try (WorkerRing ring = new WorkerRing(1024); Arena arena = Arena.ofConfined()) {
            final MemorySegment source = arena.allocate(64, 8);
            final List<Long> read = new ArrayList<>();
            final WorkerHandler handler = new WorkerHandler() {
                @Override
                public void onMessage(final long channelId, final MemorySegment buffer, final long offset,
                                      final int length) {
                    assertThat(length).isEqualTo((int)(channelId % 29));
                    read.add(channelId);
                }
            };
            long next = 0;
            for (int batch = 0; batch < 500; batch++) {
                final int count = 1 + batch % 7;
                final List<Long> expected = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    assertThat(ring.tryAppend(WorkerRingDescriptor.TYPE_MESSAGE, next, source, 0, (int)(next % 29)))
                        .isTrue();
                    expected.add(next++);
                    assertThat(ring.read(handler, 100)).as("nothing shows before publish").isZero();
                }
                assertThat(ring.written()).isEqualTo(next - count);
                ring.publish();
                assertThat(ring.written()).isEqualTo(next);
                read.clear();
                assertThat(ring.read(handler, 100)).isEqualTo(count);
                assertThat(read).containsExactlyElementsOf(expected);
            }
        }
    }
}
