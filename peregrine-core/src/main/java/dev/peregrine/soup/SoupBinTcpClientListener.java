package dev.peregrine.soup;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * Events of a {@link SoupBinTcpClient}, on the reactor thread. Only {@link #onSequencedData} is mandatory. A
 * listener that throws stops the client (reported to the reactor's error handler, the connection reset).
 */
public interface SoupBinTcpClientListener {
    /**
     * A sequenced message, delivered once, in order, across reconnects. The view is valid only during this call.
     *
     * @param sequence its sequence number
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length, possibly 0
     */
    void onSequencedData(long sequence, MemorySegment buffer, long offset, int length);

    /**
     * A connection attempt starts: the first one, and every reconnect (after the back-off, if any). For logs and for
     * timing a reconnect; the default does nothing.
     *
     * @param address the server address tried (the failover list in turn)
     */
    default void onConnecting(final SocketAddress address) {
    }

    /**
     * The TCP connection is up; the Login Request is sent right after this call. For logs and for timing a
     * reconnect; the default does nothing.
     *
     * @param address the server's address
     */
    default void onConnected(final SocketAddress address) {
    }

    /**
     * Login Accepted.
     *
     * @param session the session the server put the client in; later logins ask for it
     * @param sequence the number of the next Sequenced Data the server will send
     */
    default void onLoginAccepted(final String session, final long sequence) {
    }

    /**
     * Login Rejected. After {@code A} the client stops; after {@code S} it tries again (the next address, after
     * the back-off), until {@link SoupBinTcpClientOptions#maxSessionRejections} in a row stop it.
     *
     * @param code {@link SoupBinTcpLayout#REJECT_NOT_AUTHORIZED} or {@link SoupBinTcpLayout#REJECT_SESSION_NOT_AVAILABLE}
     */
    default void onLoginRejected(final byte code) {
    }

    /**
     * The server accepted a login at a higher sequence number than asked: messages {@code [expected, accepted)}
     * will never be delivered. Never a silent skip.
     *
     * @param expected the next sequence number the client had not delivered
     * @param accepted the next one the server will send
     */
    default void onGap(final long expected, final long accepted) {
    }

    /** End of Session: the client logs out and stops; nothing follows but {@link #onStopped}. */
    default void onEndOfSession() {
    }

    /**
     * A connection was lost (or a connect failed); unless stopped, the client reconnects by itself.
     *
     * @param reason why
     */
    default void onConnectionLost(final String reason) {
    }

    /**
     * The client stopped for good (End of Session, a logout, Login Rejected {@code A}, too many Login Rejected
     * {@code S} in a row, a listener failure,
     * {@link SoupBinTcpClient#close()}); no event follows.
     *
     * @param reason why
     */
    default void onStopped(final String reason) {
    }
}
