package dev.peregrine.peers.handoff;

/** The consumer side of a {@link HandoffQueue}, used by one thread. It never waits: an empty queue answers 0. */
public interface HandoffConsumer {
    /**
     * Delivers the messages waiting, in order, up to the setup's read limit
     * ({@link HandoffSetup#readLimit()}).
     *
     * @param sink gets each message
     * @return how many were delivered
     */
    int poll(HandoffSink sink);
}
