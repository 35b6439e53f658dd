package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64Publisher;
import dev.peregrine.mold.MoldUDP64PublisherOptions;
import dev.peregrine.mold.MoldUDP64RequestServer;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * One-way MoldUDP64 sender: a publisher that packs offered messages into full packets towards the
 * receiver's feed ({@code port}), and its re-request server ({@code port + 2}), on one reactor that this
 * sender drives at the end of each batch ({@link #flush()}) and, after the last message, in
 * {@link #service()}. With a {@link StreamLoss} the publisher's packet filter drops that fraction of live
 * packets (heartbeats included) before they reach the socket; answers to re-requests are never dropped.
 */
final class PeregrineMoldStreamSender implements RecoveringStreamSender {
    /** The stream's session. */
    static final String SESSION = "STREAM";
    /**
     * Most bytes of messages the store keeps: what the receiver can still recover when it falls behind. At 10 M
     * messages of 32 bytes a second (a segmented run) a store of 4 M messages held 0.4 s: after a receiver's stall
     * of 79 ms the recovery took longer, the store moved past a gap, the server had nothing left to answer, and
     * the run ended with the gap given up. 16 M messages (512 MiB, with the index 640 MiB) hold 1.2 to 1.6 s.
     */
    private static final long STORE_BYTES = 512L << 20;
    /** Most messages the store keeps. */
    private static final int STORE_MESSAGES = 1 << 24;
    /**
     * How long a packet that is not full waits for more messages when no flush sends it: the end of a batch
     * does not (a batch of 256 messages of 32 bytes is six full packets and a seventh of four messages, and
     * the next batch fills it), a flush with nothing offered since the previous one does (the last batch),
     * and a paced sender waiting for its next batch sends it after this delay at the latest.
     */
    static final long FLUSH_DELAY_NS = 1_000_000L;

    private final Reactor reactor;
    private final MoldUDP64MessageStore store;
    private final MoldUDP64Publisher publisher;
    private final MoldUDP64RequestServer requestServer;
    private final StreamLoss.Dropper dropper;
    private final MemorySegment message;
    private final int size;
    private boolean offeredSinceFlush;

    PeregrineMoldStreamSender(final BenchConfig config, final StreamLoss loss) {
        this(config, loss, FLUSH_DELAY_NS);
    }

    /**
     * Creates the sender with another flush delay (a test that counts packets gives it one no descheduling reaches).
     *
     * @param config the run
     * @param loss live packets to drop
     * @param flushDelayNs the publisher's {@link MoldUDP64PublisherOptions#flushDelayNs}
     */
    PeregrineMoldStreamSender(final BenchConfig config, final StreamLoss loss, final long flushDelayNs) {
        this.size = config.size();
        this.dropper = loss.dropper();
        this.reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-sender");
        this.store = MoldUDP64MessageStore.inMemory(SESSION, STORE_MESSAGES,
            Math.min(STORE_BYTES, (long)STORE_MESSAGES * (size + MoldUDP64Layout.BLOCK_HEADER_LENGTH)));
        final int maxPayload = PeregrineMoldStreamReceiver.maxPayload(config);
        try {
            this.requestServer = new MoldUDP64RequestServer(reactor, store, PeregrineUdpBench.options(config).busyPoll(false)
                .localAddress(PeregrineUdpBench.address(config, PeregrineMoldStreamReceiver.REQUEST_PORT_OFFSET)),
                maxPayload, 1_000_000, 10_000);
            this.publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(PeregrineUdpBench.address(config, 0)).maxPayload(maxPayload).flushDelayNs(flushDelayNs)
                .segmentation(PeregrineMoldBench.segmentation())
                .filter((sequence, count) -> !dropper.drop())
                .udp(publisherSocket(config)));
        } catch (final RuntimeException ex) {
            reactor.close();
            store.close();
            throw ex;
        }
        this.message = Arena.ofAuto().allocate(size, 8);
    }

    /**
     * The publisher's socket, on the port the receiver's feed is connected to. With segmentation (the bench's
     * default) a native endpoint, connected and polled (polling finds nothing to read), which segmentation needs;
     * with {@code -Dperegrine.mold.segmentation=false} the JDK's DatagramChannel, one send per packet.
     */
    private static UdpOptions publisherSocket(final BenchConfig config) {
        final UdpOptions options = PeregrineUdpBench.options(config)
            .localAddress(PeregrineUdpBench.address(config, PeregrineMoldStreamReceiver.PUBLISHER_PORT_OFFSET));
        return PeregrineMoldBench.segmentation()
            ? options.busyPoll(true).connectedReadWrite(true).remoteAddress(PeregrineUdpBench.address(config, 0))
            : options.busyPoll(false);
    }

    /**
     * Offers a run, then reads the re-request socket ({@link MoldUDP64RequestServer#endpoint()}): requests are
     * answered after every run (at most 256 messages), not only at the batch's flush, so that a long batch does
     * not hold recovery back and a receiver that needs much recovered slows the live stream down. The rest of
     * the reactor's cycle (the publisher's sending of its full packets in one go among it) waits for the flush.
     */
    @Override // compiled in this class, the loop's call of offer(long) is this class's alone
    public int offer(final long firstSequence, final int count) {
        final int taken = StreamSender.offerEach(this, firstSequence, count);
        requestServer.endpoint().receive(System.nanoTime());
        return taken;
    }

    @Override
    public boolean offer(final long sequence) {
        message.set(PeregrineUdpBench.SEQUENCE, 0, sequence);
        offeredSinceFlush = true;
        final long result = publisher.offer(message, 0, size);
        if (result < 0) {
            throw new IllegalStateException("offer failed: result=" + result + " sequence=" + sequence);
        }
        return true;
    }

    /**
     * Runs one reactor cycle, where re-requests are answered while the stream runs; sends the packet being
     * filled only if nothing was offered since the previous flush, so that batches leave in full packets.
     *
     * @return true if no offered message waits in the packet being filled
     */
    @Override
    public boolean flush() {
        if (!offeredSinceFlush) {
            publisher.flush();
        }
        offeredSinceFlush = false;
        reactor.doWork();
        return publisher.pendingMessages() == 0;
    }

    /**
     * Packets the publisher put on the wire.
     *
     * @return the count
     */
    long packetsSent() {
        return publisher.packetsSent();
    }

    @Override
    public int service() {
        return reactor.doWork();
    }

    @Override
    public long packetsDropped() {
        return dropper.dropped();
    }

    /**
     * Answers sent by the re-request server.
     *
     * @return the count
     */
    long answers() {
        return requestServer.answers();
    }

    @Override
    public void close() {
        reactor.close();
        store.close();
    }
}
