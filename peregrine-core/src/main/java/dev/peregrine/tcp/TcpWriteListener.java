package dev.peregrine.tcp;

/**
 * Told of every write to a connection's socket, as it happens: for a measurement that needs the moment bytes were
 * handed to the kernel (a publish-to-write latency), or a count of writes the socket did not take whole. Set with
 * {@link TcpOptions#writeListener(TcpWriteListener)}.
 *
 * <ul>
 *   <li>Called on the reactor thread, right after the write returned and before anything else runs: inside a send
 *       that wrote at once, the end-of-cycle flush, or the write on OP_WRITE.</li>
 *   <li>Not called for a write that took no byte, nor for the last write attempt of a closing channel.</li>
 *   <li>It must not send, close or allocate: it runs in the middle of the transport's write path.</li>
 *   <li>What it throws closes that channel with {@link dev.peregrine.channel.CloseReason#ERROR}, as a handler's
 *       exception does, and goes to the reactor's {@link dev.peregrine.reactor.ErrorHandler}.</li>
 * </ul>
 */
@FunctionalInterface
public interface TcpWriteListener {
    /**
     * Bytes of a channel were handed to its socket.
     *
     * @param channelId the channel
     * @param bytesWritten the channel's bytes handed to its socket since it connected, this write included (as
     *     {@link TcpTransport#bytesWritten} answers)
     * @param bytesPending bytes still waiting in its outbound buffer after this write: more than 0 when the socket
     *     did not take them all (they go on OP_WRITE)
     */
    void onWritten(long channelId, long bytesWritten, int bytesPending);
}
