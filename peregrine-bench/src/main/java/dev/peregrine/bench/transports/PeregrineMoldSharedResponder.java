package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64Publisher;
import dev.peregrine.mold.MoldUDP64PublisherOptions;
import dev.peregrine.mold.MoldUDP64RequestServer;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.MoldRendezvous;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpEndpoint;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The echo side of {@code bench load}'s shared topology over MoldUDP64: one reactor thread serves every client.
 * Each client has a session of its own each way, as in the per-client topology: the responder subscribes to the
 * client's feed (asking the client's request server for what it misses) and echoes on a publisher of its own to
 * that client, with the request server of those echoes beside it. One shared echo feed was the alternative, but a
 * unicast feed reaches one address, so the clients would have had to share one subscriber and tell their echoes
 * apart by content, and the echoes of every client would have been packed together and kept in one store, none of
 * which a client of its own session sees. The clients find their peers' sockets through {@link MoldRendezvous} on
 * {@code port}, the one port the responder knows before any client comes; after that each socket hears from one
 * peer, so nothing routes packets and no sender address is made per datagram.
 *
 * <p>Every socket waits for the reactor's selector (one {@code epoll_wait} per cycle however many clients), and the
 * reactor busy-spins when the run does. The echoes of one feed packet are packed and leave together at the end of
 * the cycle, as the per-client responder's do. Nothing allocates per message; a client's sessions are made when it
 * introduces itself.
 */
final class PeregrineMoldSharedResponder implements Responder {
    private final Reactor reactor;
    private final BenchConfig config;
    /** The answer of another size than the message, its first 8 bytes the sequence; null to echo. */
    private final MemorySegment reply;
    private final ByteBuffer answer = ByteBuffer.allocate(MoldRendezvous.LENGTH);
    private final MemorySegment answerSegment = MemorySegment.ofBuffer(answer);
    /** The clients introduced so far: the reactor thread's only, read by {@link #close()} once it stopped. */
    private final List<Peer> peers = new ArrayList<>();
    private volatile long echoed;
    private long rejected;
    /** The rendezvous socket: set before the reactor starts. */
    private UdpEndpoint rendezvous;

    private PeregrineMoldSharedResponder(final BenchConfig config) {
        this.config = config;
        this.reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-responder");
        this.reply = PeregrineUdpBench.replyBuffer(config);
    }

    /**
     * Binds the rendezvous port and starts the reactor thread.
     *
     * @param config the run's configuration: the rendezvous is {@code port}
     * @return the running responder
     */
    static PeregrineMoldSharedResponder start(final BenchConfig config) {
        final PeregrineMoldSharedResponder responder = new PeregrineMoldSharedResponder(config);
        try {
            responder.rendezvous = UdpEndpoint.open(responder.reactor, PeregrineUdpBench.options(config).busyPoll(false)
                .localAddress(PeregrineUdpBench.address(config, 0)), responder::onRendezvous);
        } catch (final RuntimeException ex) {
            responder.reactor.close();
            throw ex;
        }
        responder.reactor.start();
        return responder;
    }

    private InetSocketAddress ephemeral() {
        return new InetSocketAddress(PeregrineUdpBench.address(config, 0).getAddress(), 0);
    }

    /** A datagram on the rendezvous port: introductions only, answered again when repeated. */
    private void onRendezvous(final UdpEndpoint endpoint, final MemorySegment buffer, final long offset,
        final int length, final InetSocketAddress sender, final long nowNs) {
        final ByteBuffer datagram = buffer.asSlice(offset, length).asByteBuffer();
        final int type = MoldRendezvous.type(datagram, length);
        final int client = type < 0 ? -1 : MoldRendezvous.client(datagram);
        final int port = type < 0 ? 0 : MoldRendezvous.portA(datagram);
        if ((type != MoldRendezvous.HELLO && type != MoldRendezvous.READY) || !MoldRendezvous.validPort(port)) {
            rejected++;
            return;
        }
        Peer peer = find(sender, client);
        try {
            if (type == MoldRendezvous.HELLO) {
                if (peer == null) {
                    peer = new Peer(sender, client, new InetSocketAddress(sender.getAddress(), port));
                    peers.add(peer);
                }
                MoldRendezvous.encode(answer, MoldRendezvous.WELCOME, client,
                    peer.subscriber.feedEndpoint().localAddress().getPort(), peer.requestServer.localAddress().getPort());
            } else {
                if (peer == null) {
                    rejected++; // READY before HELLO: not a client of ours
                    return;
                }
                peer.publishTo(new InetSocketAddress(sender.getAddress(), port));
                MoldRendezvous.encode(answer, MoldRendezvous.ACK, client, 0, 0);
            }
        } catch (final RuntimeException ex) {
            // a client that cannot be served is not answered (it says so when its wait ends); the others go on
            System.err.println("peregrine-mold responder: cannot serve client " + client + " of " + sender + ": " + ex);
            return;
        }
        endpoint.sendTo(answerSegment, 0, MoldRendezvous.LENGTH, sender);
    }

    private Peer find(final InetSocketAddress source, final int client) {
        for (final Peer peer : peers) {
            if (peer.client == client && peer.source.equals(source)) {
                return peer;
            }
        }
        return null;
    }

    /** Rendezvous datagrams that were malformed or out of turn; reactor thread (or after close). */
    long rejected() {
        return rejected;
    }

    /**
     * {@link UdpEndpoint#senderAddressChanges()} of every socket of this responder, the rendezvous included: how often
     * the JDK decoded a sender's address on the reactor thread. Read it once {@link #close()} has stopped that thread.
     *
     * @return the count
     */
    long senderAddressChanges() {
        long changes = rendezvous == null ? 0 : rendezvous.senderAddressChanges();
        for (final Peer peer : peers) {
            changes += peer.subscriber.feedEndpoint().senderAddressChanges()
                + peer.subscriber.requestEndpoint().senderAddressChanges()
                + peer.requestServer.endpoint().senderAddressChanges()
                + (peer.publisher == null ? 0 : peer.publisher.endpoint().senderAddressChanges());
        }
        return changes;
    }

    @Override
    public long messages() {
        return echoed;
    }

    @Override
    public void close() {
        reactor.close(); // joins the reactor thread: the stores are no longer used
        for (final Peer peer : peers) {
            peer.echoStore.close();
        }
    }

    /** One client's sessions as the responder sees them: its feed in, its echoes out. */
    private final class Peer {
        final InetSocketAddress source;
        final int client;
        /** The client's feed is followed here; the responder keeps no store of it. */
        final MoldUDP64Subscriber subscriber;
        final MoldUDP64MessageStore echoStore;
        final MoldUDP64RequestServer requestServer;
        /** Made on READY, before which the client sends nothing. */
        MoldUDP64Publisher publisher;

        Peer(final InetSocketAddress source, final int client, final InetSocketAddress clientRequestServer) {
            this.source = source;
            this.client = client;
            this.echoStore = PeregrineMoldBench.store(PeregrineMoldBench.ECHO_SESSION);
            MoldUDP64RequestServer server = null;
            MoldUDP64Subscriber following = null;
            try {
                server = new MoldUDP64RequestServer(reactor, echoStore, PeregrineUdpBench.options(config).busyPoll(false)
                    .localAddress(ephemeral()), PeregrineMoldBench.maxPayload(config), 100_000, 1000);
                following = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                    .feed(PeregrineUdpBench.options(config).busyPoll(false).localAddress(ephemeral()))
                    .session(PeregrineMoldBench.REQUEST_SESSION).startSequence(1)
                    .requestServer(clientRequestServer).requestTimeoutNs(10_000_000L),
                    new PeregrineMoldBench.Unrecoverable("responder") {
                        @Override
                        public void onMessage(final long sequence, final MemorySegment buffer, final long offset,
                            final int length) {
                            echo(buffer, offset, length);
                        }
                    });
            } catch (final RuntimeException ex) {
                if (server != null) {
                    server.close();
                }
                echoStore.close();
                throw ex;
            }
            this.requestServer = server;
            this.subscriber = following;
        }

        void publishTo(final InetSocketAddress feed) {
            if (publisher == null) {
                publisher = new MoldUDP64Publisher(reactor, echoStore, new MoldUDP64PublisherOptions().destination(feed)
                    .maxPayload(PeregrineMoldBench.maxPayload(config))
                    .udp(PeregrineUdpBench.options(config).busyPoll(false).localAddress(ephemeral())));
            }
        }

        /** Packed: the echoes of one feed packet leave together, at the end of the cycle. */
        void echo(final MemorySegment buffer, final long offset, final int length) {
            if (publisher == null) {
                throw new IllegalStateException("message from client " + client + " before its READY");
            }
            final long result;
            if (reply == null) {
                result = publisher.offer(buffer, offset, length);
            } else {
                MemorySegment.copy(buffer, offset, reply, 0, Math.min(length, Long.BYTES));
                result = publisher.offer(reply, 0, (int)reply.byteSize());
            }
            if (result < 0) { // ends this client's subscriber with the reason; the others go on
                throw new IllegalStateException("echo to client " + client + " not published: result=" + result);
            }
            echoed++;
        }
    }
}
