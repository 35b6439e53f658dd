package dev.peregrine.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rings and offers written by a hostile or broken peer: the reader answers CORRUPT, never hangs and never faults;
 * an offer that cannot be one is refused with the reason.
 */
class ShmRingHostileTest {
    private static final int CAPACITY = 1024;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldTakeTheHeaderItCheckedNotWhatThePeerWroteAfterTheCheck() throws InterruptedException {
        final MemorySegment ring = ShmRingTest.newRing(CAPACITY, 100, 10, ShmRingDescriptor.MIN_ALIGNMENT);
        final int tooLong = ShmRingDescriptor.maxMessageLengthFor(CAPACITY) + 1;
        // the peer that created the file flips a header field between a valid value and one the check refuses; a
        // constructor that checks the header and then reads the field again may keep the refused value
        final Thread peer = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                ring.set(ValueLayout.JAVA_INT, ShmRingDescriptor.MAX_MESSAGE_LENGTH_OFFSET, 100);
                ring.set(ValueLayout.JAVA_INT, ShmRingDescriptor.MAX_MESSAGE_LENGTH_OFFSET, tooLong);
            }
        });
        int accepted = 0;
        int refused = 0;
        try {
            // bounded in count and time; without the snapshot a few hundred constructions sufficed to take a bad value
            final long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            for (int i = 0; i < 100_000 && System.nanoTime() - endNs < 0; i++) {
                try {
                    final int readerMax = new ShmRingReader(ring).maxMessageLength();
                    final int writerMax = new ShmRingWriter(ring).maxMessageLength();
                    assertThat(readerMax).as("reader after %d constructions", i).isEqualTo(100);
                    assertThat(writerMax).as("writer after %d constructions", i).isEqualTo(100);
                    accepted++;
                } catch (final IllegalArgumentException ex) {
                    assertThat(ex).hasMessageStartingWith("ring refused: bad header: maxMessageLength=" + tooLong);
                    refused++;
                }
            }
        } finally {
            peer.interrupt();
            peer.join();
        }
        assertThat(accepted).as("constructions that read a valid header (refused: %d)", refused).isPositive();
    }

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

    /** A server's offer naming the root, or a path with a NUL in it: refused with the reason, not a NullPointerException. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/", "/tmp/peregrine-shm-\u0000x"})
    void shouldRefuseAnOfferedRingPathThatIsNoRingFile(final String path) {
        final ByteBuffer offer = ShmHandshake.newBuffer();
        offer.putInt(ShmHandshake.MAGIC).putInt(ShmHandshake.VERSION).putInt(64 * 1024).putInt(1024).putInt(100);
        for (int ring = 0; ring < 2; ring++) {
            final byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
            offer.putShort((short)bytes.length).put(bytes);
        }

        assertThatThrownBy(() -> ShmHandshake.readOffer(offer)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("ring path");
    }
}
