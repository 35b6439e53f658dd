package dev.peregrine.peers;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sequence field of a benchmark message: which length a run uses, its bytes on the wire (golden bytes written
 * out by hand, little-endian), and how a client tells a wrong or stale 32-bit echo from the one it expects.
 */
class BenchMessageLayoutTest {
    private static final long SEQUENCE = 0x0102_0304_0506_0708L;
    /** SEQUENCE little-endian, written out. */
    private static final byte[] LONG_FIELD = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
    /** SEQUENCE's low 32 bits little-endian, written out. */
    private static final byte[] SHORT_FIELD = {0x08, 0x07, 0x06, 0x05};
    private static final long LOW_BITS = 0x0506_0708L;

    @Test
    void shouldCarryTheFullSequenceOnlyWhenBothMessageAndReplyHoldEightBytes() {
        assertThat(BenchMessageLayout.sequenceLength(16, 16)).isEqualTo(8);
        assertThat(BenchMessageLayout.sequenceLength(8, 1024)).isEqualTo(8);
        assertThat(BenchMessageLayout.sequenceLength(4, 1024)).isEqualTo(4);
        assertThat(BenchMessageLayout.sequenceLength(1024, 7)).isEqualTo(4);
        assertThat(BenchMessageLayout.sequenceLength(4, 4)).isEqualTo(4);
    }

    @Test
    void shouldWriteAndReadTheFieldLittleEndianInAnArray() {
        final byte[] bytes = new byte[12];
        BenchMessageLayout.putSequence(bytes, 2, 8, SEQUENCE);
        assertThat(slice(bytes, 2, 8)).containsExactly(LONG_FIELD);
        assertThat(BenchMessageLayout.sequence(bytes, 2, 8)).isEqualTo(SEQUENCE);

        final byte[] small = new byte[4];
        BenchMessageLayout.putSequence(small, 0, 4, SEQUENCE);
        assertThat(small).containsExactly(SHORT_FIELD);
        assertThat(BenchMessageLayout.sequence(small, 0, 4)).isEqualTo(LOW_BITS);
    }

    @Test
    void shouldWriteAndReadTheFieldLittleEndianInABufferOfEitherOrder() {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            final ByteBuffer buffer = ByteBuffer.allocate(12).order(order);
            BenchMessageLayout.putSequence(buffer, 4, 8, SEQUENCE);
            assertThat(slice(buffer.array(), 4, 8)).as(order.toString()).containsExactly(LONG_FIELD);
            assertThat(BenchMessageLayout.sequence(buffer, 4, 8)).isEqualTo(SEQUENCE);

            final ByteBuffer small = ByteBuffer.allocate(4).order(order);
            BenchMessageLayout.putSequence(small, 0, 4, SEQUENCE);
            assertThat(small.array()).as(order.toString()).containsExactly(SHORT_FIELD);
            assertThat(BenchMessageLayout.sequence(small, 0, 4)).isEqualTo(LOW_BITS);
            assertThat(buffer.position()).isZero();
            assertThat(buffer.order()).isEqualTo(order);
        }
    }

    @Test
    void shouldWriteAndReadTheFieldLittleEndianInASegmentWithinItsBounds() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(9);
            BenchMessageLayout.putSequence(segment, 1, 8, SEQUENCE);
            assertThat(slice(segment.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 1, 8)).containsExactly(LONG_FIELD);
            assertThat(BenchMessageLayout.sequence(segment, 1, 8)).isEqualTo(SEQUENCE);

            final MemorySegment small = arena.allocate(4); // a 4-byte message: an 8-byte access would be out of bounds
            BenchMessageLayout.putSequence(small, 0, 4, SEQUENCE);
            assertThat(small.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsExactly(SHORT_FIELD);
            assertThat(BenchMessageLayout.sequence(small, 0, 4)).isEqualTo(LOW_BITS);
        }
    }

    @Test
    void shouldReadAShortFieldUnsignedSoThatItIsNeverTakenForNoEcho() {
        final byte[] bytes = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        assertThat(BenchMessageLayout.sequence(bytes, 0, 4)).isEqualTo(0xFFFF_FFFFL);
        assertThat(BenchMessageLayout.sequence(ByteBuffer.wrap(bytes), 0, 4)).isEqualTo(0xFFFF_FFFFL);
        assertThat(BenchMessageLayout.sequence(MemorySegment.ofArray(bytes), 0, 4)).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void shouldWidenTheEchoOfTheLastSequenceSentToThatSequenceAcrossThe32BitBoundary() {
        assertThat(BenchMessageLayout.widen(7, 7, 4)).isEqualTo(7);
        assertThat(BenchMessageLayout.widen(0, 1L << 32, 4)).isEqualTo(1L << 32);
        assertThat(BenchMessageLayout.widen(0xFFFF_FFFFL, (1L << 32) - 1, 4)).isEqualTo((1L << 32) - 1);
        assertThat(BenchMessageLayout.widen(5, (3L << 32) + 5, 4)).isEqualTo((3L << 32) + 5);
    }

    @Test
    void shouldWidenAStaleOrWrongEchoToAnotherSequenceThanTheOneExpected() {
        // stale: the echo of the message before; with several in flight, of an older one
        assertThat(BenchMessageLayout.widen(6, 7, 4)).isEqualTo(6);
        assertThat(BenchMessageLayout.widen(0xFFFF_FFFFL, 1L << 32, 4)).isEqualTo((1L << 32) - 1);
        assertThat(BenchMessageLayout.widen(90, 100, 4)).isEqualTo(90);
        // wrong: from the future, or garbage
        assertThat(BenchMessageLayout.widen(8, 7, 4)).isEqualTo(8);
        assertThat(BenchMessageLayout.widen(0x1234_5678L, 7, 4)).isNotEqualTo(7);
        // near zero a wrong echo stays non-negative: -1 would read as "no echo yet", and the run would only time out
        assertThat(BenchMessageLayout.widen(0xFFFF_FFFFL, 0, 4)).isEqualTo(0xFFFF_FFFFL);
        assertThat(BenchMessageLayout.widen(0xFFFF_FFF0L, 3, 4)).isEqualTo(0xFFFF_FFF0L);
    }

    @Test
    void shouldLeaveAFullFieldAsItCame() {
        assertThat(BenchMessageLayout.widen(SEQUENCE, 3, 8)).isEqualTo(SEQUENCE);
        assertThat(BenchMessageLayout.widen(6, 7, 8)).isEqualTo(6);
    }

    private static byte[] slice(final byte[] bytes, final int from, final int length) {
        return java.util.Arrays.copyOfRange(bytes, from, from + length);
    }
}
