package dev.peregrine.log;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * A {@link ChannelHandler} that logs every event through an {@link AsyncLogger}, and every inbound message if asked,
 * then forwards the event to the application's handler: {@code ./peregrine echo --log FILE [--log-messages]}.
 *
 * <ul>
 *   <li>{@code onMessage}: {@link LogEvent#MESSAGE_IN} with the message's bytes (only with {@code logMessages});
 *       allocates nothing.</li>
 *   <li>{@code onSent}: {@link LogEvent#SENT}, a = bytes written, b = bytes buffered; allocates nothing.</li>
 *   <li>{@code onClosed}: {@link LogEvent#CLOSED}, a = the reason's ordinal, text = the reason and the detail.</li>
 *   <li>{@code onListening}, {@code onAccepted}, {@code onConnected}: text = the address, whose {@code toString} is
 *       the one allocation of this class, once per connection; {@code onListenFailed} and {@code onConnectFailed}:
 *       text = the reason.</li>
 * </ul>
 * The event is logged before the delegate runs, so a line for a message precedes the lines its handling causes.
 * A full logger drops the record (counted by the logger); the delegate runs regardless.
 *
 * <p>Threading: the transport's thread, as the delegate.
 */
public final class LoggingHandler implements ChannelHandler {
    private final AsyncLogger logger;
    private final ChannelHandler delegate;
    private final boolean logMessages;
    private final StringBuilder text = new StringBuilder(256);

    /**
     * Wraps a handler.
     *
     * @param logger where the records go
     * @param delegate the application's handler, which gets every event after it is logged
     * @param logMessages whether to log every inbound message's bytes too
     */
    public LoggingHandler(final AsyncLogger logger, final ChannelHandler delegate, final boolean logMessages) {
        if (logger == null || delegate == null) {
            throw new IllegalArgumentException("logger=" + logger + " delegate=" + delegate);
        }
        this.logger = logger;
        this.delegate = delegate;
        this.logMessages = logMessages;
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        logger.connectionEvent(LogEvent.LISTENING, serverId, 0, 0, String.valueOf(localAddress));
        delegate.onListening(serverId, localAddress);
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        logger.connectionEvent(LogEvent.LISTEN_FAILED, serverId, 0, 0, reason);
        delegate.onListenFailed(serverId, reason);
    }

    @Override
    public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
        logger.connectionEvent(LogEvent.ACCEPTED, channelId, serverId, 0, String.valueOf(remoteAddress));
        delegate.onAccepted(serverId, channelId, remoteAddress);
    }

    @Override
    public void onConnected(final long channelId, final SocketAddress remoteAddress) {
        logger.connectionEvent(LogEvent.CONNECTED, channelId, 0, 0, String.valueOf(remoteAddress));
        delegate.onConnected(channelId, remoteAddress);
    }

    @Override
    public void onConnectFailed(final long channelId, final String reason) {
        logger.connectionEvent(LogEvent.CONNECT_FAILED, channelId, 0, 0, reason);
        delegate.onConnectFailed(channelId, reason);
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        if (logMessages) {
            logger.message(channelId, MessageDirection.INBOUND, buffer, offset, length);
        }
        delegate.onMessage(channelId, buffer, offset, length);
    }

    @Override
    public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
        logger.connectionEvent(LogEvent.SENT, channelId, bytesWritten, bytesBuffered);
        delegate.onSent(channelId, bytesWritten, bytesBuffered);
    }

    @Override
    public void onClosed(final long channelId, final CloseReason reason, final String detail) {
        text.setLength(0);
        text.append(reason.name()).append(": ").append(detail);
        logger.connectionEvent(LogEvent.CLOSED, channelId, reason.ordinal(), 0, text);
        delegate.onClosed(channelId, reason, detail);
    }
}
