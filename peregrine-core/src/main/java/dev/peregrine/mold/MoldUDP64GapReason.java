package dev.peregrine.mold;

/**
 * Why a {@link MoldUDP64Subscriber} gave a gap up and went {@link MoldUDP64SubscriberState#UNRECOVERABLE}.
 */
public enum MoldUDP64GapReason {
    /**
     * The re-request server answered a request for the gap with later messages only: it no longer holds
     * the gap's first messages (its store moved past them).
     */
    STORE_TRUNCATED,
    /**
     * Every request for the gap went unanswered, through all the attempts allowed: the server is gone,
     * drops the requests (rate limit, another session), or holds none of the messages asked for.
     */
    NO_ANSWER,
    /** No re-request server is configured, and the gap was not filled by late feed packets in the time allowed. */
    NO_REQUEST_SERVER
}
