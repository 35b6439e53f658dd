package dev.peregrine.log;

/** Which way a logged message went. */
public enum MessageDirection {
    /** Received from the peer: {@link LogEvent#MESSAGE_IN}. */
    INBOUND,
    /** Sent to the peer: {@link LogEvent#MESSAGE_OUT}. */
    OUTBOUND
}
