package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * Commands an application issues to a transport; the results arrive as {@link ChannelHandler} events.
 *
 * <p>Not thread-safe: call only on the reactor thread that owns the transport. Other threads send, close and abort
 * through a {@link dev.peregrine.handoff.ReactorCommandRing} the transport is registered with; a handler that runs on a
 * thread of its own is given a {@link dev.peregrine.handoff.SeparatedTransport}, which does that for every command.
 */
public interface Transport extends AutoCloseable {
    /**
     * Starts listening; {@link ChannelHandler#onListening} or {@link ChannelHandler#onListenFailed} follows.
     *
     * @param localAddress where to listen
     * @return the server id
     */
    long listen(SocketAddress localAddress);

    /**
     * Starts connecting; {@link ChannelHandler#onConnected} or {@link ChannelHandler#onConnectFailed} follows.
     *
     * @param remoteAddress where to connect
     * @return the channel id
     */
    long connect(SocketAddress remoteAddress);

    /**
     * Sends one message, framed as the channel is configured.
     *
     * @param channelId the channel
     * @param buffer memory holding the message
     * @param offset where the message starts
     * @param length its length in bytes
     * @return bytes left in the channel's outbound buffer after this send ({@code 0}: all on the wire),
     *     or a negative {@link SendResult} code, in which case nothing was taken
     */
    long send(long channelId, MemorySegment buffer, long offset, int length);

    /**
     * Closes a channel or a server; {@link ChannelHandler#onClosed} follows with {@link CloseReason#LOCAL}.
     * Whether buffered outbound bytes are written first or discarded is the transport's to say (TCP writes
     * them first, within a linger timeout). Unknown ids are ignored.
     *
     * @param id a channel or server id
     */
    void close(long id);

    /**
     * Closes a channel at once, discarding whatever is still buffered for it (a peer that does not read, say);
     * {@link ChannelHandler#onClosed} follows with {@link CloseReason#LOCAL}. For a transport that holds
     * nothing back this is {@link #close(long)}, the default. Unknown ids are ignored.
     *
     * @param id a channel or server id
     */
    default void abort(long id) {
        close(id);
    }

    /** Closes every server and channel of this transport. */
    @Override
    void close();
}
