package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A {@link Transport} command as a value, with the result the transport returned: what
 * {@link CommandRecorder} and {@link ScriptedTransport} record, so two runs of an application can be
 * compared command by command. Sends carry a copy of their bytes and compare by content.
 */
public sealed interface ChannelCommand {
    /**
     * What the transport returned for this command (0 for commands that return nothing).
     *
     * @return the result
     */
    long result();

    /**
     * {@link Transport#listen}.
     *
     * @param localAddress where
     * @param result the server id returned
     */
    record Listen(SocketAddress localAddress, long result) implements ChannelCommand {
    }

    /**
     * {@link Transport#connect}.
     *
     * @param remoteAddress where
     * @param result the channel id returned
     */
    record Connect(SocketAddress remoteAddress, long result) implements ChannelCommand {
    }

    /**
     * {@link Transport#send}, with a copy of the message bytes.
     *
     * @param channelId the channel
     * @param bytes the message
     * @param result the value returned
     */
    record Send(long channelId, byte[] bytes, long result) implements ChannelCommand {
        /**
         * Copies the bytes.
         *
         * @param channelId the channel
         * @param bytes the message, copied
         * @param result the value returned
         */
        public Send {
            bytes = bytes.clone();
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
        public boolean equals(final Object other) {
            return other instanceof Send that && channelId == that.channelId && result == that.result
                && Arrays.equals(bytes, that.bytes);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(channelId) * 31 + Arrays.hashCode(bytes)) * 31 + Long.hashCode(result);
        }

        @Override
        public String toString() {
            return "Send[channelId=" + channelId + ", bytes=" + HexFormat.of().formatHex(bytes) + ", result=" + result + "]";
        }

        static byte[] copy(final MemorySegment buffer, final long offset, final int length) {
            final byte[] copy = new byte[length];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
            return copy;
        }
    }

    /**
     * {@link Transport#close(long)}.
     *
     * @param id the channel or server
     */
    record Close(long id) implements ChannelCommand {
        @Override
        public long result() {
            return 0;
        }
    }

    /**
     * {@link Transport#abort(long)}: a close that discards what is still buffered.
     *
     * @param id the channel or server
     */
    record Abort(long id) implements ChannelCommand {
        @Override
        public long result() {
            return 0;
        }
    }

    /**
     * {@link Transport#close()}.
     */
    record CloseAll() implements ChannelCommand {
        @Override
        public long result() {
            return 0;
        }
    }
}
