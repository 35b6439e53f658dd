package dev.peregrine.shm;

import java.lang.foreign.MemorySegment;

/**
 * Receives messages polled from a {@link ShmRingReader}, as views into the mapped ring.
 */
@FunctionalInterface
public interface ShmMessageHandler {
    /**
     * One message. The view is valid only during this call: the writer may reuse the memory afterwards.
     *
     * @param buffer the mapped ring
     * @param offset where the message starts in {@code buffer}
     * @param length its length in bytes, possibly 0
     */
    void onMessage(MemorySegment buffer, long offset, int length);
}
