package dev.peregrine.mold;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import static dev.peregrine.mold.MoldUDP64StoreLayout.BLOCK_SHIFT;
import static dev.peregrine.mold.MoldUDP64StoreLayout.LONG;
import static dev.peregrine.mold.MoldUDP64StoreLayout.PACKET_TYPE;
import static dev.peregrine.mold.MoldUDP64MessageStore.PACKET_HEADER_LENGTH;

/**
 * Opens a {@link MoldUDP64MessageStore} in a file and checks a reopened one (out of the store to keep it small):
 * everything a later append, seek, run or copy trusts is read once here, before the store is used.
 */
final class MoldUDP64StoreOpener {
    private MoldUDP64StoreOpener() {
    }

    /** {@link MoldUDP64MessageStore#mapped}'s work. */
    static MoldUDP64MessageStore mapped(final Path file, final String session, final int maxMessages,
        final long maxBytes) {
        final int wantedMessages = MoldUDP64StoreLayout.maxMessages(maxMessages, maxBytes);
        final long wantedData = MoldUDP64StoreLayout.dataCapacity(wantedMessages, maxBytes);
        try {
            final MoldUDP64StoreFile storeFile = MoldUDP64StoreFile.open(file);
            final Arena arena = Arena.ofShared();
            try {
                final FileChannel channel = storeFile.channel();
                final long existing = channel.size();
                final boolean fresh = existing == 0 || !MoldUDP64StoreLayout.isStoreOf(channel, existing, session);
                if (fresh && session == null) {
                    throw new IllegalArgumentException("file=" + file + " holds no message store and session=null");
                }
                final long length = fresh ? MoldUDP64StoreLayout.length(wantedMessages, wantedData) : existing;
                if (fresh) {
                    storeFile.startAfresh(length);
                }
                final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
                final MoldUDP64MessageStore store = new MoldUDP64MessageStore(arena, storeFile, segment, fresh,
                    fresh ? MoldUDP64Layout.session(session) : null, wantedMessages, wantedData);
                final String damage = fresh ? null : damage(store);
                if (damage != null) {
                    throw new IOException("a damaged message store, " + damage + ": refused and left as it is");
                }
                return store;
            } catch (final IOException | RuntimeException | Error ex) {
                arena.close();
                storeFile.close();
                throw ex;
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot map message store file=" + file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * What is wrong with a reopened store's sequences, anchor, packets and index, as the constructor took them, or
     * null if nothing: a walk from the anchor must cross whole packets, each within the ring and within the last
     * data-capacity bytes written, to the write position; every index entry a seek may use must name the packet the
     * walk found. Appending, seeking and copying then stay inside the ring.
     */
    static String damage(final MoldUDP64MessageStore store) {
        final long first = store.firstSequence;
        final long next = store.nextSequence;
        final long written = store.writePosition;
        if (first < 1 || next < first || next - first > store.messageMask + 1L || next == Long.MAX_VALUE) {
            return "firstSequence=" + first + " nextSequence=" + next + " with at most " + (store.messageMask + 1L)
                + " messages";
        }
        if (written < 0 || written > Long.MAX_VALUE / 2) { // 2^62 bytes: never written, and far from overflowing
            return "writePosition=" + written;
        }
        final long anchorSequence = store.anchorSequence;
        final long anchorPosition = store.anchorPosition;
        if (anchorSequence < 1 || anchorSequence > first || anchorPosition < 0 || anchorPosition > written
            || written - anchorPosition > store.dataCapacity) {
            return "anchorSequence=" + anchorSequence + " anchorPosition=" + anchorPosition + " (firstSequence="
                + first + ", writePosition=" + written + ", data capacity " + store.dataCapacity + ")";
        }
        long position = anchorPosition;
        long offset = position % store.dataCapacity;
        for (long sequence = anchorSequence; sequence < next; sequence++) {
            if (store.skipsToStart(offset)) {
                position += store.dataCapacity - offset;
                offset = 0;
            }
            final int length = store.lengthAt(offset);
            if (store.data.get(ValueLayout.JAVA_BYTE, offset + 2) != PACKET_TYPE
                || offset + PACKET_HEADER_LENGTH + length > store.dataCapacity
                || position + PACKET_HEADER_LENGTH + length > written) {
                return "message " + sequence + " at position=" + position + " length=" + length
                    + " (writePosition=" + written + ", data capacity " + store.dataCapacity + ")";
            }
            final long entry = store.entryOf(sequence);
            if (store.segment.get(LONG, entry) == sequence && store.segment.get(LONG, entry + 8) != position) {
                return "the index entry of message " + sequence + " at position=" + store.segment.get(LONG, entry + 8)
                    + ", not at " + position;
            }
            position += PACKET_HEADER_LENGTH + length;
            offset += PACKET_HEADER_LENGTH + length;
        }
        if (position != written) {
            return "the packets end at position=" + position + ", not at writePosition=" + written;
        }
        for (long block = first >>> BLOCK_SHIFT; first < next && block <= (next - 1) >>> BLOCK_SHIFT; block++) {
            final long entrySequence = store.segment.get(LONG, store.entryOf(block << BLOCK_SHIFT));
            if (entrySequence >>> BLOCK_SHIFT != block || entrySequence > Math.max(first, block << BLOCK_SHIFT)) {
                return "the index entry of block " + block + " names message " + entrySequence;
            }
        }
        return null;
    }
}
