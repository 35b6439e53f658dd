package dev.peregrine.channel;

/**
 * Named outcomes of a send, returned as negative values; a non-negative value is success.
 *
 * <p>A send never spins or blocks on the caller's behalf, and never drops data silently: either the
 * whole message is accepted (written to the wire or queued in the channel's bounded outbound buffer),
 * or nothing is and one of these values says why.
 */
public final class SendResult {
    /** The outbound buffer cannot take the whole message now; retry after {@link ChannelHandler#onSent}. */
    public static final long BACK_PRESSURED = -1;
    /** No such channel, or it has not finished connecting. */
    public static final long NOT_CONNECTED = -2;
    /** The channel is closed or closing. */
    public static final long CLOSED = -3;
    /** The message is longer than the channel's configured maximum and can never be sent. */
    public static final long MESSAGE_TOO_LARGE = -4;

    private SendResult() {
    }

    /**
     * Name of a result code, for logs and error messages.
     *
     * @param result a value returned by a send
     * @return the constant's name, or {@code "OK"} for a non-negative value
     */
    public static String describe(final long result) {
        if (result >= 0) {
            return "OK";
        }
        if (result == BACK_PRESSURED) {
            return "BACK_PRESSURED";
        }
        if (result == NOT_CONNECTED) {
            return "NOT_CONNECTED";
        }
        if (result == CLOSED) {
            return "CLOSED";
        }
        if (result == MESSAGE_TOO_LARGE) {
            return "MESSAGE_TOO_LARGE";
        }
        return "UNKNOWN(" + result + ")";
    }
}
