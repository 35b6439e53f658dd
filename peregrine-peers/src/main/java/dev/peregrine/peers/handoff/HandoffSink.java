package dev.peregrine.peers.handoff;

/** What a {@link HandoffConsumer} hands each message to, on the consumer's thread. */
@FunctionalInterface
public interface HandoffSink {
    /**
     * One message.
     *
     * @param sequence its tagged sequence ({@link HandoffMessage#tag})
     * @param timestampNs its timestamp
     */
    void onMessage(long sequence, long timestampNs);
}
