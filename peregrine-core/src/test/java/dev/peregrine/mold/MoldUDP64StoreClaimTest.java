package dev.peregrine.mold;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.SplittableRandom;

import static dev.peregrine.mold.MoldUDP64MessageStoreTest.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A claimed run ({@link MoldUDP64MessageStore#claim}) is kept as the same packets {@link MoldUDP64MessageStore#append}
 * writes, numbered in order at the commit only; mixed with appends across wraps, both bounds and a reopen, every kept
 * message and every run is what a model of what was written says.
 */
class MoldUDP64StoreClaimTest {
    private static final ValueLayout.OfShort BIG_ENDIAN_SHORT =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private final MemorySegment scratch = Arena.ofAuto().allocate(70_000);

    @Test
    void shouldWriteAClaimedRunAsSequencedDataPacketsAndKeepItOnlyAtTheCommit() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 16, 1 << 16)) {
            store.append(message(1, 9), 0, 1);
            final long first = store.claim(2, 3);
            assertThat(store.claimCount()).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                store.claimBuffer().set(ValueLayout.JAVA_BYTE, first + i * 5, (byte)(i + 1));
                store.claimBuffer().set(ValueLayout.JAVA_BYTE, first + i * 5 + 1, (byte)0xEE);
            }
            assertThat(store.nextSequence()).as("nothing kept before the commit").isEqualTo(2);
            assertThat(store.packetRun(2, 10, 1000)).isEqualTo(-1);

            assertThat(store.commitClaim()).isEqualTo(2);

            assertThat(store.claimCount()).isZero();
            assertThat(store.nextSequence()).isEqualTo(5);
            assertThat(store.packetRun(1, 10, 1000)).isEqualTo(4);
            // written by hand from the spec: length (big-endian, counts the type), 'S' (0x53), the message
            assertThat(hex(store.ring(), store.runOffset(), store.runBytes()))
                .isEqualTo("00025309" + "00035301ee" + "00035302ee" + "00035303ee");
            assertThat(store.append(message(1, 7), 0, 1)).isEqualTo(5);
        }
    }

    @Test
    void shouldCutARunAtTheRingsEndAndStartTheNextAtItsStart() {
        // a ring of 65 535 + 64 * 3 = 65 727 bytes: 1 000-byte messages, 65 of them fill 65 195 bytes
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 64, 65_535)) {
            store.claim(1_000, 60);
            assertThat(store.claimCount()).isEqualTo(60);
            store.commitClaim();
            store.claim(1_000, 60);
            assertThat(store.claimCount()).as("5 fit before the ring's end").isEqualTo(5);
            assertThat(store.commitClaim()).isEqualTo(61);
            final long offset = store.claim(1_000, 60);
            assertThat(offset).as("at the ring's start").isEqualTo(3);
            assertThat(store.claimCount()).as("never more than maxMessages").isEqualTo(60);
            store.commitClaim();
            assertThat(store.nextSequence()).isEqualTo(126);
            assertThat(store.nextSequence() - store.firstSequence()).isLessThanOrEqualTo(64);
            assertThat(store.packetRun(store.firstSequence(), 1_000, 1 << 20)).isPositive();
            final long last = store.nextSequence() - 1;
            assertThat(store.messageLength(last)).isEqualTo(1_000);
        }
    }

    @Test
    void shouldAppendNothingOfAnAbortedClaimAndRefuseMisuse() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 16, 1 << 16)) {
            store.append(message(4, 1), 0, 4);
            store.claim(8, 4);
            assertThatThrownBy(() -> store.append(message(1, 1), 0, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("claimCount=4");
            assertThatThrownBy(() -> store.claim(8, 1)).isInstanceOf(IllegalStateException.class);
            store.abortClaim();

            assertThat(store.nextSequence()).isEqualTo(2);
            assertThat(store.append(message(2, 5), 0, 2)).isEqualTo(2);
            assertThat(store.packetRun(1, 10, 1000)).isEqualTo(2);
            assertThat(hex(store.ring(), store.runOffset(), store.runBytes())).isEqualTo("00055301010101" + "0003530505");
            assertThatThrownBy(store::commitClaim).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> store.claim(65_535, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length=65535");
            assertThatThrownBy(() -> store.claim(1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count=0");
        }
    }

    // runs of claims (and aborted ones) mixed with appends, against a model of what was kept, while both bounds forget
    // and the ring wraps; whole-rest runs (what a caught-up client is served) included; a mapped copy reopened holds
    // the same (its check reads every index entry, which the seeks here would fall back from silently)
    @Test
    void shouldKeepClaimedRunsAndAppendsAlikeAcrossWrapsBothBoundsAndAReopen(@TempDir final Path directory) {
        final SplittableRandom random = new SplittableRandom(5);
        final int[] lengths = new int[40_000];
        final Path file = directory.resolve("claims.store");
        int next = 1;
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "A", 512, 65_535)) {
            while (next < lengths.length - 600) {
                final int length = random.nextInt(10) == 0 ? random.nextInt(2_000) : random.nextInt(100);
                if (random.nextBoolean()) {
                    lengths[next] = length;
                    assertThat(store.append(stamped(length, next), 0, length)).isEqualTo(next);
                    next++;
                } else {
                    final int count = 1 + random.nextInt(random.nextInt(10) == 0 ? 600 : 70);
                    final long offset = store.claim(length, count);
                    final int claimed = store.claimCount();
                    assertThat(claimed).isBetween(1, count);
                    for (int i = 0; i < claimed; i++) {
                        MemorySegment.copy(stamped(length, next + i), 0, store.claimBuffer(), offset + i * (length + 3L),
                            length);
                    }
                    if (random.nextInt(20) == 0) {
                        store.abortClaim();
                    } else {
                        assertThat(store.commitClaim()).isEqualTo(next);
                        for (int i = 0; i < claimed; i++) {
                            lengths[next + i] = length;
                        }
                        next += claimed;
                    }
                }
                assertThat(store.nextSequence()).isEqualTo(next);
                assertThat(store.nextSequence() - store.firstSequence()).isLessThanOrEqualTo(512);
                checkKept(store, lengths, random);
            }
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, null, 512, 65_535)) {
            assertThat(store.nextSequence()).isEqualTo(next);
            checkKept(store, lengths, random);
        }
    }

    /** A message of {@code 'S'} bytes but the last, its sequence: stale bytes taken for a packet would show. */
    private static MemorySegment stamped(final int length, final int sequence) {
        final MemorySegment bytes = message(length, 'S');
        if (length > 0) {
            bytes.set(ValueLayout.JAVA_BYTE, length - 1, (byte)sequence);
        }
        return bytes;
    }

    private void checkKept(final MoldUDP64MessageStore store, final int[] lengths, final SplittableRandom random) {
        final long first = store.firstSequence();
        final long next = store.nextSequence();
        if (next == first) {
            return; // only an aborted claim so far
        }
        for (long s = first; s < next; s++) {
            final int length = lengths[(int)s];
            assertThat(store.copyMessage(s, scratch, 0)).as("message %d", s).isEqualTo(length);
            if (length > 0) {
                assertThat(scratch.get(ValueLayout.JAVA_BYTE, length - 1)).as("message %d", s).isEqualTo((byte)s);
            }
        }
        // a run to the end, as a caught-up client is served, then a bounded one from anywhere
        checkRun(store, lengths, next - 1 - random.nextInt((int)Math.min(next - first, 100)), Integer.MAX_VALUE,
            Integer.MAX_VALUE);
        checkRun(store, lengths, first + random.nextLong(next - first), 1 + random.nextInt(100), 1 + random.nextInt(4_000));
    }

    private static void checkRun(final MoldUDP64MessageStore store, final int[] lengths, final long from,
        final int maxCount, final long maxBytes) {
        final int run = store.packetRun(from, maxCount, maxBytes);
        assertThat(run).isPositive();
        long at = store.runOffset();
        for (long s = from; s < from + run; s++) {
            final int length = lengths[(int)s];
            assertThat(Short.toUnsignedInt(store.ring().get(BIG_ENDIAN_SHORT, at))).as("packet length of %d", s)
                .isEqualTo(length + 1);
            assertThat(store.ring().get(ValueLayout.JAVA_BYTE, at + 2)).isEqualTo((byte)'S');
            if (length > 0) {
                assertThat(store.ring().get(ValueLayout.JAVA_BYTE, at + 2 + length)).as("message %d", s)
                    .isEqualTo((byte)s);
            }
            at += 3 + length;
        }
        assertThat(at - store.runOffset()).isEqualTo(store.runBytes());
        if (maxCount == Integer.MAX_VALUE && from + run < store.nextSequence()) {
            // cut short only by the ring's end: the rest starts at the ring's start
            assertThat(store.packetRun(from + run, maxCount, maxBytes)).isPositive();
            assertThat(store.runOffset()).isZero();
        }
    }

    private static String hex(final MemorySegment segment, final long offset, final int length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }
}
