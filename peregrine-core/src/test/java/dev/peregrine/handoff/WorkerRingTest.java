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
 * falls at every distance from the end of the data area (8 bytes included), and each record comes back whole.
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
}
