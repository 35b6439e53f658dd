package dev.peregrine.mold;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.SplittableRandom;

import static dev.peregrine.mold.MoldUDP64MessageStoreTest.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store keeps messages as SoupBinTCP Sequenced Data packets: a run of them is one range of the ring, and a seek
 * through the sparse index finds every kept message, across wraps, both bounds and a reopen.
 */
class MoldUDP64StorePacketsTest {
    private final MemorySegment scratch = Arena.ofAuto().allocate(70_000);

    @Test
    void shouldKeepEachMessageAsASequencedDataPacketSoThatARunIsOneRange() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 16, 1 << 16)) {
            store.append(message(3, 1), 0, 3);
            store.append(message(0, 0), 0, 0);
            store.append(message(2, 7), 0, 2);

            assertThat(store.packetRun(1, 10, 1000)).isEqualTo(3);
            assertThat(store.runBytes()).isEqualTo(6 + 3 + 5);
            // written by hand from the spec: length (big-endian, counts the type), 'S' (0x53), the message
            assertThat(hex(store.ring(), store.runOffset(), store.runBytes())).isEqualTo("000453010101" + "000153" + "0003530707");
            assertThat(store.packetRun(2, 1, 1000)).as("at most maxCount").isEqualTo(1);
            assertThat(hex(store.ring(), store.runOffset(), store.runBytes())).isEqualTo("000153");
            assertThat(store.packetRun(1, 10, 9)).as("at most maxBytes").isEqualTo(2);
            assertThat(store.packetRun(1, 10, 1)).as("the first whatever its length").isEqualTo(1);
            assertThat(store.packetRun(4, 10, 1000)).as("not held yet").isEqualTo(-1);
        }
    }

    @Test
    void shouldEndARunAtTheRingsEndAndBeforeAMessageNoPacketCarries() {
        // a ring of 70 000 + 4 * 3 bytes
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 4, 70_000)) {
            store.append(message(10, 1), 0, 10);
            store.append(message(65_535, 2), 0, 65_535);
            store.append(message(5, 3), 0, 5);

            assertThat(store.packetRun(1, 10, 1 << 20)).isEqualTo(1);
            assertThat(store.packetRun(2, 10, 1 << 20)).as("65 535 bytes: no SoupBinTCP packet").isZero();
            assertThat(store.messageLength(2)).isEqualTo(65_535);
            assertThat(store.copyBlocks(2, 1, scratch, 0, 70_000)).as("MoldUDP64 carries it").isEqualTo(1);
            assertThat(scratch.get(ValueLayout.JAVA_BYTE, 2 + 65_534)).isEqualTo((byte)2);

            store.append(message(20_000, 4), 0, 20_000); // does not fit at the ring's end: at its start

            assertThat(store.firstSequence()).as("its bytes overwrite 1 and 2").isEqualTo(3);
            assertThat(store.packetRun(3, 10, 1 << 20)).as("the run ends at the ring's end").isEqualTo(1);
            assertThat(store.runBytes()).isEqualTo(8);
            assertThat(store.packetRun(4, 10, 1 << 20)).isEqualTo(1);
            assertThat(store.runOffset()).isZero();
            assertThat(store.copyBlocks(3, 2, scratch, 0, 70_000)).isEqualTo(2);
            assertThat(scratch.get(ValueLayout.JAVA_BYTE, 2 + 5 + 2)).isEqualTo((byte)4);
        }
    }

    // every kept message is found through the sparse index, against a model of what was appended, while both the
    // count and the byte bound forget and the ring wraps; a mapped copy reopened holds the same
    @Test
    void shouldFindEveryKeptMessageAcrossWrapsBothBoundsAndAReopen(@TempDir final Path directory) {
        final SplittableRandom random = new SplittableRandom(32);
        final int[] lengths = new int[20_001];
        final Path file = directory.resolve("packets.store");
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "A", 512, 65_535)) {
            for (int s = 1; s <= 20_000; s++) {
                final int length = random.nextInt(20) == 0 ? random.nextInt(2_000) : random.nextInt(200);
                lengths[s] = length;
                // 'S' everywhere but the last byte: a walk that took stale bytes for a packet would find its type
                final MemorySegment bytes = message(length, 'S');
                if (length > 0) {
                    bytes.set(ValueLayout.JAVA_BYTE, length - 1, (byte)s);
                }
                assertThat(store.append(bytes, 0, length)).isEqualTo(s);
                assertThat(store.nextSequence() - store.firstSequence()).isLessThanOrEqualTo(512);
                if (s % 97 == 0) {
                    checkKept(store, lengths, random);
                }
            }
            checkKept(store, lengths, random);
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, null, 512, 65_535)) {
            assertThat(store.nextSequence()).isEqualTo(20_001);
            checkKept(store, lengths, random);
        }
    }

    @Test
    void shouldKeepExactlyTheCountBoundWhenBytesAllow() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 200, 1 << 20)) {
            for (int s = 1; s <= 5_000; s++) {
                store.append(message(s % 50, s), 0, s % 50);
                assertThat(store.firstSequence()).isEqualTo(Math.max(1, s - 255));
            }
            for (long s = store.firstSequence(); s < store.nextSequence(); s++) {
                assertThat(store.messageLength(s)).isEqualTo((int)(s % 50));
            }
        }
    }

    // the count bound forgets without touching the ring, so the anchor stays far behind; when the byte bound comes
    // to forget, the index entries of the blocks between were reused long ago and must not be followed
    @Test
    void shouldForgetForBytesFromAnAnchorLeftFarBehindByTheCountBound() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 256, 65_535)) {
            final int[] lengths = new int[3_200];
            for (int s = 1; s < lengths.length; s++) {
                lengths[s] = s <= 3_000 ? s % 4 : 1_000;
                final MemorySegment bytes = message(lengths[s], 'S');
                if (lengths[s] > 0) {
                    bytes.set(ValueLayout.JAVA_BYTE, lengths[s] - 1, (byte)s);
                }
                store.append(bytes, 0, lengths[s]);
            }
            assertThat(store.nextSequence() - store.firstSequence()).as("1 000-byte messages: the bytes bind")
                .isLessThan(70);
            for (long s = store.firstSequence(); s < store.nextSequence(); s++) {
                assertThat(store.messageLength(s)).as("message %d", s).isEqualTo(lengths[(int)s]);
                assertThat(store.copyMessage(s, scratch, 0)).isEqualTo(lengths[(int)s]);
                assertThat(scratch.get(ValueLayout.JAVA_BYTE, lengths[(int)s] - 1)).as("message %d", s).isEqualTo((byte)s);
            }
        }
    }

    private void checkKept(final MoldUDP64MessageStore store, final int[] lengths, final SplittableRandom random) {
        final long first = store.firstSequence();
        final long next = store.nextSequence();
        long keptBytes = 0;
        for (long s = first; s < next; s++) {
            keptBytes += 3 + lengths[(int)s];
        }
        assertThat(keptBytes).as("kept packets fit the ring").isLessThanOrEqualTo(65_535 + 512 * 3);
        if (first > Math.max(1, next - 512)) { // forgotten for bytes, a block of 64 at a time
            long bytesFromBlockBefore = 0;
            for (long s = Math.max(1, first - 64); s < next; s++) {
                bytesFromBlockBefore += 3 + lengths[(int)s];
            }
            assertThat(bytesFromBlockBefore + 3 + 2_000).as("message %d forgotten with room for it", first - 1)
                .isGreaterThan(65_535 + 512 * 3);
        }
        for (long s = first; s < next; s++) {
            final int length = lengths[(int)s];
            assertThat(store.messageLength(s)).as("message %d", s).isEqualTo(length);
            assertThat(store.copyMessage(s, scratch, 0)).isEqualTo(length);
            if (length > 0) {
                assertThat(scratch.get(ValueLayout.JAVA_BYTE, length - 1)).as("message %d", s).isEqualTo((byte)s);
            }
        }
        final long from = first + random.nextLong(next - first);
        final int run = store.packetRun(from, 1 + random.nextInt(100), 1 + random.nextInt(4_000));
        assertThat(run).isPositive();
        long at = store.runOffset();
        for (long s = from; s < from + run; s++) {
            final int length = lengths[(int)s];
            assertThat(Short.toUnsignedInt(store.ring().get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), at)))
                .as("packet length of %d", s).isEqualTo(length + 1);
            assertThat(store.ring().get(ValueLayout.JAVA_BYTE, at + 2)).isEqualTo((byte)'S');
            at += 3 + length;
        }
        assertThat(at - store.runOffset()).isEqualTo(store.runBytes());
    }

    private static String hex(final MemorySegment segment, final long offset, final int length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }
}
