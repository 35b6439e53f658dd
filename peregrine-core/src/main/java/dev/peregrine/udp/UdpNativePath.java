package dev.peregrine.udp;

import dev.peregrine.channel.SendResult;
import dev.peregrine.counters.Counter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.AlreadyConnectedException;

/**
 * The datapath of a {@link UdpEndpoint} on a {@link UdpNativeSocket}: the batched receive with {@code recv(MSG_TRUNC)}
 * (which tells a cut datagram's real length) and coalesced reads, and the one-datagram send, with the same outcomes
 * and counters as the endpoint's {@link java.nio.channels.DatagramChannel} path. The endpoint keeps its state
 * (closed, handler failures, the error counts); this class keeps its own copies of what a datagram passes through,
 * so the receive loop reads no field through the endpoint but its closed flag.
 *
 * <p>Not thread-safe: the endpoint's reactor thread.
 */
final class UdpNativePath {
    private final UdpEndpoint endpoint;
    private final UdpNativeSocket socket;
    private final DatagramHandler handler;
    private final InetSocketAddress remoteAddress;
    private final MemorySegment receiveSegment;
    private final long receiveCapacity;
    private final MemorySegment sendSegment;
    private final int receiveBatch;
    /** Coalesced reads are on: each read is split into the datagrams it holds. */
    private final boolean coalesced;
    private final Counter datagramsReceived;
    private final Counter datagramsSent;
    private final Counter drops;
    private long coalescedReads;

    UdpNativePath(final UdpEndpoint endpoint, final UdpNativeSocket socket, final DatagramHandler handler,
        final InetSocketAddress remoteAddress, final MemorySegment receiveSegment, final MemorySegment sendSegment,
        final int receiveBatch, final Counter datagramsReceived, final Counter datagramsSent, final Counter drops) {
        this.endpoint = endpoint;
        this.socket = socket;
        this.handler = handler;
        this.remoteAddress = remoteAddress;
        this.receiveSegment = receiveSegment;
        this.receiveCapacity = receiveSegment.byteSize();
        this.sendSegment = sendSegment;
        this.receiveBatch = receiveBatch;
        this.coalesced = socket.receiveOffloadRefused() == null;
        this.datagramsReceived = datagramsReceived;
        this.datagramsSent = datagramsSent;
        this.drops = drops;
    }

    /** {@link UdpEndpoint#receive} on the native socket: {@code recv(MSG_TRUNC)} tells a cut datagram's real length. */
    int receive(final long nowNs) {
        int received = 0;
        final long capacity = receiveCapacity;
        while (received < receiveBatch && !endpoint.isClosed()) {
            final long length = coalesced ? socket.receiveMessage(receiveSegment, capacity)
                : socket.receive(receiveSegment, capacity);
            if (length <= 0) {
                if (length == 0 || length == -UdpNativeSocket.EAGAIN) {
                    break; // nothing queued; an empty datagram is consumed as on the JDK path
                }
                if (length == -UdpNativeSocket.ECONNREFUSED) {
                    endpoint.portUnreachableOnReceive();
                    continue; // an earlier send hit a closed port; the socket itself is fine
                }
                receiveFailed(length);
                return received;
            }
            received++;
            if (length > capacity) {
                endpoint.truncated(remoteAddress, length, true);
                continue;
            }
            final int segment = coalesced ? socket.segmentLength() : 0;
            if (segment > 0 && segment < length) {
                received += handOnCoalesced((int)length, segment, nowNs) - 1;
                continue;
            }
            datagramsReceived.increment();
            try {
                handler.onDatagram(endpoint, receiveSegment, 0, (int)length, remoteAddress, nowNs);
            } catch (final Throwable ex) {
                endpoint.handlerFailed(ex); // closes the endpoint: the loop stops here, the rest of the batch is not handed on
            }
        }
        return received;
    }

    private void receiveFailed(final long errno) {
        final String error = UdpNativeSocket.describe((int)-errno);
        endpoint.receiveFailed(new UncheckedIOException("UDP read on " + endpoint.localAddress() + " from "
            + remoteAddress + " failed: " + error, new IOException(error)));
    }

    /**
     * Hands on the datagrams of one coalesced read, each {@code segment} bytes but the last, in order.
     *
     * @return how many were handed on (fewer when a handler threw and closed the endpoint)
     */
    private int handOnCoalesced(final int length, final int segment, final long nowNs) {
        coalescedReads++;
        int handed = 0;
        for (int offset = 0; offset < length && !endpoint.isClosed(); offset += segment) {
            datagramsReceived.increment();
            handed++;
            try {
                handler.onDatagram(endpoint, receiveSegment, offset, Math.min(segment, length - offset), remoteAddress, nowNs);
            } catch (final Throwable ex) {
                endpoint.handlerFailed(ex); // closes the endpoint: the rest of the read is not handed on
            }
        }
        return handed;
    }

    /** Reads that held several datagrams ({@link UdpOptions#receiveOffload}). */
    long coalescedReads() {
        return coalescedReads;
    }

    /**
     * One datagram of the send buffer to the connected peer: the same outcomes as the endpoint's
     * {@link java.nio.channels.DatagramChannel} write for the same conditions.
     */
    long write(final int offset, final int length, final InetSocketAddress target) {
        if (length == 0) {
            throw new IllegalArgumentException("length=0: an empty datagram is never sent (the JDK's DatagramChannel"
                + " cannot, and a connected endpoint reads one as nothing)");
        }
        if (endpoint.isClosed()) {
            return SendResult.CLOSED;
        }
        if (target != null && target != remoteAddress && !target.equals(remoteAddress)) {
            throw new AlreadyConnectedException(); // what DatagramChannel.send does to a connected channel
        }
        // send(2) for the usual datagram at the buffer's start; sendmsg(2), which takes an address, for one inside
        final long sent = offset == 0 ? socket.send(sendSegment, length) : socket.sendMessage(sendSegment, offset, length, 0);
        if (sent >= 0) {
            datagramsSent.increment();
            return sent;
        }
        if (sent == -UdpNativeSocket.EAGAIN) {
            drops.increment();
            return SendResult.BACK_PRESSURED;
        }
        return sendFailed(sent);
    }

    /**
     * A native send failed other than for a full buffer: counted, and reported unless the port refused;
     * NOT_CONNECTED, or MESSAGE_TOO_LARGE when the kernel says the datagram is too long for the path.
     */
    long sendFailed(final long errno) {
        if (errno == -UdpNativeSocket.EMSGSIZE) {
            return SendResult.MESSAGE_TOO_LARGE;
        }
        if (errno == -UdpNativeSocket.ECONNREFUSED) { // a refused port is an outcome, as PortUnreachableException is
            endpoint.portUnreachableOnSend();
        } else {
            final String error = UdpNativeSocket.describe((int)-errno);
            endpoint.sendFailed(new UncheckedIOException("UDP send from " + endpoint.localAddress() + " to "
                + remoteAddress + " failed: " + error, new IOException(error)));
        }
        return SendResult.NOT_CONNECTED;
    }
}
