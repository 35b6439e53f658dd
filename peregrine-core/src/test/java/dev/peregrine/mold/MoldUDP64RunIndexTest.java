package dev.peregrine.mold;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MoldUDP64MessageStore#packetRun} with the index skipping whole blocks (issue 32): every run, capped by
 * count, bytes, the ring's end or the store's end, equals the run a model of the ring computes packet by packet;
 * across many wraps, with claimed runs among single appends, and across a reopened mapped store (whose old packets
 * are walked, the new ones skipped by block).
 */
class MoldUDP64RunIndexTest {
    private static final int MAX_MESSAGES = 1 << 10;
    private final MemorySegment message = Arena.ofAuto().allocate(400);

    /** The ring as the store lays it out: each message's offset and length, by sequence. */
    private static final class Model {
        final long capacity;
        final long[] offset = new long[40_000];
        final int[] length = new int[40_000];
        long next = 1;
        long writeOffset;

        Model(final long capacity) {
            this.capacity = capacity;
        }

        void add(final int messageLength, final int count) {
            final int packet = 3 + messageLength;
            final long bytes = (long)packet * count;
            final long at = writeOffset + bytes > capacity ? 0 : writeOffset;
            for (int i = 0; i < count; i++) {
                offset[(int)next] = at + (long)i * packet;
                length[(int)next] = messageLength;
                next++;
            }
            final long after = at + bytes;
            writeOffset = after == capacity ? 0 : after;
        }
    }

    private void append(final MoldUDP64MessageStore store, final Model model, final SplittableRandom random) {
        final int length = random.nextInt(4) == 0 ? 8 : random.nextInt(300);
        if (random.nextInt(5) == 0) {
            final long room = (model.capacity - model.writeOffset) / (3 + length);
            store.claim(length, 1 + random.nextInt(150));
            final int fits = store.claimCount();
            assertThat((long)fits).isLessThanOrEqualTo(room > 0 ? room : model.capacity / (3 + length));
            store.commitClaim();
            model.add(length, fits);
        } else {
            store.append(message, 0, length);
            model.add(length, 1);
        }
        assertThat(store.nextSequence()).isEqualTo(model.next);
    }

    private static void checkRuns(final MoldUDP64MessageStore store, final Model model, final SplittableRandom random,
        final int runs) {
        for (int i = 0; i < runs; i++) {
            final long first = store.firstSequence();
            final long sequence = first + random.nextLong(store.nextSequence() - first);
            final int maxCount = random.nextInt(3) == 0 ? Integer.MAX_VALUE : 1 + random.nextInt(400);
            final long maxBytes = random.nextInt(3) == 0 ? Long.MAX_VALUE : 1 + random.nextLong(model.capacity);
            long bytes = 0;
            int count = 0;
            while (count < maxCount && sequence + count < model.next) {
                final int at = (int)(sequence + count);
                final int packet = 3 + model.length[at];
                if (count > 0 && (model.offset[at] != model.offset[(int)sequence] + bytes || bytes + packet > maxBytes)) {
                    break;
                }
                bytes += packet;
                count++;
            }
            final String what = "run of sequence=" + sequence + " maxCount=" + maxCount + " maxBytes=" + maxBytes;
            assertThat(store.packetRun(sequence, maxCount, maxBytes)).as(what).isEqualTo(count);
            assertThat(store.runOffset()).as(what).isEqualTo(model.offset[(int)sequence]);
            assertThat(store.runBytes()).as(what).isEqualTo((int)bytes);
        }
    }

    @Test
    void shouldFindEveryCappedRunAsTheModelWalksItAcrossWraps() {
        final SplittableRandom random = new SplittableRandom(32);
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", MAX_MESSAGES, 1 << 16)) {
            final Model model = new Model(store.dataCapacity);
            while (model.next < 30_000) {
                append(store, model, random);
                checkRuns(store, model, random, 3);
            }
        }
    }

    @Test
    void shouldNotTakeTheSkippedEndOfTheRingWhenABlocksFirstPacketWrapped() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", MAX_MESSAGES, 1 << 16);
             Arena arena = Arena.ofConfined()) {
            final long capacity = store.dataCapacity;
            final MemorySegment big = arena.allocate(capacity);
            // 1..59 and 71..127 of 13-byte packets, 60..70 filling the ring up to 50 bytes before its end
            final long fill = capacity - 50 - (59 + 57) * 13L;
            final Model model = new Model(capacity);
            for (int sequence = 1; sequence <= 127; sequence++) {
                final int length = sequence < 60 || sequence > 70 ? 10
                    : (int)(fill / 11 - 3 + (sequence == 70 ? fill % 11 : 0));
                store.append(big, 0, length);
                model.add(length, 1);
            }
            assertThat(model.writeOffset).isEqualTo(capacity - 50);
            for (int sequence = 128; sequence <= 140; sequence++) { // 128, a block's first, wraps to the ring's start
                store.append(big, 0, 100);
                model.add(100, 1);
            }
            assertThat(model.offset[128]).isZero();
            assertThat(store.packetRun(71, Integer.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(57);
            assertThat(store.runBytes()).isEqualTo(57 * 13);
            checkRuns(store, model, new SplittableRandom(7), 500);
        }
    }

    @Test
    void shouldFindEveryCappedRunAsTheModelWalksItInAReopenedStore(@TempDir final Path dir) {
        final SplittableRandom random = new SplittableRandom(64);
        final Path file = dir.resolve("feed.store");
        final Model model;
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", MAX_MESSAGES, 1 << 16)) {
            model = new Model(store.dataCapacity);
            while (model.next < 5_000) {
                append(store, model, random);
            }
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", MAX_MESSAGES, 1 << 16)) {
            checkRuns(store, model, random, 2_000); // the old packets: every length walked
            final long reopenedAt = store.nextSequence();
            while (store.firstSequence() <= reopenedAt) { // until the old packets are all forgotten
                append(store, model, random);
                checkRuns(store, model, random, 3);
            }
        }
    }
}
