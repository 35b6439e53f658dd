package dev.peregrine.examples;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.Transport;
import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Greets every accepted connection with {@code Hi!\n} and ignores what it is sent: the smallest server
 * on the library ({@code ./peregrine hello --port 8889}, then {@code nc localhost 8889}).
 *
 * <p>It only talks to a {@link Transport}, so it runs the same on real sockets and, in tests, against a
 * scripted transport. Not thread-safe: events and commands on one reactor thread.
 */
public final class HelloServer implements ChannelHandler {
    /** The greeting, sent once per connection. */
    public static final String GREETING = "Hi!\n";

    private final MemorySegment greeting = MemorySegment.ofArray(GREETING.getBytes(StandardCharsets.US_ASCII));
    private final SocketAddress address;
    private final Consumer<String> log;
    private Transport transport;
    private String listenFailure;
    private long greeted;

    /**
     * Creates the server.
     *
     * @param address where to listen
     * @param log receives one line per notable event (listening, connections); may print or discard
     */
    public HelloServer(final SocketAddress address, final Consumer<String> log) {
        this.address = address;
        this.log = log;
    }

    /**
     * The transport options it needs: no framing, so the greeting reaches telnet and nc unchanged.
     *
     * @return the options
     */
    public static TcpOptions options() {
        return new TcpOptions().framing(Framing.raw());
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
     * Connections greeted so far.
     *
     * @return the count
     */
    public long greeted() {
        return greeted;
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
        log.accept("hello: listening on " + localAddress);
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        listenFailure = reason;
    }

    @Override
    public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
        final long result = transport.send(channelId, greeting, 0, (int)greeting.byteSize());
        if (result >= 0) {
            greeted++;
        }
        log.accept("hello: greeted " + remoteAddress);
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        // a greeter does not listen
    }

    @Override
    public void onClosed(final long channelId, final CloseReason reason, final String detail) {
        log.accept("hello: channel " + channelId + " closed, " + reason + ": " + detail);
    }
}
