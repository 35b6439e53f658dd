package dev.peregrine.mold;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MoldUDP64MessageStoreTest {
    private final MemorySegment scratch = Arena.ofAuto().allocate(70_000);

    static MemorySegment message(final int length, final int fill) {
        final MemorySegment segment = MemorySegment.ofArray(new byte[length]);
        segment.fill((byte)fill);
        return segment;
    }

    @Test
    void shouldNumberFromOneAndCopyBlocks() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 16, 1 << 16)) {
            assertThat(store.append(message(3, 1), 0, 3)).isEqualTo(1);
            assertThat(store.append(message(0, 0), 0, 0)).isEqualTo(2);
            assertThat(store.append(message(2, 7), 0, 2)).isEqualTo(3);

            assertThat(store.copyBlocks(1, 10, scratch, 0, 1000)).isEqualTo(3);
            assertThat(store.copiedBytes()).isEqualTo(2 + 3 + 2 + 2 + 2);
            assertThat(MoldFixture.hex(scratch.asSlice(0, 11).toArray(ValueLayout.JAVA_BYTE))).isEqualTo("0003010101" + "0000" + "00020707");
        }
    }

    @Test
    void shouldCopyOnlyMessagesThatFitWhole() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 16, 1 << 16)) {
            store.append(message(10, 1), 0, 10);
            store.append(message(10, 2), 0, 10);

            assertThat(store.copyBlocks(1, 2, scratch, 0, 23)).isEqualTo(1);
            assertThat(store.copiedBytes()).isEqualTo(12);
            assertThat(store.copyBlocks(1, 2, scratch, 0, 11)).isZero();
        }
    }

    @Test
    void shouldForgetOldestMessagesBeyondCountWindow() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 4, 1 << 16)) {
            for (int i = 1; i <= 10; i++) {
                store.append(message(1, i), 0, 1);
            }

            assertThat(store.firstSequence()).isEqualTo(7);
            assertThat(store.copyBlocks(6, 1, scratch, 0, 100)).isZero();
            assertThat(store.copyBlocks(7, 100, scratch, 0, 100)).isEqualTo(4);
            assertThat(scratch.get(ValueLayout.JAVA_BYTE, 2)).isEqualTo((byte)7);
            assertThat(store.copyBlocks(11, 1, scratch, 0, 100)).isZero();
        }
    }

    @Test
    void shouldForgetOldestMessagesBeyondByteWindowWithoutSplittingAMessage() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 1024, 65_535)) {
            for (int i = 1; i <= 10; i++) {
                store.append(message(20_000, i), 0, 20_000);
            }

            assertThat(store.firstSequence()).isGreaterThanOrEqualTo(8);
            final long first = store.firstSequence();
            assertThat(store.copyBlocks(first, 100, scratch, 0, 70_000)).isEqualTo((int)(11 - first));
            for (long s = first; s <= 10; s++) {
                final long block = (s - first) * 20_002;
                assertThat(scratch.get(ValueLayout.JAVA_BYTE, block + 2)).isEqualTo((byte)s);
                assertThat(scratch.get(ValueLayout.JAVA_BYTE, block + 20_001)).isEqualTo((byte)s);
            }
        }
    }

    @Test
    void shouldReopenMappedFileAndGoOn(@TempDir final Path directory) {
        final Path file = directory.resolve("feed.store");
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            store.append(message(5, 5), 0, 5);
            store.append(message(6, 6), 0, 6);
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, null, 64, 1 << 16)) {
            assertThat(MoldUDP64Layout.sessionName(store.session(), 0)).isEqualTo("FEED");
            assertThat(store.nextSequence()).isEqualTo(3);
            assertThat(store.copyBlocks(2, 1, scratch, 0, 100)).isEqualTo(1);
            assertThat(scratch.get(ValueLayout.JAVA_BYTE, 7)).isEqualTo((byte)6);
            assertThat(store.append(message(1, 1), 0, 1)).isEqualTo(3);
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "NEWFEED", 64, 1 << 16)) {
            assertThat(store.nextSequence()).as("another session starts afresh").isEqualTo(1);
        }
    }

    @Test
    void shouldStartAtALaterSequenceAndHoldNothingBefore() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 4, 1 << 16)) {
            store.startAt(5000);
            assertThat(store.firstSequence()).isEqualTo(5000);
            assertThat(store.nextSequence()).isEqualTo(5000);
            assertThat(store.append(message(3, 1), 0, 3)).isEqualTo(5000);
            assertThat(store.append(message(2, 2), 0, 2)).isEqualTo(5001);
            assertThat(store.messageLength(4999)).isEqualTo(-1);
            assertThat(store.copyBlocks(4999, 10, scratch, 0, 1000)).isZero();
            assertThat(store.copyBlocks(5000, 10, scratch, 0, 1000)).isEqualTo(2);
            assertThat(MoldFixture.hex(scratch.asSlice(0, 9).toArray(ValueLayout.JAVA_BYTE))).isEqualTo("0003010101" + "00020202");
            for (int i = 0; i < 8; i++) {
                store.append(message(1, i), 0, 1);
            }
            assertThat(store.nextSequence()).isEqualTo(5010);
            assertThat(store.firstSequence()).as("the window of 4 slides as from 1").isEqualTo(5006);
            assertThat(store.copyMessage(5009, scratch, 0)).isEqualTo(1);
            assertThat(scratch.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte)7);
            assertThatThrownBy(() -> store.startAt(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("numbered already");
        }
    }

    @Test
    void shouldKeepALaterStartAcrossAReopenAndRefuseBadStarts(@TempDir final Path directory) {
        final Path file = directory.resolve("late.store");
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            assertThatIllegalArgumentException().isThrownBy(() -> store.startAt(0)).withMessageContaining("sequence=0");
            store.startAt(70);
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            assertThat(store.firstSequence()).isEqualTo(70);
            assertThat(store.append(message(4, 4), 0, 4)).isEqualTo(70);
            assertThatThrownBy(() -> store.startAt(80)).isInstanceOf(IllegalStateException.class);
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            assertThat(store.firstSequence()).isEqualTo(70);
            assertThat(store.nextSequence()).isEqualTo(71);
            assertThat(store.messageLength(70)).isEqualTo(4);
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("B", 4, 1 << 16)) {
            store.append(message(1, 1), 0, 1);
            assertThatThrownBy(() -> store.startAt(2)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldRejectBadCapacities() {
        assertThatIllegalArgumentException().isThrownBy(() -> MoldUDP64MessageStore.inMemory("A", 0, 1 << 16))
            .withMessageContaining("maxMessages=0");
        assertThatIllegalArgumentException().isThrownBy(() -> MoldUDP64MessageStore.inMemory("A", 16, 100))
            .withMessageContaining("maxBytes=100");
        assertThatIllegalArgumentException().isThrownBy(() -> MoldUDP64MessageStore.inMemory("ELEVENCHARS", 16, 1 << 16))
            .withMessageContaining("session=ELEVENCHARS");
    }

    @Test
    void shouldRefuseToOverwriteAFileThatIsNotAStore(@TempDir final Path directory) throws Exception {
        final Path notes = directory.resolve("notes.txt");
        Files.writeString(notes, "a file of the user's, given by mistake as the store\n".repeat(10));
        final Path shortFile = directory.resolve("short.bin");
        Files.writeString(shortFile, "short");
        for (final Path file : List.of(notes, shortFile)) {
            final byte[] before = Files.readAllBytes(file);

            assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16).close()).as(file.toString())
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("file=" + file)
                .hasMessageContaining("not a MoldUDP64 message store");
            assertThat(Files.readAllBytes(file)).as("left as it was").isEqualTo(before);
        }
    }

    // what a command line checks before it starts: the same judgement as mapped's, reading the file only
    @Test
    void shouldTellWhyAFileWouldBeRefusedWithoutTouchingIt(@TempDir final Path directory) throws Exception {
        final Path notes = Files.writeString(directory.resolve("notes.txt"), "precious\n".repeat(100));
        final Path tiny = Files.writeString(directory.resolve("tiny.txt"), "x");
        final Path missing = directory.resolve("missing.store");
        final Path empty = Files.createFile(directory.resolve("empty.store"));

        assertThat(MoldUDP64MessageStore.refusalOf(notes)).contains("not a MoldUDP64 message store (magic=0x");
        assertThat(MoldUDP64MessageStore.refusalOf(tiny)).contains("shorter than a store's header");
        assertThat(MoldUDP64MessageStore.refusalOf(directory)).isEqualTo("not a regular file");
        assertThat(MoldUDP64MessageStore.refusalOf(missing)).isNull();
        assertThat(MoldUDP64MessageStore.refusalOf(empty)).isNull();
        assertThat(Files.readString(notes)).isEqualTo("precious\n".repeat(100));
        assertThat(missing).doesNotExist();
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(empty, "FEED", 64, 1 << 16)) {
            store.append(message(5, 5), 0, 5);
        }
        assertThat(MoldUDP64MessageStore.refusalOf(empty)).as("a store of any session").isNull();
    }

    /** The layout's offsets (class javadoc), written here by hand rather than taken from the class under test. */
    private static final int VERSION = 8;
    private static final int FIRST_SEQUENCE = 40;
    private static final int NEXT_SEQUENCE = 48;
    private static final int WRITE_POSITION = 56;
    private static final int ANCHOR_SEQUENCE = 64;
    private static final int ANCHOR_POSITION = 72;
    private static final int INDEX = 128;
    /** A store of 16 messages has 2 index entries of 16 bytes. */
    private static final int DATA = INDEX + 2 * 16;

    private static void damage(final Path file, final long offset, final long value, final int width) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            final ByteBuffer bytes = ByteBuffer.allocate(width).order(width == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.nativeOrder());
            switch (width) {
                case 1 -> bytes.put(0, (byte)value);
                case 2 -> bytes.putShort(0, (short)value);
                case 4 -> bytes.putInt(0, (int)value);
                default -> bytes.putLong(0, value);
            }
            channel.write(bytes, offset);
        }
    }

    @Test
    void shouldRefuseAStoreWhoseSequencesPositionsOrLengthsAreDamaged(@TempDir final Path directory) throws Exception {
        final Path good = directory.resolve("good.store");
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(good, "FEED", 16, 1 << 16)) {
            store.append(message(5, 1), 0, 5);
            store.append(message(6, 2), 0, 6);
            store.append(message(7, 3), 0, 7);
        }
        // packets of 3 + 5, 3 + 6 and 3 + 7 bytes from the ring's start: message 2's length field at DATA + 8
        final long packet2 = DATA + 8;
        record Damage(String name, long offset, long value, int width, String reported) {
        }
        for (final Damage damage : List.of(
            new Damage("a length past the packets written", packet2, 1_001, 2, "length=1000"),
            new Damage("a shorter length", packet2, 3, 2, "message 3 at position="),
            new Damage("a packet of another type", packet2 + 2, 'U', 1, "message 2 at position="),
            new Damage("an index entry at another position", INDEX + 8, 3, 8, "the index entry of message 1 at position=3"),
            new Damage("an index entry of another block", INDEX, 70, 8, "the index entry of block 0 names message 70"),
            new Damage("an anchor past the first sequence", ANCHOR_SEQUENCE, 2, 8, "anchorSequence=2"),
            new Damage("an anchor past what was written", ANCHOR_POSITION, 100, 8, "anchorPosition=100"),
            new Damage("a negative write position", WRITE_POSITION, -1, 8, "writePosition=-1"),
            new Damage("a first sequence past the next", FIRST_SEQUENCE, 9, 8, "firstSequence=9"),
            new Damage("a first sequence of 0", FIRST_SEQUENCE, 0, 8, "firstSequence=0"),
            new Damage("more messages than the store holds", NEXT_SEQUENCE, 100, 8, "nextSequence=100"))) {
            final Path file = directory.resolve(damage.name().replace(' ', '-') + ".store");
            Files.copy(good, file);
            damage(file, damage.offset(), damage.value(), damage.width());
            final byte[] before = Files.readAllBytes(file);

            // opened as it was, the store would answer a request with an IndexOutOfBoundsException, or append
            // outside its ring
            assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 16, 1 << 16).close()).as(damage.name())
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("file=" + file)
                .hasMessageContaining("damaged").hasMessageContaining(damage.reported());
            assertThat(Files.readAllBytes(file)).as("left as it was").isEqualTo(before);
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(good, "FEED", 16, 1 << 16)) {
            assertThat(store.copyBlocks(1, 3, scratch, 0, 100)).as("the undamaged copy opens").isEqualTo(3);
        }
    }

    // a file of layout version 1 (bare messages, an index entry each) would be read wrongly: refused with the reason
    @Test
    void shouldRefuseAStoreOfTheEarlierLayoutWithTheReason(@TempDir final Path directory) throws Exception {
        final Path file = directory.resolve("v1.store");
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", 16, 1 << 16)) {
            store.append(message(5, 1), 0, 5);
        }
        damage(file, VERSION, 1, 4);
        final byte[] before = Files.readAllBytes(file);

        assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 16, 1 << 16).close())
            .isInstanceOf(UncheckedIOException.class).hasMessageContaining("file=" + file)
            .hasMessageContaining("layout version=1, not 2").hasMessageContaining("to start afresh, remove it");
        assertThat(MoldUDP64MessageStore.refusalOf(file)).contains("layout version=1, not 2");
        assertThat(Files.readAllBytes(file)).as("left as it was").isEqualTo(before);
    }

    @Test
    void shouldKeepWhatItHoldsIntactWhenAnAppendFailsPartWay() {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("A", 4, 1 << 16)) {
            for (int i = 1; i <= 4; i++) {
                store.append(message(1, i), 0, 1);
            }
            final MemorySegment tooShort = message(2, 9);

            assertThatThrownBy(() -> store.append(tooShort, 0, 5)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(store.nextSequence()).isEqualTo(5);
            for (long s = 1; s <= 4; s++) {
                if (store.copyBlocks(s, 1, scratch, 0, 100) == 1) {
                    assertThat(store.copiedBytes()).as("message %d", s).isEqualTo(3);
                    assertThat(scratch.get(ValueLayout.JAVA_BYTE, 2)).as("message %d", s).isEqualTo((byte)s);
                }
            }
            assertThat(store.copyBlocks(2, 3, scratch, 0, 100)).as("only the oldest may be forgotten").isEqualTo(3);
            assertThat(store.append(message(2, 5), 0, 2)).isEqualTo(5);
            assertThat(store.copyBlocks(5, 1, scratch, 0, 100)).isEqualTo(1);
            assertThat(MoldFixture.hex(scratch.asSlice(0, 4).toArray(ValueLayout.JAVA_BYTE))).isEqualTo("00020505");
        }
    }
}
