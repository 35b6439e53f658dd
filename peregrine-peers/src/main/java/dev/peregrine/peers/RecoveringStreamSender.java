package dev.peregrine.peers;

/**
 * The sending side of a stream with a recovery layer: after the last message it must go on answering
 * re-requests (and sending heartbeats, which reveal a lost last packet) until the receiver has everything.
 */
public interface RecoveringStreamSender extends StreamSender {
    /**
     * Does the sender's background work once: answers waiting re-requests, sends a heartbeat when due.
     * Called in a loop after the last message, by one thread at a time (the one that now owns the sender).
     *
     * @return how much work was done, 0 if none
     */
    int service();

    /**
     * Live packets dropped on purpose so far ({@link StreamLoss}).
     *
     * @return the count
     */
    long packetsDropped();
}
