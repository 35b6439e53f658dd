package dev.peregrine.broadcast;

import java.lang.foreign.MemorySegment;

/**
 * Receives a broadcast reader's records and events, on the reader's thread. Only {@link #onRecord} must be written;
 * the events default to nothing.
 */
@FunctionalInterface
public interface BroadcastHandler {
    /**
     * A record. Under {@code BLOCK} the view is the log itself (zero-copy); under {@code DROP} it is the reader's own
     * copy, already checked. Either way it is valid only during the call.
     *
     * @param buffer the bytes
     * @param offset where the record starts
     * @param length its length
     * @param position its position in the log
     */
    void onRecord(MemorySegment buffer, long offset, int length, long position);

    /**
     * The reader is attached and counted: the first record it reads will be at this position (for a start from the
     * oldest record, the writer may have moved it on since the attach).
     *
     * @param startPosition the position
     */
    default void onJoined(long startPosition) {
    }

    /**
     * Under {@code DROP}, the writer overwrote records before this reader read them.
     *
     * @param missed records lost this time
     * @param resumePosition the oldest record still held, where reading goes on
     */
    default void onLapped(long missed, long resumePosition) {
    }

    /**
     * Under {@code BLOCK}, the writer evicted this reader; it reads no more.
     *
     * @param reason why, e.g. {@code idle}
     */
    default void onEvicted(String reason) {
    }

    /**
     * The writer is gone: closed, or its process died. Reported once per writer, after every record it wrote.
     *
     * @param reason closed or died
     */
    default void onWriterGone(String reason) {
    }

    /**
     * The reader refused the log (a record length past the maximum, a tail that makes no sense); it reads no more.
     *
     * @param reason what was found
     */
    default void onFailed(String reason) {
    }
}
