package dev.peregrine.broadcast;

/** Where a new reader starts. */
public enum BroadcastStart {
    /** At the next record written after the attach. */
    LIVE,
    /** At the oldest record the log still holds. */
    OLDEST
}
