package dev.peregrine.udp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.reactor.Reactor;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.channels.MembershipKey;
import java.util.Arrays;

/**
 * UDP behind the shared {@link Transport} / {@link ChannelHandler} API: one datagram is one message.
 *
 * <p>{@link #listen} binds a socket that receives from anyone; {@link #send} on it answers the sender of
 * the last datagram it received (what an echo or request/response server wants), and {@link #sendTo}
 * names the target. {@link #connect} binds an ephemeral port and connects it to one peer;
 * {@link ChannelHandler#onConnected} follows at once, since UDP has no handshake. Each id is one
 * {@link UdpEndpoint}, whose options are the template given at construction with the address set.
 *
 * <p>A handler that throws closes only its own channel ({@code onClosed} with {@link CloseReason#ERROR} and the
 * exception in the detail), is counted ({@link #handlerFailures()}) and reported to the reactor's error handler;
 * every other channel goes on. After {@code onClosed} no further event arrives for that channel, not even a
 * datagram of the batch being delivered. A failure in {@code onListenFailed}, {@code onConnectFailed} or
 * {@code onClosed} has no open channel to close: it is counted and reported.
 *
 * <p>Not thread-safe: one reactor thread.
 */
public final class UdpTransport implements Transport {
    private final Reactor reactor;
    private final UdpOptions template;
    private final ChannelHandler handler;
    private UdpEndpoint[] endpoints = new UdpEndpoint[8];
    private InetSocketAddress[] lastSenders = new InetSocketAddress[8];
    private long[] ids = new long[8];
    private int nextId = 1;
    private long handlerFailures;

    /**
     * Creates a transport.
     *
     * @param reactor the reactor driving every endpoint
     * @param template options copied for every endpoint (multicast, buffers, busy polling)
     * @param handler receives every event
     */
    public UdpTransport(final Reactor reactor, final UdpOptions template, final ChannelHandler handler) {
        if (reactor == null || template == null || handler == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " template=" + template + " handler=" + handler);
        }
        this.reactor = reactor;
        this.template = template;
        this.handler = handler;
    }

    @Override
    public long listen(final SocketAddress localAddress) {
        final long id = nextId();
        final UdpEndpoint endpoint;
        try {
            endpoint = open(id, copy().localAddress((InetSocketAddress)localAddress));
        } catch (final UncheckedIOException | IllegalArgumentException | ClassCastException ex) {
            try {
                handler.onListenFailed(id, "cannot bind UDP " + localAddress + ": " + ex.getMessage());
            } catch (final Throwable failure) {
                handlerFailed(id, failure);
            }
            return id;
        }
        try {
            handler.onListening(id, endpoint.localAddress());
        } catch (final Throwable ex) {
            handlerFailed(id, ex);
        }
        return id;
    }

    @Override
    public long connect(final SocketAddress remoteAddress) {
        final long id = nextId();
        final InetSocketAddress remote;
        try {
            remote = (InetSocketAddress)remoteAddress;
            final UdpOptions options = copy().remoteAddress(remote);
            if (remote.getAddress().isLoopbackAddress()) {
                options.localAddress(new InetSocketAddress(remote.getAddress(), 0));
            }
            open(id, options);
        } catch (final UncheckedIOException | IllegalArgumentException | ClassCastException ex) {
            try {
                handler.onConnectFailed(id, "cannot connect UDP to " + remoteAddress + ": " + ex.getMessage());
            } catch (final Throwable failure) {
                handlerFailed(id, failure);
            }
            return id;
        }
        try {
            handler.onConnected(id, remote);
        } catch (final Throwable ex) {
            handlerFailed(id, ex);
        }
        return id;
    }

    @Override
    public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final int slot = slot(channelId);
        if (slot < 0) {
            return SendResult.NOT_CONNECTED;
        }
        final UdpEndpoint endpoint = endpoints[slot];
        if (endpoint.remoteAddress() != null) {
            return result(endpoint.send(buffer, offset, length));
        }
        final InetSocketAddress target = lastSenders[slot];
        return target == null ? SendResult.NOT_CONNECTED : result(endpoint.sendTo(buffer, offset, length, target));
    }

    /**
     * Sends a datagram from a channel to any address (a multicast group, too).
     *
     * @param channelId the channel
     * @param buffer memory holding the datagram
     * @param offset where it starts
     * @param length its length
     * @param target where to send it
     * @return 0 on success or a negative {@link SendResult} code
     */
    public long sendTo(final long channelId, final MemorySegment buffer, final long offset, final int length,
        final InetSocketAddress target) {
        final int slot = slot(channelId);
        if (slot < 0) {
            return SendResult.NOT_CONNECTED;
        }
        return result(endpoints[slot].sendTo(buffer, offset, length, target));
    }

    /**
     * Joins a multicast group on a channel's socket.
     *
     * @param channelId a channel from {@link #listen}
     * @param group the group
     * @param networkInterface where to join, or null for the template's multicast interface
     * @return the membership, to drop to leave the group
     */
    public MembershipKey join(final long channelId, final InetAddress group, final NetworkInterface networkInterface) {
        final int slot = slot(channelId);
        if (slot < 0) {
            throw new IllegalArgumentException("channelId=" + channelId + " is not open");
        }
        return endpoints[slot].join(group, networkInterface);
    }

    /**
     * Sender of the last datagram a channel received.
     *
     * @param channelId the channel
     * @return the address, or null if none yet (or no such channel)
     */
    public InetSocketAddress lastSender(final long channelId) {
        final int slot = slot(channelId);
        return slot < 0 ? null : lastSenders[slot];
    }

    /**
     * The endpoint behind a channel, for counters and socket options.
     *
     * @param channelId the channel
     * @return the endpoint, or null if no such channel
     */
    public UdpEndpoint endpoint(final long channelId) {
        final int slot = slot(channelId);
        return slot < 0 ? null : endpoints[slot];
    }

    @Override
    public void close(final long id) {
        final int slot = slot(id);
        if (slot >= 0) {
            close(slot, CloseReason.LOCAL, "closed by the application");
        }
    }

    /**
     * How many times a handler of this transport threw; each time its channel (if still open) was closed with
     * {@link CloseReason#ERROR} and the exception went to the reactor's error handler.
     *
     * @return the count since creation
     */
    public long handlerFailures() {
        return handlerFailures;
    }

    @Override
    public void close() {
        for (int i = 0; i < endpoints.length; i++) {
            if (endpoints[i] != null) {
                close(ids[i]);
            }
        }
    }

    private void close(final int slot, final CloseReason reason, final String detail) {
        final long id = ids[slot];
        final UdpEndpoint endpoint = endpoints[slot];
        endpoints[slot] = null;
        lastSenders[slot] = null;
        ids[slot] = 0;
        endpoint.close(); // a datagram batch being delivered on it stops here
        try {
            handler.onClosed(id, reason, detail);
        } catch (final Throwable ex) {
            handlerFailed(id, ex); // the channel is closed already: counted and reported only
        }
    }

    /** A handler threw: count it, report it, and close only that handler's channel (if it is still open). */
    private void handlerFailed(final long id, final Throwable ex) {
        handlerFailures++;
        final int slot = slot(id);
        try {
            reactor.errorHandler().onError(new IllegalStateException("UDP channel handler failed"
                + (slot >= 0 ? " on channel " + id + "; the channel is closed" : "") + ", the reactor goes on", ex));
        } finally {
            if (slot >= 0) {
                close(slot, CloseReason.ERROR, "handler failed: " + ex);
            }
        }
    }

    private UdpEndpoint open(final long id, final UdpOptions options) {
        final int slot = freeSlot();
        final UdpEndpoint endpoint = UdpEndpoint.open(reactor, options, (source, buffer, offset, length, sender, nowNs) -> {
            lastSenders[slot] = sender;
            try {
                handler.onMessage(id, buffer, offset, length);
            } catch (final Throwable ex) {
                handlerFailed(id, ex);
            }
        });
        endpoints[slot] = endpoint;
        ids[slot] = id;
        return endpoint;
    }

    private long nextId() {
        return nextId++;
    }

    private int freeSlot() {
        for (int i = 0; i < endpoints.length; i++) {
            if (endpoints[i] == null) {
                return i;
            }
        }
        final int slot = endpoints.length;
        endpoints = Arrays.copyOf(endpoints, slot * 2);
        lastSenders = Arrays.copyOf(lastSenders, slot * 2);
        ids = Arrays.copyOf(ids, slot * 2);
        return slot;
    }

    private int slot(final long id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id && endpoints[i] != null) {
                return i;
            }
        }
        return -1;
    }

    private static long result(final long sent) {
        return sent >= 0 ? 0 : sent;
    }

    private UdpOptions copy() {
        return new UdpOptions()
            .reuseAddress(template.reuseAddress())
            .multicastInterface(template.multicastInterface())
            .multicastTtl(template.multicastTtl())
            .multicastLoopback(template.multicastLoopback())
            .receiveBufferSize(template.receiveBufferSize())
            .sendBufferSize(template.sendBufferSize())
            .datagramBuffer(template.datagramBuffer())
            .receiveBatch(template.receiveBatch())
            .busyPoll(template.busyPoll());
    }
}
