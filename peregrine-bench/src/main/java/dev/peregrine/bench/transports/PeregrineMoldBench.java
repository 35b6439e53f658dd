package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64GapReason;
import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.mold.MoldUDP64Listener;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64PacketFilter;
import dev.peregrine.mold.MoldUDP64Publisher;
import dev.peregrine.mold.MoldUDP64PublisherOptions;
import dev.peregrine.mold.MoldUDP64RequestServer;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.RecoveringStreamReceiver;
import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * MoldUDP64 round trip: the client's publisher sends each message in a packet of its own to the
 * responder's subscriber, whose listener publishes it again on a second MoldUDP64 session back to the
 * client's subscriber. Each side also runs a re-request server for its own session. Ports: the
 * responder's feed {@code port}, the client's feed {@code port + 1}, the re-request servers
 * {@code port + 2} (client's session) and {@code port + 3} (responder's session).
 *
 * <p>With {@link BenchConfig#busySpin()} the message path is the raw UDP adapter's: the publishers bind
 * {@code port + 4} (responder's) and {@code port + 5} (client's), each feed endpoint and publisher
 * endpoint is connected to its counterpart with {@link UdpOptions#connectedReadWrite} (read(2)/write(2),
 * no address), and each side's thread polls its feed endpoint directly, running a full reactor cycle
 * (epoll_wait for the selector-driven re-request sockets, timers, heartbeats, request timeouts) only
 * every {@value #REACTOR_INTERVAL} polls. Only the feeds are polled; the re-request sockets wait for the
 * selector, so an idle cycle costs one system call instead of one per socket.
 *
 * <p>One-way stream ({@code bench throughput}): a publisher packing messages into full packets and its
 * re-request server ({@code port + 2}) on the sender's side, a subscriber on {@code port} on the receiver's
 * ({@link PeregrineMoldStreamSender}, {@link PeregrineMoldStreamReceiver}); with {@link StreamLoss} the
 * publisher drops some live packets, which the subscriber recovers.
 *
 * <p>{@code bench load}'s shared topology ({@link #startSharedResponder}, {@link #connectAll}): one responder reactor
 * thread ({@link PeregrineMoldSharedResponder}) follows every client's session and echoes on a session of its own to
 * each, with that session's request server; every client's publisher, request server and subscriber share one
 * reactor driven by the one client thread ({@link PeregrineMoldClientGroup}). The responder knows only {@code port}
 * before the clients come, so each client introduces its sockets there ({@code MoldRendezvous}); after that the
 * sessions are those of the per-client topology, on shared threads, every socket waiting for its reactor's selector.
 */
public final class PeregrineMoldBench implements RecoveringStreamTransport {
    static final String REQUEST_SESSION = "PING";
    static final String ECHO_SESSION = "PONG";
    /** Feed polls per full reactor cycle on the busy-spin path: recovery and heartbeats are not on the message path. */
    static final int REACTOR_INTERVAL = 64;

    /**
     * System property: the one-way stream's publisher sends the full packets of a cycle in one segmented send
     * ({@link MoldUDP64PublisherOptions#segmentation}) on a native connected socket, and the receiver's feed reads
     * coalesced bursts; {@code false} turns both off (the JDK's DatagramChannel on both sides, one datagram per
     * system call). On by default in the bench, where the endpoints are set up for it; off by default in the library.
     */
    static final String SEGMENTATION_PROPERTY = "peregrine.mold.segmentation";

    /** Creates the adapter (service loader). */
    public PeregrineMoldBench() {
    }

    static boolean segmentation() {
        return !"false".equals(System.getProperty(SEGMENTATION_PROPERTY));
    }

    @Override
    public List<String> jvmArguments() {
        // the receiving JVM reads the stream as the sending one sends it: both switches go with it
        return PeregrineUdpBench.forwarded(SEGMENTATION_PROPERTY, PeregrineUdpBench.NATIVE_PROPERTY);
    }

    @Override
    public String name() {
        return "peregrine-mold";
    }

    @Override
    public String description() {
        return "Peregrine MoldUDP64: publisher -> subscriber, one message per packet, echoed on a second session; busy-spin:"
            + " feeds and publishers connected (connectedReadWrite), each side's thread polls its feed and runs a reactor"
            + " cycle every " + REACTOR_INTERVAL + " polls; otherwise backing-off reactors; load, shared topology: a session"
            + " each way per client, one responder reactor following every client's feed and echoing on each client's own,"
            + " the clients' publishers, request servers and subscribers on one client reactor, sockets found by rendezvous";
    }

    @Override
    public String path() {
        return "udp";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        return config.largest() + MoldUDP64Layout.BLOCK_HEADER_LENGTH > 65_487
            ? (config.size() >= config.replySize() ? "size=" + config.size() : "replySize=" + config.replySize())
            + " does not fit one MoldUDP64 packet" : null;
    }

    /**
     * A session's store: what a subscriber that fell behind can still ask for. Its index holds more messages than
     * its 64 MiB of data do at the smallest sizes, so that bytes, not a message count, bound how far back recovery
     * reaches (a count of 2^16 was under a second of a {@code bench load} client at 100k msg/s).
     */
    static MoldUDP64MessageStore store(final String session) {
        return MoldUDP64MessageStore.inMemory(session, 1 << 20, 64L << 20);
    }

    static int maxPayload(final BenchConfig config) {
        return Math.max(MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, config.largest() + MoldUDP64Layout.BLOCK_HEADER_LENGTH);
    }

    /** One side: a store, a publisher and its re-request server, and a subscriber to the other side. */
    private static final class Side {
        final MoldUDP64MessageStore store;
        final MoldUDP64Publisher publisher;
        final MoldUDP64Subscriber subscriber;

        Side(final Reactor reactor, final BenchConfig config, final String session, final int feedPort, final int peerFeedPort,
            final int requestPort, final int peerRequestPort, final int publisherPort, final int peerPublisherPort,
            final MoldUDP64Listener listener, final MoldUDP64PacketFilter filter) {
            final boolean fast = config.busySpin();
            store = store(session);
            new MoldUDP64RequestServer(reactor, store, PeregrineUdpBench.options(config).busyPoll(!fast)
                .localAddress(PeregrineUdpBench.address(config, requestPort)), maxPayload(config), 100_000, 1000);
            final UdpOptions feed = PeregrineUdpBench.options(config).localAddress(PeregrineUdpBench.address(config, feedPort));
            if (fast) {
                feed.remoteAddress(PeregrineUdpBench.address(config, peerPublisherPort)).connectedReadWrite(true);
            }
            subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions().feed(feed)
                .requestServer(PeregrineUdpBench.address(config, peerRequestPort)).requestTimeoutNs(10_000_000L), listener);
            final InetSocketAddress destination = PeregrineUdpBench.address(config, peerFeedPort);
            final UdpOptions udp = fast
                ? PeregrineUdpBench.options(config).busyPoll(false).localAddress(PeregrineUdpBench.address(config, publisherPort))
                    .remoteAddress(destination).connectedReadWrite(true) // the same object: sends go out with write(2)
                : PeregrineUdpBench.options(config).localAddress(new InetSocketAddress(PeregrineUdpBench.address(config, 0).getAddress(), 0));
            publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(destination).maxPayload(maxPayload(config)).udp(udp).filter(filter));
        }

        /**
         * One poll of the busy-spin path: the feed now, then what it made this side publish, everything else
         * every {@link #REACTOR_INTERVAL} polls.
         */
        int poll(final Reactor reactor, final long cycle) {
            int work = subscriber.feedEndpoint().receive(System.nanoTime());
            work += publisher.flush();
            if (cycle % REACTOR_INTERVAL == 0) {
                work += reactor.doWork();
            }
            return work;
        }
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        final Reactor reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-responder");
        final PeregrineUdpBench.EchoResponder responder = new PeregrineUdpBench.EchoResponder(reactor);
        final Side[] side = new Side[1];
        final MemorySegment reply = PeregrineUdpBench.replyBuffer(config);
        final int sequenceLength = config.sequenceLength();
        side[0] = new Side(reactor, config, ECHO_SESSION, 0, 1, 3, 2, 4, 5, // before any thread runs the reactor
            new Unrecoverable("responder") {
                @Override
                public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                    // packed: the echoes of one feed packet leave together, flushed once the packet is delivered
                    if (reply == null) {
                        side[0].publisher.offer(buffer, offset, length);
                    } else {
                        MemorySegment.copy(buffer, offset, reply, 0, Math.min(length, sequenceLength));
                        side[0].publisher.offer(reply, 0, (int)reply.byteSize());
                    }
                    responder.echoed++;
                }
            }, MoldUDP64PacketFilter.SEND_ALL);
        responder.release = side[0].store::close; // 64 MiB off-heap: not left to the end of a JVM that runs many
        if (config.busySpin()) {
            final Thread thread = new Thread(() -> {
                long cycle = 0;
                while (!responder.closing) {
                    side[0].poll(reactor, ++cycle);
                }
            }, "peregrine-mold-responder");
            thread.setDaemon(true);
            responder.thread = thread;
            thread.start();
        } else {
            reactor.start();
        }
        return responder;
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        return connect(config, StreamLoss.NONE.dropper());
    }

    @Override
    public boolean supportsPingLoss() {
        return true;
    }

    /** The client's publisher drops what {@code dropper} says, as the stream sender's does ({@code bench load --loss}). */
    @Override
    public PingClient connect(final BenchConfig config, final StreamLoss.Dropper dropper) {
        final Reactor reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-client");
        final Client client = new Client(reactor, config.size(), config.replySize(), config.busySpin());
        client.side = new Side(reactor, config, REQUEST_SESSION, 1, 0, 2, 3, 5, 4, client.listener,
            (sequence, count) -> !dropper.drop());
        return client;
    }

    @Override
    public boolean sharedResponder() {
        return true; // one reactor thread follows and answers every client's session
    }

    @Override
    public Responder startSharedResponder(final BenchConfig config) {
        return PeregrineMoldSharedResponder.start(config);
    }

    @Override
    public List<PingClient> connectAll(final BenchConfig config, final int count) throws IOException {
        final List<StreamLoss.Dropper> none = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            none.add(StreamLoss.NONE.dropper());
        }
        return PeregrineMoldClientGroup.connect(config, none);
    }

    /** The clients of the shared topology, each dropping what its own dropper says ({@code bench load --loss}). */
    @Override
    public List<PingClient> connectAll(final BenchConfig config, final List<StreamLoss.Dropper> droppers)
        throws IOException {
        return PeregrineMoldClientGroup.connect(config, droppers);
    }

    @Override
    public RecoveringStreamReceiver startStreamReceiver(final BenchConfig config) {
        return new PeregrineMoldStreamReceiver(config);
    }

    @Override
    public RecoveringStreamSender connectStreamSender(final BenchConfig config, final StreamLoss loss) {
        return new PeregrineMoldStreamSender(config, loss);
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    /**
     * A listener that does not let a gap its request server can no longer fill pass in silence (the bench would
     * otherwise only see echoes stop): the client fails with the reason, the responder says so on stderr.
     */
    abstract static class Unrecoverable implements MoldUDP64Listener {
        private final String side;
        private boolean told;

        Unrecoverable(final String side) {
            this.side = side;
        }

        static String describe(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
            return "MoldUDP64 gap of " + count + " message(s) from sequence=" + fromSequence + " unrecoverable: " + reason;
        }

        @Override
        public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
            if (!told) {
                told = true;
                System.err.println("peregrine-mold " + side + ": " + describe(fromSequence, count, reason));
            }
        }
    }

    /** The client: its own reactor, driven by the client's thread in {@link #poll()}. */
    private static final class Client implements PingClient {
        private final Reactor reactor;
        private final MemorySegment message;
        private final int size;
        private final boolean busySpin;
        Side side;
        private final EchoSequences received = new EchoSequences();
        private final int replySize;
        /** Bytes of the sequence field ({@link BenchMessageLayout}). */
        private final int sequenceLength;
        private IllegalStateException replyFailure;
        private long cycle;
        private long lastSent;

        Client(final Reactor reactor, final int size, final int replySize, final boolean busySpin) {
            this.reactor = reactor;
            this.size = size;
            this.replySize = replySize;
            this.sequenceLength = BenchMessageLayout.sequenceLength(size, replySize);
            this.busySpin = busySpin;
            this.message = Arena.ofAuto().allocate(size, 8);
        }

        final Unrecoverable listener = new Unrecoverable("client") {
            @Override
            public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                Client.this.onMessage(buffer, offset, length);
            }

            @Override
            public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
                super.onUnrecoverable(fromSequence, count, reason);
                if (replyFailure == null) {
                    replyFailure = new IllegalStateException(describe(fromSequence, count, reason));
                }
            }
        };

        void onMessage(final MemorySegment buffer, final long offset, final int length) {
            if (length != replySize && replyFailure == null) {
                replyFailure = new IllegalStateException("reply of length=" + length + " to sequence="
                    + (length >= sequenceLength ? BenchMessageLayout.sequence(buffer, offset, sequenceLength) : -1)
                    + ", expected replySize=" + replySize);
            } else if (length >= sequenceLength) {
                received.add(BenchMessageLayout.sequence(buffer, offset, sequenceLength));
            }
        }

        /** Adds the message to the packet being filled; {@link #poll()} sends it, with any sent before it. */
        @Override
        public void send(final long sequence) {
            BenchMessageLayout.putSequence(message, 0, sequenceLength, sequence);
            lastSent = sequence;
            side.publisher.offer(message, 0, size); // a full packet goes out by itself
        }

        @Override
        public long poll() {
            // the messages sent since the last poll leave in one packet: a lone one at once, a burst of a client
            // behind its schedule together, as a publisher at such a rate packs them
            side.publisher.flush();
            if (received.isEmpty()) { // one cycle may deliver several echoes when several messages are in flight
                if (busySpin) {
                    side.poll(reactor, ++cycle);
                } else {
                    reactor.doWork();
                }
                if (replyFailure != null) {
                    throw replyFailure;
                }
            }
            final long field = received.poll();
            return field < 0 ? -1 : BenchMessageLayout.widen(field, lastSent, sequenceLength);
        }

        @Override
        public void close() {
            reactor.close();
            side.store.close();
        }
    }
}
