package dev.peregrine.mold;

import static dev.peregrine.mold.MoldUDP64MessageStore.BLOCK_MESSAGES;
import static dev.peregrine.mold.MoldUDP64StoreLayout.BLOCK_SHIFT;
import static dev.peregrine.mold.MoldUDP64StoreLayout.LONG;

/**
 * How far a {@link MoldUDP64MessageStore#packetRun} reaches without reading a length, for a run of packets the store
 * appended itself (their lengths were checked then, none too long for SoupBinTCP): the whole rest, from the header's
 * write position, or whole blocks of {@value MoldUDP64MessageStore#BLOCK_MESSAGES}, from the index entry of the block
 * after the last one taken. A block is taken while its end stays within the byte limit and before the ring's end (no
 * wrap inside the run); the walk of the run's last part block checks each length, as for any other packet. Reactor
 * (writer) thread only, as the store.
 */
final class MoldUDP64RunIndex {
    private MoldUDP64RunIndex() {
    }

    /**
     * The end (exclusive) of the longest run from {@code sequence} that ends at the store's end or at a block's first
     * message, has at most {@code last - sequence} messages, at most {@code byteLimit} bytes, and does not wrap.
     *
     * @return that end, or {@code sequence} if no such run has a message
     */
    static long end(final MoldUDP64MessageStore store, final long sequence, final long start, final long startOffset,
        final long last, final long byteLimit) {
        final long room = Math.min(byteLimit, store.dataCapacity - startOffset);
        if (last == store.nextSequence && store.writePosition - start <= room) {
            return last;
        }
        // a block's entry is where its first packet starts: after a skip at the ring's end that is the ring's start,
        // not where the packet before it ends, so a block ending the run exactly at the ring's end is walked
        final long blockRoom = Math.min(room, store.dataCapacity - startOffset - 1);
        long reached = sequence;
        for (long block = (sequence >>> BLOCK_SHIFT) + 1 << BLOCK_SHIFT; block <= last && block < store.nextSequence;
             block += BLOCK_MESSAGES) {
            final long entry = store.entryOf(block);
            if (store.segment.get(LONG, entry) != block || store.segment.get(LONG, entry + 8) - start > blockRoom) {
                break;
            }
            reached = block;
        }
        return reached;
    }

    /**
     * The position of a run's end found by {@link #end}.
     *
     * @return {@code start} for {@code sequence}, the write position at the store's end, else the block's entry
     */
    static long position(final MoldUDP64MessageStore store, final long end, final long sequence, final long start) {
        if (end == sequence) {
            return start;
        }
        return end == store.nextSequence ? store.writePosition : store.segment.get(LONG, store.entryOf(end) + 8);
    }
}
