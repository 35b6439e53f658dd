package dev.peregrine.mold;

/**
 * Where a {@link MoldUDP64Subscriber} stands.
 */
public enum MoldUDP64SubscriberState {
    /** Every message up to the highest sequence number seen has been delivered. */
    SYNCHRONISED,
    /** A gap was seen; missing messages are being requested and nothing past the gap is delivered. */
    RECOVERING,
    /** The session ended and every one of its messages has been delivered. */
    END_OF_SESSION
}
