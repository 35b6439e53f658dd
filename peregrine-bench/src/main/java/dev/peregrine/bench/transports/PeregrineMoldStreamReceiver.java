package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64GapReason;
import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.mold.MoldUDP64Listener;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.RecoveringStreamReceiver;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;

import java.lang.foreign.MemorySegment;
import java.util.function.LongConsumer;

/**
 * One-way MoldUDP64 receiver: a subscriber on the feed ({@code port}) that asks the sender's re-request
 * server ({@code port + 2}) for what is missing, on a reactor driven by {@link #poll}. It hands on each
 * message's bench sequence number (its first 8 bytes) after checking that it matches the MoldUDP64
 * sequence number (bench sequence + 1), and reports each gap's recovery latency. A gap that cannot be
 * recovered fails the poll with the subscriber's reason.
 */
final class PeregrineMoldStreamReceiver implements RecoveringStreamReceiver, MoldUDP64Listener {
    /** The re-request server's port, from {@link BenchConfig#port()}. */
    static final int REQUEST_PORT_OFFSET = 2;
    /** The publisher's own port: the feed is connected to it. */
    static final int PUBLISHER_PORT_OFFSET = 3;
    /** Reorder buffer: packets kept past a gap while it is recovered. */
    private static final long REORDER_BYTES = 64L << 20;

    private final Reactor reactor;
    private final MoldUDP64Subscriber subscriber;
    private LongConsumer sequences;
    private LongConsumer recoveryLatencies = nanos -> { };
    private int delivered;
    private long unrecoverableFrom = -1;
    private long unrecoverableCount;
    private MoldUDP64GapReason unrecoverableReason;
    private RuntimeException failure;

    PeregrineMoldStreamReceiver(final BenchConfig config) {
        this.reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-receiver");
        try {
            this.subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(feedSocket(config))
                // the bench's 4 MiB socket buffers: with 32 requests in flight, a sender stalled for a time slice
                // answers more than the subscriber's default buffer holds
                .request(PeregrineUdpBench.options(config).busyPoll(false))
                .requestServer(PeregrineUdpBench.address(config, REQUEST_PORT_OFFSET))
                .session(PeregrineMoldStreamSender.SESSION).startSequence(1)
                .requestTimeoutNs(10_000_000L).maxRequestTimeoutNs(200_000_000L).requestAttempts(50)
                .maxRequestsInFlight(32).reorderBuffer(REORDER_BYTES, packetLength(config)), this);
        } catch (final RuntimeException ex) {
            reactor.close();
            throw ex;
        }
    }

    /**
     * The feed's socket. With the publisher's segmentation (the bench's default), connected to the publisher's
     * port, native and reading coalesced bursts ({@link UdpOptions#receiveOffload}), so that a segmented burst
     * costs one read; with {@code -Dperegrine.mold.segmentation=false} the JDK's DatagramChannel.
     */
    private static UdpOptions feedSocket(final BenchConfig config) {
        final UdpOptions options = PeregrineUdpBench.options(config).localAddress(PeregrineUdpBench.address(config, 0));
        return PeregrineMoldBench.segmentation()
            ? options.remoteAddress(PeregrineUdpBench.address(config, PUBLISHER_PORT_OFFSET)).connectedReadWrite(true)
                .receiveOffload(true)
            : options;
    }

    static int maxPayload(final BenchConfig config) {
        return Math.max(MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, config.size() + MoldUDP64Layout.BLOCK_HEADER_LENGTH);
    }

    private static int packetLength(final BenchConfig config) {
        return MoldUDP64Layout.HEADER_LENGTH + maxPayload(config);
    }

    @Override
    public void recoveryLatencies(final LongConsumer nanos) {
        this.recoveryLatencies = nanos;
    }

    @Override
    public int poll(final LongConsumer sequences) {
        this.sequences = sequences;
        delivered = 0;
        reactor.doWork();
        this.sequences = null;
        if (failure != null) {
            throw failure; // the subscriber keeps going after a listener's exception: the check must not
        }
        if (unrecoverableReason != null) {
            throw new IllegalStateException("MoldUDP64 gap unrecoverable: from=" + unrecoverableFrom + " count="
                + unrecoverableCount + " reason=" + unrecoverableReason + " after " + subscriber.delivered()
                + " messages");
        }
        return delivered;
    }

    @Override
    public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
        if (failure != null) {
            return;
        }
        final long benchSequence = length >= Long.BYTES ? buffer.get(PeregrineUdpBench.SEQUENCE, offset) : -1;
        try {
            if (benchSequence != sequence - 1) {
                throw new IllegalStateException("MoldUDP64 message " + sequence + " of length=" + length
                    + " carries bench sequence " + benchSequence);
            }
            delivered++;
            sequences.accept(benchSequence);
        } catch (final RuntimeException ex) {
            failure = ex;
        }
    }

    @Override
    public void onGapFilled(final long fromSequence, final long count, final long nanos) {
        recoveryLatencies.accept(nanos);
    }

    @Override
    public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
        unrecoverableFrom = fromSequence;
        unrecoverableCount = count;
        unrecoverableReason = reason;
    }

    @Override
    public void close() {
        reactor.close();
    }
}
