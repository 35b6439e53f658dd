package dev.peregrine.udp;

import dev.peregrine.reactor.Reactor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

/**
 * Opens a {@link UdpEndpoint}: checks the options against each other, opens, configures, binds and connects its
 * socket (a {@link DatagramChannel}, or a {@link UdpNativeSocket} where {@link UdpOptions#nativeSocket} applies),
 * and attaches the endpoint to its reactor. A failure releases whatever was made before it and names the addresses.
 *
 * <p>Cold: once per endpoint, on the thread that calls {@link UdpEndpoint#open} (the reactor's, or any before the
 * reactor starts). Holds no state.
 */
final class UdpEndpointOpener {
    private UdpEndpointOpener() {
    }

    /** What {@link UdpEndpoint#open(Reactor, UdpOptions, InetAddress, DatagramHandler)} promises, all of it. */
    static UdpEndpoint open(final Reactor reactor, final UdpOptions options, final InetAddress peer,
        final DatagramHandler handler) {
        if (reactor == null || options == null || handler == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " options=" + options + " handler=" + handler);
        }
        if (options.receiveOffload() && options.datagramBuffer() < UdpOptions.MAX_DATAGRAM_BUFFER) {
            throw new IllegalArgumentException("receiveOffload=true datagramBuffer=" + options.datagramBuffer()
                + ": a coalesced read needs the full " + UdpOptions.MAX_DATAGRAM_BUFFER + " bytes");
        }
        if (options.connectedReadWrite() && options.remoteAddress() == null) {
            throw new IllegalArgumentException("connectedReadWrite=true remoteAddress=null: reading a socket needs a connected peer");
        }
        final InetSocketAddress localAddress = options.bindAddress(peer);
        final boolean nativeSocket = options.nativeSocket() && options.busyPoll() && options.connectedReadWrite();
        if (nativeSocket && (options.remoteAddress().getAddress() instanceof Inet6Address
            || localAddress.getAddress() instanceof Inet6Address && !localAddress.getAddress().isAnyLocalAddress())) {
            throw new IllegalArgumentException("nativeSocket=true local=" + localAddress + " remote="
                + options.remoteAddress() + ": the native UDP socket is IPv4 only");
        }
        if (nativeSocket && options.multicastInterface() == null && UdpNativeSocket.unavailableReason() == null) {
            return openNative(reactor, options, handler);
        }
        DatagramChannel channel = null;
        UdpEndpoint endpoint = null;
        try {
            channel = DatagramChannel.open(options.ipv6(peer) ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, options.reuseAddress());
            if (options.receiveBufferSize() > 0) {
                channel.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
            }
            if (options.sendBufferSize() > 0) {
                channel.setOption(StandardSocketOptions.SO_SNDBUF, options.sendBufferSize());
            }
            if (options.multicastInterface() != null) {
                channel.setOption(StandardSocketOptions.IP_MULTICAST_IF, options.multicastInterface());
            }
            channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, options.multicastTtl());
            channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, options.multicastLoopback());
            channel.bind(localAddress);
            if (options.remoteAddress() != null) {
                channel.connect(options.remoteAddress());
            }
            endpoint = new UdpEndpoint(channel, null, options, handler, reactor.errorHandler(), reactor.counters());
            endpoint.attach(reactor);
            return endpoint;
        } catch (final IOException ex) {
            UdpEndpoint.closeQuietly(channel);
            throw new UncheckedIOException("cannot open UDP socket local=" + localAddress
                + " remote=" + options.remoteAddress() + ": " + ex.getMessage(), ex);
        } catch (final RuntimeException ex) {
            UdpEndpoint.closeQuietly(channel);
            if (endpoint != null) {
                endpoint.closeCounters(); // made, then not attached (a closed reactor): its slots go back
            }
            throw ex;
        }
    }

    private static UdpEndpoint openNative(final Reactor reactor, final UdpOptions options, final DatagramHandler handler) {
        UdpNativeSocket socket = null;
        UdpEndpoint endpoint = null;
        try {
            socket = UdpNativeSocket.open(options);
            endpoint = new UdpEndpoint(null, socket, options, handler, reactor.errorHandler(), reactor.counters());
            endpoint.attach(reactor);
            return endpoint;
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot open UDP socket local=" + options.localAddress()
                + " remote=" + options.remoteAddress() + ": " + ex.getMessage(), ex); // open() closed what it opened
        } catch (final RuntimeException | Error ex) {
            // an Error too: the buffers are made after the socket (OutOfMemoryError when direct memory is short), and
            // a raw descriptor, unlike a DatagramChannel, has no cleaner to close it later
            if (socket != null) {
                socket.close();
            }
            if (endpoint != null) {
                endpoint.closeCounters(); // made, then not attached (a closed reactor): its slots go back
            }
            throw ex;
        }
    }
}
