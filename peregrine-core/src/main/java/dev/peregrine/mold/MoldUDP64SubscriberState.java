package dev.peregrine.mold;

/**
 * Where a {@link MoldUDP64Subscriber} stands.
 */
public enum MoldUDP64SubscriberState {
    /** Every message up to the highest sequence number seen has been delivered. */
    SYNCHRONISED,
    /**
     * A gap was seen; missing messages are being requested, packets past the gap are kept in the reorder
     * buffer (as far as it has room), and nothing past the gap is delivered.
     */
    RECOVERING,
    /** The session ended and every one of its messages has been delivered. */
    END_OF_SESSION,
    /**
     * A gap could not be filled ({@link MoldUDP64Subscriber#unrecoverableReason()} says why, and
     * {@link MoldUDP64Listener#onUnrecoverable} said so): nothing more is delivered or requested.
     */
    UNRECOVERABLE,
    /**
     * The listener threw ({@link MoldUDP64Subscriber#failure()} says where and what): terminal. Both sockets are
     * released, the subscriber left the reactor, and nothing more is delivered or requested.
     */
    FAILED
}
