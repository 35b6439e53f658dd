package dev.peregrine.mold;

/**
 * Why a {@link MoldUDP64Subscriber} gave a gap up and went {@link MoldUDP64SubscriberState#UNRECOVERABLE}.
 */
public enum MoldUDP64GapReason {
    /**
     * The re-request server answered a request for the gap with later messages only, twice: it no longer holds
     * the gap's first messages (its store moved past them).
     *
     * <p>One such answer is never believed: anyone can forge one (a source address is no proof). It is dropped, and
     * the gap is asked for again at once, by a request of its own. Only an answer that again starts past the gap's
     * start, arriving after that fresh request went out, concludes the truncation. An answer from the gap's start
     * clears the suspicion. So one forged datagram costs a request, never the subscriber.
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
