package dev.peregrine.channel;

/**
 * Why a channel was closed; delivered with {@link ChannelHandler#onClosed(long, CloseReason, String)}
 * together with a human-readable detail.
 */
public enum CloseReason {
    /** The peer closed its side in an orderly way (end of stream). */
    BY_PEER,
    /** The peer reset the connection, or the peer process died. */
    RESET,
    /** The application asked for the close. */
    LOCAL,
    /** A protocol or I/O error on this channel (the detail names it); other channels go on. */
    ERROR
}
