package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64Publisher;
import dev.peregrine.mold.MoldUDP64PublisherOptions;
import dev.peregrine.mold.MoldUDP64RequestServer;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.Reactor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * MoldUDP64 round trip: the client's publisher sends each message in a packet of its own to the
 * responder's subscriber, whose listener publishes it again on a second MoldUDP64 session back to the
 * client's subscriber. Each side also runs a re-request server for its own session. Ports: the
 * responder's feed {@code port}, the client's feed {@code port + 1}, the re-request servers
 * {@code port + 2} (client's session) and {@code port + 3} (responder's session).
 */
public final class PeregrineMoldBench implements BenchTransport {
    private static final String REQUEST_SESSION = "PING";
    private static final String ECHO_SESSION = "PONG";

    /** Creates the adapter (service loader). */
    public PeregrineMoldBench() {
    }

    @Override
    public String name() {
        return "peregrine-mold";
    }

    @Override
    public String description() {
        return "Peregrine MoldUDP64: publisher -> subscriber, one message per packet, echoed on a second session";
    }

    @Override
    public String path() {
        return "udp";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        return config.size() + MoldUDP64Layout.BLOCK_HEADER_LENGTH > 65_487
            ? "size=" + config.size() + " does not fit one MoldUDP64 packet" : null;
    }

    private static MoldUDP64MessageStore store(final String session) {
        return MoldUDP64MessageStore.inMemory(session, 1 << 16, 64L << 20);
    }

    private static int maxPayload(final BenchConfig config) {
        return Math.max(MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, config.size() + MoldUDP64Layout.BLOCK_HEADER_LENGTH);
    }

    /** One side: a store, a publisher and its re-request server, and a subscriber to the other side. */
    private static final class Side {
        final MoldUDP64MessageStore store;
        final MoldUDP64Publisher publisher;
        final MoldUDP64Subscriber subscriber;

        Side(final Reactor reactor, final BenchConfig config, final String session, final int feedPort, final int peerFeedPort,
            final int requestPort, final int peerRequestPort, final dev.peregrine.mold.MoldUDP64Listener listener) {
            store = store(session);
            new MoldUDP64RequestServer(reactor, store, PeregrineUdpBench.options(config)
                .localAddress(PeregrineUdpBench.address(config, requestPort)), maxPayload(config), 100_000, 1000);
            subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(PeregrineUdpBench.options(config).localAddress(PeregrineUdpBench.address(config, feedPort)))
                .requestServer(PeregrineUdpBench.address(config, peerRequestPort)).requestTimeoutNs(10_000_000L), listener);
            publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(PeregrineUdpBench.address(config, peerFeedPort)).maxPayload(maxPayload(config))
                .udp(PeregrineUdpBench.options(config).localAddress(new InetSocketAddress(
                    PeregrineUdpBench.address(config, 0).getAddress(), 0))));
        }
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        final Reactor reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-responder");
        final PeregrineUdpBench.EchoResponder responder = new PeregrineUdpBench.EchoResponder(reactor);
        final Side[] side = new Side[1];
        final Runnable setUp = () -> side[0] = new Side(reactor, config, ECHO_SESSION, 0, 1, 3, 2,
            (sequence, buffer, offset, length) -> {
                side[0].publisher.offer(buffer, offset, length);
                side[0].publisher.flush();
                responder.echoed++;
            });
        setUp.run(); // before the thread starts: the reactor is not running yet
        reactor.start();
        return responder;
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        final Reactor reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-client");
        final Client client = new Client(reactor, config.size());
        client.side = new Side(reactor, config, REQUEST_SESSION, 1, 0, 2, 3, client::onMessage);
        return client;
    }

    /** The client: its own reactor, driven by the client's thread in {@link #poll()}. */
    private static final class Client implements PingClient {
        private final Reactor reactor;
        private final MemorySegment message;
        private final int size;
        Side side;
        private long received = -1;

        Client(final Reactor reactor, final int size) {
            this.reactor = reactor;
            this.size = size;
            this.message = Arena.ofAuto().allocate(size, 8);
        }

        void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
            if (length >= 8) {
                received = buffer.get(PeregrineUdpBench.SEQUENCE, offset);
            }
        }

        @Override
        public void send(final long sequence) {
            message.set(PeregrineUdpBench.SEQUENCE, 0, sequence);
            side.publisher.offer(message, 0, size);
            side.publisher.flush();
        }

        @Override
        public long poll() {
            reactor.doWork();
            final long sequence = received;
            received = -1;
            return sequence;
        }

        @Override
        public void close() {
            reactor.close();
            side.store.close();
        }
    }
}
