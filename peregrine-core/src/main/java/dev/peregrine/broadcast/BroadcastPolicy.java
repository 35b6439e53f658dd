package dev.peregrine.broadcast;

/** What the writer does when the ring is full of records some reader has not read yet; chosen at creation. */
public enum BroadcastPolicy {
    /**
     * The writer waits for the slowest live reader ({@code BACK_PRESSURED}); nothing is lost for a reader that is not
     * evicted. A dead reader, or one that holds the writer back without moving for the idle timeout, is evicted.
     * Records are delivered zero-copy.
     */
    BLOCK,
    /**
     * The writer never waits. A lapped reader is told how many records it missed and resumes at the oldest one still
     * held. Records are copied out and checked before delivery, so none is ever handed on torn.
     */
    DROP
}
