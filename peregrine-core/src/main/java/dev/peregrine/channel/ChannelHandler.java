package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * Events a transport delivers to the application, all on the reactor thread; or, under a separated stack
 * ({@link dev.peregrine.handoff.SeparatedStack}), the same events in the same order on the application's own thread.
 *
 * <p>Only {@link #onMessage} is mandatory; the other events default to doing nothing. Channels and
 * servers are named by the {@code long} ids that {@link Transport#listen} and {@link Transport#connect}
 * return (or that {@link #onAccepted} announces).
 */
public interface ChannelHandler {
    /**
     * A server is bound and accepting.
     *
     * @param serverId id returned by {@link Transport#listen}
     * @param localAddress the address actually bound (with the real port when 0 was asked)
     */
    default void onListening(final long serverId, final SocketAddress localAddress) {
    }

    /**
     * A server could not be bound.
     *
     * @param serverId id returned by {@link Transport#listen}
     * @param reason why, naming the address
     */
    default void onListenFailed(final long serverId, final String reason) {
    }

    /**
     * A server accepted a new channel.
     *
     * @param serverId the server that accepted it
     * @param channelId the new channel
     * @param remoteAddress the peer's address
     */
    default void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
    }

    /**
     * An outgoing connection is established.
     *
     * @param channelId id returned by {@link Transport#connect}
     * @param remoteAddress the peer's address
     */
    default void onConnected(final long channelId, final SocketAddress remoteAddress) {
    }

    /**
     * An outgoing connection failed (refused, unreachable, timed out); the id is no longer valid.
     *
     * @param channelId id returned by {@link Transport#connect}
     * @param reason why, naming the address
     */
    default void onConnectFailed(final long channelId, final String reason) {
    }

    /**
     * A whole message (one frame) arrived. The view is valid only during this call.
     *
     * @param channelId the channel it arrived on
     * @param buffer memory holding the message
     * @param offset where the message starts in {@code buffer}
     * @param length the message length in bytes, possibly 0
     */
    void onMessage(long channelId, MemorySegment buffer, long offset, int length);

    /**
     * Buffered outbound bytes were written; sent while the outbound buffer still holds data and once
     * more when it becomes empty ({@code bytesBuffered == 0}), which is the moment to resume after
     * {@link SendResult#BACK_PRESSURED}.
     *
     * @param channelId the channel
     * @param bytesWritten bytes written to the wire by this flush
     * @param bytesBuffered bytes still waiting in the outbound buffer
     */
    default void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
    }

    /**
     * A channel closed; the id is no longer valid. Messages that arrived before the close were
     * delivered first.
     *
     * @param channelId the channel
     * @param reason who or what closed it
     * @param detail a human-readable reason, e.g. the frame length that exceeded the maximum
     */
    default void onClosed(final long channelId, final CloseReason reason, final String detail) {
    }
}
