package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ChannelHandler} decorator that records every event as a {@link ChannelEvent} value (messages
 * with a copy of their bytes), then passes it on. Wrap the application with it on a real run; replay the
 * recording into a fresh application with {@link ChannelEvent#replay}.
 *
 * <p>Recording allocates per event: it is a testing and diagnosis tool, not for the hot path.
 * Not thread-safe: read {@link #events()} on the reactor thread, or after the reactor stopped.
 */
public final class EventRecorder implements ChannelHandler {
    private final ChannelHandler delegate;
    private final List<ChannelEvent> events = new ArrayList<>();

    /**
     * Records only, passing events to nobody.
     */
    public EventRecorder() {
        this(null);
    }

    /**
     * Records and passes events on.
     *
     * @param delegate the application, or null to record only
     */
    public EventRecorder(final ChannelHandler delegate) {
        this.delegate = delegate;
    }

    /**
     * The events so far, in order.
     *
     * @return a copy of the recording
     */
    public List<ChannelEvent> events() {
        return List.copyOf(events);
    }

    /** Forgets the events recorded so far. */
    public void clear() {
        events.clear();
    }

    private void record(final ChannelEvent event) {
        events.add(event);
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        record(new ChannelEvent.Listening(serverId, localAddress));
        if (delegate != null) {
            delegate.onListening(serverId, localAddress);
        }
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        record(new ChannelEvent.ListenFailed(serverId, reason));
        if (delegate != null) {
            delegate.onListenFailed(serverId, reason);
        }
    }

    @Override
    public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
        record(new ChannelEvent.Accepted(serverId, channelId, remoteAddress));
        if (delegate != null) {
            delegate.onAccepted(serverId, channelId, remoteAddress);
        }
    }

    @Override
    public void onConnected(final long channelId, final SocketAddress remoteAddress) {
        record(new ChannelEvent.Connected(channelId, remoteAddress));
        if (delegate != null) {
            delegate.onConnected(channelId, remoteAddress);
        }
    }

    @Override
    public void onConnectFailed(final long channelId, final String reason) {
        record(new ChannelEvent.ConnectFailed(channelId, reason));
        if (delegate != null) {
            delegate.onConnectFailed(channelId, reason);
        }
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        record(ChannelEvent.Message.copyOf(channelId, buffer, offset, length));
        if (delegate != null) {
            delegate.onMessage(channelId, buffer, offset, length);
        }
    }

    @Override
    public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
        record(new ChannelEvent.Sent(channelId, bytesWritten, bytesBuffered));
        if (delegate != null) {
            delegate.onSent(channelId, bytesWritten, bytesBuffered);
        }
    }

    @Override
    public void onClosed(final long channelId, final CloseReason reason, final String detail) {
        record(new ChannelEvent.Closed(channelId, reason, detail));
        if (delegate != null) {
            delegate.onClosed(channelId, reason, detail);
        }
    }
}
