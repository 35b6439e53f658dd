package dev.peregrine.log;

/**
 * The event code of a record, written as its name in the file. The connection events mirror
 * {@code ChannelHandler}'s callbacks; {@link #APPLICATION} is for the application's own records.
 */
public enum LogEvent {
    /** A server listens: channel is the server id, text the local address. */
    LISTENING,
    /** A server could not listen: channel is the server id, text the reason. */
    LISTEN_FAILED,
    /** A server accepted a channel: a is the server id, text the remote address. */
    ACCEPTED,
    /** A client channel connected: text the remote address. */
    CONNECTED,
    /** A client channel could not connect: text the reason. */
    CONNECT_FAILED,
    /** A back-pressured channel's outbound bytes drained: a bytes written, b bytes still buffered. */
    SENT,
    /** A channel closed: a is the {@code CloseReason} ordinal, text the reason's name and detail. */
    CLOSED,
    /** A message received: the payload is its bytes. */
    MESSAGE_IN,
    /** A message sent: the payload is its bytes. */
    MESSAGE_OUT,
    /** An application's record: a, b and the payload are its own. */
    APPLICATION
}
