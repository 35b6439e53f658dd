package dev.peregrine.udp;

import dev.peregrine.channel.SendResult;
import dev.peregrine.counters.Counter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;

/**
 * The datapath of a {@link UdpEndpoint} on a {@link DatagramChannel}: the batched receive ({@code receive}, or
 * {@code read} with {@link UdpOptions#connectedReadWrite}) and the one-datagram send ({@code write} to the connected
 * peer, {@code send} to any other address). The endpoint keeps its state (closed, handler failures, the error counts);
 * this class keeps its own copies of what a datagram passes through, so the receive loop reads no field through the
 * endpoint but its closed flag.
 *
 * <p>Not thread-safe: the endpoint's reactor thread.
 */
final class UdpChannelPath {
    private final UdpEndpoint endpoint;
    private final DatagramChannel channel;
    private final DatagramHandler handler;
    private final InetSocketAddress remoteAddress;
    private final ByteBuffer receiveBuffer;
    private final MemorySegment receiveSegment;
    private final ByteBuffer sendBuffer;
    private final int receiveBatch;
    private final boolean connectedReadWrite;
    private final Counter datagramsReceived;
    private final Counter datagramsSent;
    private final Counter drops;
    /** The sender the last datagram came from, the very object the JDK returned (it caches one per channel). */
    private InetSocketAddress lastSender;
    private long senderAddressChanges;

    UdpChannelPath(final UdpEndpoint endpoint, final DatagramChannel channel, final DatagramHandler handler,
        final InetSocketAddress remoteAddress, final ByteBuffer receiveBuffer, final MemorySegment receiveSegment,
        final ByteBuffer sendBuffer, final int receiveBatch, final boolean connectedReadWrite,
        final Counter datagramsReceived, final Counter datagramsSent, final Counter drops) {
        this.endpoint = endpoint;
        this.channel = channel;
        this.handler = handler;
        this.remoteAddress = remoteAddress;
        this.receiveBuffer = receiveBuffer;
        this.receiveSegment = receiveSegment;
        this.sendBuffer = sendBuffer;
        this.receiveBatch = receiveBatch;
        this.connectedReadWrite = connectedReadWrite;
        this.datagramsReceived = datagramsReceived;
        this.datagramsSent = datagramsSent;
        this.drops = drops;
    }

    /** {@link UdpEndpoint#receive} on the channel: a datagram that fills the whole buffer may have been cut. */
    int receive(final long nowNs) {
        int received = 0;
        final ByteBuffer buffer = receiveBuffer;
        while (received < receiveBatch && !endpoint.isClosed()) {
            buffer.clear();
            final InetSocketAddress sender;
            try {
                sender = connectedReadWrite ? readConnected(buffer) : (InetSocketAddress)channel.receive(buffer);
            } catch (final PortUnreachableException ex) {
                endpoint.portUnreachableOnReceive(); // an earlier send hit a closed port; the socket itself is fine
                continue;
            } catch (final ClosedChannelException ex) {
                return received;
            } catch (final IOException ex) {
                endpoint.receiveFailed(new UncheckedIOException((connectedReadWrite
                    ? "UDP read on " + endpoint.localAddress() + " from " + remoteAddress
                    : "UDP receive on " + endpoint.localAddress()) + " failed: " + ex.getMessage(), ex));
                return received;
            }
            if (sender == null) {
                break;
            }
            received++;
            if (sender != lastSender) {
                // another object: the JDK decoded (allocated) the source anew, as it does whenever it differs from the
                // previous datagram's; an unchanged source returns its cached address
                lastSender = sender;
                senderAddressChanges++;
            }
            final int length = buffer.position();
            if (length == buffer.capacity()) {
                endpoint.truncated(sender, length, false);
                continue;
            }
            datagramsReceived.increment();
            try {
                handler.onDatagram(endpoint, receiveSegment, 0, length, sender, nowNs);
            } catch (final Throwable ex) {
                endpoint.handlerFailed(ex); // closes the endpoint: the loop stops here, the rest of the batch is not handed on
            }
        }
        return received;
    }

    /** {@link UdpEndpoint#senderAddressChanges()}. */
    long senderAddressChanges() {
        return senderAddressChanges;
    }

    /**
     * One read(2) on a connected endpoint with {@link UdpOptions#connectedReadWrite}: no address to fetch.
     *
     * @return the connected peer, or null when nothing is queued (an empty datagram reads the same and is
     *     consumed)
     */
    private InetSocketAddress readConnected(final ByteBuffer buffer) throws IOException {
        return channel.read(buffer) > 0 ? remoteAddress : null;
    }

    /** One datagram of the send buffer, from {@code offset}, to {@code target} or the connected peer. */
    long write(final int offset, final int length, final InetSocketAddress target) {
        final ByteBuffer datagram = sendBuffer;
        datagram.clear().limit(offset + length).position(offset);
        if (!datagram.hasRemaining()) {
            throw new IllegalArgumentException("length=0: the JDK's DatagramChannel never sends an empty datagram");
        }
        if (endpoint.isClosed()) {
            return SendResult.CLOSED;
        }
        try {
            // the connected peer itself (same object) needs no address encoding: write(2) rather than sendto(2)
            final int sent = target == null || target == remoteAddress ? channel.write(datagram) : channel.send(datagram, target);
            if (sent == 0) {
                drops.increment();
                return SendResult.BACK_PRESSURED;
            }
            datagramsSent.increment();
            return sent;
        } catch (final PortUnreachableException ex) {
            endpoint.portUnreachableOnSend();
            return SendResult.NOT_CONNECTED;
        } catch (final ClosedChannelException ex) {
            return SendResult.CLOSED;
        } catch (final IOException ex) {
            endpoint.sendFailed(new UncheckedIOException("UDP send from " + endpoint.localAddress() + " to "
                + (target == null ? remoteAddress : target) + " failed: " + ex.getMessage(), ex));
            return SendResult.NOT_CONNECTED;
        }
    }
}
