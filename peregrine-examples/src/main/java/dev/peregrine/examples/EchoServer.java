package dev.peregrine.examples;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.function.Consumer;

/**
 * Sends every message back on the channel it came from, framed the same way: an echo server for any
 * {@link Framing} ({@code ./peregrine echo --port 9999 --framing line}).
 *
 * <p>A peer that sends but does not read fills its outbound buffer; rather than drop an echo, the
 * server closes that peer's channel (the only honest choice for an echo with no flow control). It only
 * talks to a {@link Transport}, so it runs the same on sockets and against a scripted transport.
 * Not thread-safe: events and commands on one reactor thread. Allocates nothing per message.
 */
public final class EchoServer implements ChannelHandler {
    private final SocketAddress address;
    private final Consumer<String> log;
    private Transport transport;
    private String listenFailure;
    private long echoed;

    /**
     * Creates the server.
     *
     * @param address where to listen
     * @param log receives one line per notable event (never per message)
     */
    public EchoServer(final SocketAddress address, final Consumer<String> log) {
        this.address = address;
        this.log = log;
    }

    /**
     * Transport options for an echo server.
     *
     * @param framing how messages are delimited
     * @param maxFrameLength the longest message
     * @return the options
     */
    public static TcpOptions options(final Framing framing, final int maxFrameLength) {
        return new TcpOptions().framing(framing).maxFrameLength(maxFrameLength);
    }

    /**
     * Starts listening; call on the reactor thread.
     *
     * @param transport the transport to use (its handler must deliver events to this server)
     * @return the server id
     */
    public long start(final Transport transport) {
        this.transport = transport;
        return transport.listen(address);
    }

    /**
     * Messages echoed so far.
     *
     * @return the count
     */
    public long echoed() {
        return echoed;
    }

    /**
     * Why listening failed, if it did. The server does not log it: its owner reports it, once.
     *
     * @return the reason, or null while listening (or not yet told)
     */
    public String listenFailure() {
        return listenFailure;
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        log.accept("echo: listening on " + localAddress);
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        listenFailure = reason;
    }

    @Override
    public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
        log.accept("echo: accepted " + remoteAddress);
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final long result = transport.send(channelId, buffer, offset, length);
        if (result >= 0) {
            echoed++;
        } else if (result == SendResult.BACK_PRESSURED) {
            log.accept("echo: channel " + channelId + " does not read its echoes; aborting it");
            transport.abort(channelId); // it does not read: discard what waits for it, no linger
        }
    }

    @Override
    public void onClosed(final long channelId, final CloseReason reason, final String detail) {
        log.accept("echo: channel " + channelId + " closed, " + reason + ": " + detail);
    }
}
