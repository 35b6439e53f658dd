package dev.peregrine.mold;

import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.TimerHandler;
import dev.peregrine.udp.UdpEndpoint;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * The MoldUDP64 transmitter: numbers messages from the store's next sequence number (1 for a new
 * session), records each in the {@link MoldUDP64MessageStore}, packs as many as fit whole into one packet,
 * and sends the packet when it is full, when the flush delay expires (a timer on the reactor's wheel), or
 * at the end of the cycle when the delay is 0. When idle it sends a heartbeat every heartbeat interval;
 * {@link #close()} sends end-of-session packets, repeated, and then releases the socket.
 *
 * <p>With {@link MoldUDP64PublisherOptions#segmentation} on, where the endpoint can have the kernel cut datagrams
 * (UDP segmentation offload: a native endpoint, {@link UdpEndpoint#segmentationUnavailableReason()} null), a
 * packet that fills up does not leave alone: the full
 * packets of a duty cycle wait in the send buffer, one after the other, and leave together at the end of the cycle
 * in one {@code sendmsg(2)} that the kernel cuts into the same datagrams (at once when 64 wait, when the buffer
 * holds no more, or when a shorter packet ends the run of equal lengths that segmentation needs). At high rates
 * that is one system call per 64 packets rather than one each; the wire carries exactly the packets it would
 * otherwise, and a lone message still leaves at the end of its cycle or on its flush delay. Elsewhere each full
 * packet leaves at once.
 *
 * <p>A packet the socket cannot take now ({@link SendResult#BACK_PRESSURED}) is not retried: its messages
 * are in the store, and listeners recover them as after any loss. Nothing allocates per message.
 *
 * <p>A {@link MoldUDP64PacketFilter} that throws ends the publisher at once: the socket is released, it leaves the
 * reactor, no end-of-session is sent (listeners see the feed stop, as after a crash), {@link #offer} answers
 * {@link #CLOSED}, the failure is counted ({@link #handlerFailures()}), kept ({@link #failure()}) and reported to
 * the reactor's error handler. The messages already offered are in the store. The reactor goes on.
 *
 * <p>Not thread-safe: one reactor thread.
 */
public final class MoldUDP64Publisher implements Pollable, AutoCloseable {
    /** {@link #offer} result: the message is longer than a packet's payload can hold. */
    public static final long MESSAGE_TOO_LARGE = SendResult.MESSAGE_TOO_LARGE;
    /** {@link #offer} result: the session has ended. */
    public static final long CLOSED = SendResult.CLOSED;

    private final Reactor reactor;
    private final MoldUDP64MessageStore store;
    private final UdpEndpoint endpoint;
    private final InetSocketAddress destination;
    private final MemorySegment session;
    private final MemorySegment packet;
    private final int maxPayload;
    private final long flushDelayNs;
    private final long heartbeatIntervalNs;
    private final int endOfSessionRepeats;
    private final MoldUDP64PacketFilter filter;
    private final TimerHandler flushTimer = this::onFlushTimer;
    /** Whether full packets wait for the end of the cycle to leave together in one segmented send. */
    private final boolean segmenting;
    private long packetSequence;
    private int packetCount;
    private int packetLength;
    /** Where the packet being filled starts in the send buffer: after the packets of the burst. */
    private int packetStart;
    /** Closed packets waiting in the send buffer, from offset 0; all {@link #segmentLength} long but the last. */
    private int burstPackets;
    private int burstMessages;
    private int segmentLength;
    private long flushTimerId = -1;
    private long lastSendNs;
    private int endOfSessionSent = -1;
    private long packetsSent;
    private long packetsDropped;
    private long heartbeatsSent;
    private long backPressured;
    private long handlerFailures;
    private String failure;

    /**
     * Creates a publisher and adds it to the reactor; the first heartbeat follows after one interval.
     *
     * @param reactor the reactor; call on its thread (or before it starts)
     * @param store where every message is recorded; its session is the feed's session
     * @param options destination and packing
     */
    public MoldUDP64Publisher(final Reactor reactor, final MoldUDP64MessageStore store, final MoldUDP64PublisherOptions options) {
        if (reactor == null || store == null || options == null || options.destination() == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " store=" + store + " destination="
                + (options == null ? null : options.destination()));
        }
        this.reactor = reactor;
        this.store = store;
        this.destination = options.destination();
        this.session = store.session();
        this.maxPayload = options.maxPayload();
        this.flushDelayNs = options.flushDelayNs();
        this.heartbeatIntervalNs = options.heartbeatIntervalNs();
        this.endOfSessionRepeats = options.endOfSessionRepeats();
        this.filter = options.filter();
        // an unset bind address is the wildcard of the destination's family: an IPv4 socket cannot send to an IPv6 one
        this.endpoint = UdpEndpoint.open(reactor, options.udp(), destination.getAddress(), (e, buffer, offset, length, sender, nowNs) -> {
            // a transmitter expects nothing back; stray datagrams are ignored
        });
        if (endpoint.maxDatagramLength() < MoldUDP64Layout.HEADER_LENGTH + maxPayload) {
            endpoint.close();
            throw new IllegalArgumentException("maxPayload=" + maxPayload + " exceeds the endpoint's datagramBuffer="
                + endpoint.maxDatagramLength());
        }
        this.packet = endpoint.sendBuffer();
        this.segmenting = options.segmentation() && endpoint.segmentationUnavailableReason() == null
            && endpoint.maxDatagramLength() >= 2 * (MoldUDP64Layout.HEADER_LENGTH + maxPayload);
        this.lastSendNs = reactor.nowNs();
        reactor.add(this);
    }

    /**
     * Publishes one message: numbers it, records it and adds it to the current packet.
     *
     * @param buffer memory holding the message
     * @param offset where it starts
     * @param length its length, 0 to the maximum payload - 2
     * @return its sequence number, or {@link #MESSAGE_TOO_LARGE} or {@link #CLOSED}
     */
    public long offer(final MemorySegment buffer, final long offset, final int length) {
        if (endOfSessionSent >= 0) {
            return CLOSED;
        }
        final int blockLength = MoldUDP64Layout.BLOCK_HEADER_LENGTH + length;
        if (length < 0 || blockLength > maxPayload) {
            return MESSAGE_TOO_LARGE;
        }
        if (packetCount > 0 && (packetLength + blockLength > MoldUDP64Layout.HEADER_LENGTH + maxPayload
            || packetCount == MoldUDP64Layout.MAX_MESSAGE_COUNT)) {
            closePacket();
            if (failure != null) {
                return CLOSED; // the filter threw on the full packet: this message is not taken
            }
        }
        final long sequence = store.append(buffer, offset, length);
        if (packetCount == 0) {
            packetSequence = sequence;
            packetLength = MoldUDP64Layout.HEADER_LENGTH;
            if (flushDelayNs > 0) {
                flushTimerId = reactor.timers().schedule(reactor.nowNs() + flushDelayNs, flushTimer, 0);
            }
        }
        final long at = packetStart + packetLength;
        MoldUDP64Layout.putMessageLength(packet, at, length);
        MemorySegment.copy(buffer, offset, packet, at + MoldUDP64Layout.BLOCK_HEADER_LENGTH, length);
        packetLength += blockLength;
        packetCount++;
        return sequence;
    }

    /**
     * Sends the current packet now, if it holds any message, with the full packets waiting for the end of the cycle.
     *
     * @return 1 if a packet was sent (or dropped by the filter), 0 if there was nothing to send
     */
    public int flush() {
        if (packetCount == 0 && burstPackets == 0) {
            return 0;
        }
        if (packetCount > 0) {
            closePacket();
        }
        sendBurst();
        return 1;
    }

    /**
     * Ends the packet being filled: it leaves now, or, where the endpoint segments, joins the burst of full
     * packets that leaves in one system call at the end of the cycle (or at once when the burst is full, or when
     * this packet is shorter than the burst's and so must be its last).
     */
    private void closePacket() {
        if (flushTimerId >= 0) {
            reactor.timers().cancel(flushTimerId);
            flushTimerId = -1;
        }
        final long sequence = packetSequence;
        final int count = packetCount;
        final int length = packetLength;
        packetCount = 0;
        packetLength = 0;
        MoldUDP64Layout.putHeader(packet, packetStart, session, sequence, count);
        if (!segmenting) {
            transmit(sequence, count, length);
            return;
        }
        if (!passes(sequence, count)) {
            return; // dropped (its bytes are overwritten by the next packet), or the filter threw
        }
        if (burstPackets > 0 && length > segmentLength) {
            final int start = packetStart;
            sendBurst(); // a longer packet cannot follow shorter segments: the burst leaves first
            MemorySegment.copy(packet, start, packet, 0, length);
        }
        if (burstPackets == 0) {
            segmentLength = length;
        }
        burstPackets++;
        burstMessages += count;
        packetStart += length;
        if (length < segmentLength || burstPackets == UdpEndpoint.MAX_SEGMENTS
            || packetStart + MoldUDP64Layout.HEADER_LENGTH + maxPayload > endpoint.maxDatagramLength()) {
            sendBurst();
        }
    }

    /** Sends the burst of closed packets in one segmented send; the packet being filled moves to the front. */
    private void sendBurst() {
        if (burstPackets == 0) {
            return;
        }
        final int packets = burstPackets;
        final int length = packetStart;
        burstPackets = 0;
        burstMessages = 0;
        lastSendNs = reactor.nowNs();
        final int sent = endpoint.sendSegmented(length, segmentLength, destination);
        if (sent >= 0) {
            packetsSent += sent;
            backPressured += packets - sent;
        } else {
            backPressured += packets;
        }
        if (packetCount > 0) {
            MemorySegment.copy(packet, length, packet, 0, packetLength);
        }
        packetStart = 0;
    }

    @Override
    public int doWork(final long nowNs) {
        if (packetCount > 0 || burstPackets > 0) {
            if (flushDelayNs == 0) {
                return flush();
            }
            if (burstPackets > 0) {
                sendBurst(); // the full packets of this cycle leave at its end; the one being filled waits its delay
                return 1;
            }
            return 0;
        }
        if (nowNs - lastSendNs < heartbeatIntervalNs) {
            return 0;
        }
        if (endOfSessionSent < 0) {
            sendEmpty(MoldUDP64Layout.HEARTBEAT);
            heartbeatsSent++;
            return 1;
        }
        if (endOfSessionSent < endOfSessionRepeats) {
            sendEmpty(MoldUDP64Layout.END_OF_SESSION);
            endOfSessionSent++;
            return 1;
        }
        release();
        return 1;
    }

    /**
     * Ends the session: sends what is pending and the first end-of-session packet now, the rest one per
     * heartbeat interval, and then closes the socket and leaves the reactor ({@link #isDone()}).
     * No message can be offered afterwards. Idempotent.
     */
    @Override
    public void close() {
        if (endOfSessionSent >= 0) {
            return;
        }
        flush();
        if (failure != null) {
            return;
        }
        endOfSessionSent = 0;
        sendEmpty(MoldUDP64Layout.END_OF_SESSION);
        endOfSessionSent = 1;
        if (endOfSessionSent >= endOfSessionRepeats) {
            release();
        }
    }

    /**
     * Whether the session has ended and every end-of-session packet went out, or the publisher failed
     * ({@link #failure()}).
     *
     * @return true once the socket is released
     */
    public boolean isDone() {
        return endpoint.isClosed();
    }

    /**
     * The sequence number the next offered message gets.
     *
     * @return the number
     */
    public long nextSequence() {
        return store.nextSequence();
    }

    /**
     * Messages offered and not yet sent: the packet being filled, which leaves when it is full, when the
     * flush delay expires, or on {@link #flush()}.
     *
     * @return the count
     */
    public int pendingMessages() {
        return packetCount + burstMessages;
    }

    /**
     * Packets put on the wire (data, heartbeat and end of session).
     *
     * @return the count
     */
    public long packetsSent() {
        return packetsSent;
    }

    /**
     * Packets dropped by the filter.
     *
     * @return the count
     */
    public long packetsDropped() {
        return packetsDropped;
    }

    /**
     * Heartbeats sent.
     *
     * @return the count
     */
    public long heartbeatsSent() {
        return heartbeatsSent;
    }

    /**
     * Packets the socket could not take (left to recovery).
     *
     * @return the count
     */
    public long backPressured() {
        return backPressured;
    }

    /**
     * The sending socket.
     *
     * @return the endpoint
     */
    public UdpEndpoint endpoint() {
        return endpoint;
    }

    private void sendEmpty(final int count) {
        MoldUDP64Layout.putHeader(packet, 0, session, store.nextSequence(), count);
        transmit(store.nextSequence(), count, MoldUDP64Layout.HEADER_LENGTH);
    }

    private void transmit(final long sequence, final int count, final int length) {
        lastSendNs = reactor.nowNs();
        if (!passes(sequence, count)) {
            return;
        }
        final long result = endpoint.sendPrepared(length, destination);
        if (result >= 0) {
            packetsSent++;
        } else {
            backPressured++;
        }
    }

    /** Asks the filter; false if it drops the packet (counted) or throws (the publisher ends). */
    private boolean passes(final long sequence, final int count) {
        final boolean send;
        try {
            send = filter.send(sequence, count);
        } catch (final Throwable ex) {
            filterFailed(sequence, count, ex);
            return false;
        }
        if (!send) {
            packetsDropped++;
        }
        return send;
    }

    private void onFlushTimer(final long timerId, final long cookie, final long nowNs) {
        if (timerId == flushTimerId) {
            flushTimerId = -1;
            flush();
        }
    }

    /** The filter threw: count and report it, and end the publisher without an end of session. */
    private void filterFailed(final long sequence, final int count, final Throwable ex) {
        handlerFailures++;
        failure = "packet filter failed on the packet of sequence " + sequence + " count " + count + ": " + ex;
        endOfSessionSent = endOfSessionRepeats; // offer answers CLOSED, close() does nothing
        packetCount = 0;
        packetLength = 0;
        packetStart = 0;
        burstPackets = 0;
        burstMessages = 0;
        if (flushTimerId >= 0) {
            reactor.timers().cancel(flushTimerId);
            flushTimerId = -1;
        }
        try {
            reactor.errorHandler().onError(new IllegalStateException("MoldUDP64 publisher on "
                + endpoint.localAddress() + ": " + failure + "; the publisher is closed, the reactor goes on", ex));
        } finally {
            release();
        }
    }

    /**
     * Times the packet filter threw (once at most: the first failure ends the publisher).
     *
     * @return the count
     */
    public long handlerFailures() {
        return handlerFailures;
    }

    /**
     * Why the publisher ended early: the packet filter threw.
     *
     * @return the detail, or null while it has not failed
     */
    public String failure() {
        return failure;
    }

    private void release() {
        endpoint.close();
        reactor.remove(this);
    }
}
