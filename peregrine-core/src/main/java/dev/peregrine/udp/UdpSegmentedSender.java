package dev.peregrine.udp;

import dev.peregrine.channel.SendResult;
import dev.peregrine.counters.Counter;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.AlreadyConnectedException;

/**
 * The burst send of a {@link UdpEndpoint} ({@link UdpEndpoint#sendSegmented}): one {@code sendmsg(2)} with UDP
 * segmentation offload ({@code UDP_SEGMENT}) on a {@link UdpNativeSocket}, two for a burst longer than one UDP
 * datagram carries; one system call per datagram on a {@link java.nio.channels.DatagramChannel}, or once the kernel
 * has refused a segmented send, which is remembered ({@link #refused()}) for every later burst. The endpoint checks
 * the arguments and sends a burst of one datagram itself.
 *
 * <p>Not thread-safe: the endpoint's reactor thread.
 */
final class UdpSegmentedSender {
    private final UdpEndpoint endpoint;
    /** The native datapath, or null on a DatagramChannel endpoint. */
    private final UdpNativePath nativePath;
    private final UdpNativeSocket socket;
    private final MemorySegment sendSegment;
    private final InetSocketAddress remoteAddress;
    private final int maxSendLength;
    private final Counter datagramsSent;
    private final Counter drops;
    private String refused;
    private long segmentedSends;

    UdpSegmentedSender(final UdpEndpoint endpoint, final UdpNativePath nativePath, final UdpNativeSocket socket,
        final MemorySegment sendSegment, final InetSocketAddress remoteAddress, final int maxSendLength,
        final Counter datagramsSent, final Counter drops) {
        this.endpoint = endpoint;
        this.nativePath = nativePath;
        this.socket = socket;
        this.sendSegment = sendSegment;
        this.remoteAddress = remoteAddress;
        this.maxSendLength = maxSendLength;
        this.datagramsSent = datagramsSent;
        this.drops = drops;
    }

    /**
     * Sends a checked burst of two datagrams or more from the start of the send buffer.
     *
     * @return as {@link UdpEndpoint#sendSegmented}
     */
    int send(final int length, final int segmentLength, final int segments, final InetSocketAddress target) {
        if (socket == null || refused != null) {
            return sendOneByOne(0, length, segmentLength, target);
        }
        if (endpoint.isClosed()) {
            return (int)SendResult.CLOSED;
        }
        if (target != null && target != remoteAddress && !target.equals(remoteAddress)) {
            throw new AlreadyConnectedException();
        }
        // the kernel holds a segmented send's total to what one UDP datagram carries (65 507 bytes over IPv4) and
        // answers EMSGSIZE beyond it, though every datagram is short: a longer burst leaves in several sends, each
        // a whole number of datagrams (segmentLength <= maxSendLength here, so each holds one at least)
        final int chunk = maxSendLength / segmentLength * segmentLength;
        int sent = 0;
        for (int offset = 0; offset < length; offset += chunk) {
            final int bytes = Math.min(chunk, length - offset);
            final long result = socket.sendMessage(sendSegment, offset, bytes, segmentLength);
            if (result >= 0) {
                final int datagrams = (bytes + segmentLength - 1) / segmentLength;
                segmentedSends++;
                datagramsSent.add(datagrams);
                sent += datagrams;
                continue;
            }
            if (result == -UdpNativeSocket.EAGAIN) {
                drops.add(segments - sent);
                return sent;
            }
            if (result == -UdpNativeSocket.EINVAL || result == -UdpNativeSocket.EIO
                || result == -UdpNativeSocket.ENOPROTOOPT) {
                refused = "the kernel refused a segmented send (UDP_SEGMENT): "
                    + UdpNativeSocket.describe((int)-result);
                final int rest = sendOneByOne(offset, length, segmentLength, target);
                return rest >= 0 ? sent + rest : sent > 0 ? sent : rest;
            }
            final int failed = (int)nativePath.sendFailed(result);
            return sent > 0 ? sent : failed;
        }
        return sent;
    }

    /** The datagrams of a burst from {@code from}, one system call each: the fallback of {@link #send}. */
    private int sendOneByOne(final int from, final int length, final int segmentLength, final InetSocketAddress target) {
        int sent = 0;
        for (int offset = from; offset < length; offset += segmentLength) {
            final int datagram = Math.min(segmentLength, length - offset);
            final long result = endpoint.writeAt(offset, datagram, target);
            if (result == SendResult.BACK_PRESSURED) { // this one is counted as a drop; the rest are not sent either
                drops.add((length - offset - datagram + segmentLength - 1) / segmentLength);
                return sent;
            }
            if (result < 0) {
                return sent > 0 ? sent : (int)result;
            }
            sent++;
        }
        return sent;
    }

    /** Why the kernel refused a segmented send, or null while it has not. */
    String refused() {
        return refused;
    }

    /** Segmented system calls made: one a burst, two for a burst longer than one UDP datagram carries. */
    long segmentedSends() {
        return segmentedSends;
    }
}
