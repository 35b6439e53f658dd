package dev.peregrine.soup;

import dev.peregrine.channel.CloseReason;

import java.lang.foreign.MemorySegment;

/**
 * Events of a {@link SoupBinTcpServer}, on the reactor thread. Only {@link #onUnsequencedData} is mandatory. A
 * handler that throws closes that connection only (with the reason, counted); the server goes on.
 */
public interface SoupBinTcpServerHandler {
    /**
     * A logged-in client sent Unsequenced Data. The view is valid only during this call.
     *
     * @param channelId the connection
     * @param session the session it is logged into
     * @param buffer memory holding the message
     * @param offset where the message starts
     * @param length its length, possibly 0
     */
    void onUnsequencedData(long channelId, SoupBinTcpSession session, MemorySegment buffer, long offset, int length);

    /**
     * A login was accepted; replay from {@code nextSequence} starts now.
     *
     * @param channelId the connection
     * @param session its session
     * @param username the username, without padding
     * @param nextSequence the sequence number of the first Sequenced Data it will get
     */
    default void onLoggedIn(final long channelId, final SoupBinTcpSession session, final String username,
        final long nextSequence) {
    }

    /**
     * A connection closed; its id is no longer valid and no event for it follows.
     *
     * @param channelId the connection
     * @param reason who or what closed it ({@link CloseReason#ERROR} for a protocol fault or timeout)
     * @param detail why, e.g. {@code "unknown packet type 'Q'"}
     */
    default void onClosed(final long channelId, final CloseReason reason, final String detail) {
    }
}
