package dev.peregrine.mold;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class MoldUDP64MessageStoreTest {
    private final MemorySegment scratch = Arena.ofAuto().allocate(70_000);

    private static MemorySegment message(final int length, final int fill) {
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
    void shouldRejectBadCapacities() {
        assertThatIllegalArgumentException().isThrownBy(() -> MoldUDP64MessageStore.inMemory("A", 0, 1 << 16))
            .withMessageContaining("maxMessages=0");
        assertThatIllegalArgumentException().isThrownBy(() -> MoldUDP64MessageStore.inMemory("A", 16, 100))
            .withMessageContaining("maxBytes=100");
        assertThatIllegalArgumentException().isThrownBy(() -> MoldUDP64MessageStore.inMemory("ELEVENCHARS", 16, 1 << 16))
            .withMessageContaining("session=ELEVENCHARS");
    }
}
