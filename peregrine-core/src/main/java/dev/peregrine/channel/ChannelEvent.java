package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A {@link ChannelHandler} event as a value: what {@link EventRecorder} records and what a scripted or
 * replayed run feeds to an application with {@link #replay(List, ChannelHandler)}. Messages carry a copy
 * of their bytes, so values compare by content.
 */
public sealed interface ChannelEvent {
    /**
     * Delivers this event to a handler, as the transport would have.
     *
     * @param handler the application
     */
    void deliverTo(ChannelHandler handler);

    /**
     * Delivers events in order, as a transport would have, with no sockets.
     *
     * @param events recorded or scripted events
     * @param handler the application
     */
    static void replay(final List<? extends ChannelEvent> events, final ChannelHandler handler) {
        for (final ChannelEvent event : events) {
            event.deliverTo(handler);
        }
    }

    /**
     * {@link ChannelHandler#onListening}.
     *
     * @param serverId the server
     * @param localAddress the bound address
     */
    record Listening(long serverId, SocketAddress localAddress) implements ChannelEvent {
        @Override
        public void deliverTo(final ChannelHandler handler) {
            handler.onListening(serverId, localAddress);
        }
    }

    /**
     * {@link ChannelHandler#onListenFailed}.
     *
     * @param serverId the server
     * @param reason why
     */
    record ListenFailed(long serverId, String reason) implements ChannelEvent {
        @Override
        public void deliverTo(final ChannelHandler handler) {
            handler.onListenFailed(serverId, reason);
        }
    }

    /**
     * {@link ChannelHandler#onAccepted}.
     *
     * @param serverId the server
     * @param channelId the new channel
     * @param remoteAddress the peer
     */
    record Accepted(long serverId, long channelId, SocketAddress remoteAddress) implements ChannelEvent {
        @Override
        public void deliverTo(final ChannelHandler handler) {
            handler.onAccepted(serverId, channelId, remoteAddress);
        }
    }

    /**
     * {@link ChannelHandler#onConnected}.
     *
     * @param channelId the channel
     * @param remoteAddress the peer
     */
    record Connected(long channelId, SocketAddress remoteAddress) implements ChannelEvent {
        @Override
        public void deliverTo(final ChannelHandler handler) {
            handler.onConnected(channelId, remoteAddress);
        }
    }

    /**
     * {@link ChannelHandler#onConnectFailed}.
     *
     * @param channelId the channel
     * @param reason why
     */
    record ConnectFailed(long channelId, String reason) implements ChannelEvent {
        @Override
        public void deliverTo(final ChannelHandler handler) {
            handler.onConnectFailed(channelId, reason);
        }
    }

    /**
     * {@link ChannelHandler#onMessage}, with a copy of the message bytes.
     *
     * @param channelId the channel
     * @param bytes the message
     */
    record Message(long channelId, byte[] bytes) implements ChannelEvent {
        /**
         * Copies the bytes.
         *
         * @param channelId the channel
         * @param bytes the message, copied
         */
        public Message {
            bytes = bytes.clone();
        }

        /**
         * A message with the given text, UTF-8 encoded; for scripts.
         *
         * @param channelId the channel
         * @param text the message
         * @return the event
         */
        public static Message of(final long channelId, final String text) {
            return new Message(channelId, text.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * The message bytes.
         *
         * @return a copy
         */
        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public void deliverTo(final ChannelHandler handler) {
            final MemorySegment segment = MemorySegment.ofArray(bytes.clone());
            handler.onMessage(channelId, segment, 0, bytes.length);
        }

        @Override
        public boolean equals(final Object other) {
            return other instanceof Message that && channelId == that.channelId && Arrays.equals(bytes, that.bytes);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(channelId) * 31 + Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "Message[channelId=" + channelId + ", bytes=" + HexFormat.of().formatHex(bytes) + "]";
        }

        static Message copyOf(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final byte[] copy = new byte[length];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
            return new Message(channelId, copy);
        }
    }

    /**
     * {@link ChannelHandler#onSent}.
     *
     * @param channelId the channel
     * @param bytesWritten written by this flush
     * @param bytesBuffered still buffered
     */
    record Sent(long channelId, long bytesWritten, long bytesBuffered) implements ChannelEvent {
        @Override
        public void deliverTo(final ChannelHandler handler) {
            handler.onSent(channelId, bytesWritten, bytesBuffered);
        }
    }

    /**
     * {@link ChannelHandler#onClosed}.
     *
     * @param channelId the channel or server
     * @param reason who closed it
     * @param detail why
     */
    record Closed(long channelId, CloseReason reason, String detail) implements ChannelEvent {
        @Override
        public void deliverTo(final ChannelHandler handler) {
            handler.onClosed(channelId, reason, detail);
        }
    }
}
