package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.MoldRendezvous;
import dev.peregrine.peers.support.PeerSupport;
import dev.peregrine.reactor.IdleStrategy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The echo side of {@code bench load}'s shared topology with Nassau: one thread serves every client. Nassau's
 * objects are one session each ({@code MoldUDP64Client}, {@code MoldUDP64Server}, {@code MoldUDP64RequestServer}),
 * each on channels it is handed and polled by whoever calls it, so one thread follows each client's PING session
 * and echoes on a PONG session of its own to that client, with that session's request server, polling them all in
 * turn: the per-client responder's sessions, on one thread. The clients introduce their sockets through
 * {@link MoldRendezvous} on {@code port}, the one port known before they come; the rendezvous socket is polled by
 * the same thread, so every session is made and used on it.
 */
final class NassauSharedResponder implements Responder {
    /** Polls of every client's sessions per look at the rendezvous socket. */
    static final int RENDEZVOUS_INTERVAL = 64;

    /** Where every client's sessions are bound: the rendezvous's address. */
    private final InetAddress host;
    private final DatagramChannel rendezvous;
    private final ByteBuffer datagram = ByteBuffer.allocateDirect(MoldRendezvous.LENGTH + 1);
    private final ByteBuffer answer = ByteBuffer.allocateDirect(MoldRendezvous.LENGTH);
    private final ByteBuffer reply;
    /** The clients introduced so far: the responder thread's only, closed by {@link #close()} once it ended. */
    private final List<Peer> peers = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closing;
    private volatile long echoed;

    NassauSharedResponder(final BenchConfig config) throws IOException {
        this.host = NassauMoldBenchTransport.address(config, 0).getAddress();
        this.reply = config.asymmetric() ? ByteBuffer.allocateDirect(config.replySize()).order(NassauMoldBenchTransport.ORDER)
            : null;
        this.rendezvous = NassauPublishing.requestChannel(NassauMoldBenchTransport.address(config, 0));
        final IdleStrategy idle = PeerSupport.idleStrategy(config);
        this.thread = PeerSupport.start("nassau-mold-responder", () -> {
            long loop = 0;
            while (!closing) {
                // introductions are rare: one system call in RENDEZVOUS_INTERVAL loops keeps them off the echo path
                int work = ++loop % RENDEZVOUS_INTERVAL == 0 ? introduce() : 0;
                for (int i = 0; i < peers.size(); i++) {
                    work += peers.get(i).poll();
                }
                idle.idle(work);
            }
        });
    }

    /**
     * Reads one rendezvous datagram, if any, and answers it; an introduction repeated is answered again. A client
     * waits {@code RENDEZVOUS_INTERVAL} loops at most for its answer, well within its retry interval.
     */
    private int introduce() {
        final InetSocketAddress sender;
        try {
            datagram.clear();
            sender = (InetSocketAddress)rendezvous.receive(datagram);
        } catch (final IOException ex) {
            return 0; // an ICMP error from an earlier answer: the socket itself is fine
        }
        if (sender == null) {
            return 0;
        }
        final int length = datagram.position();
        final int type = MoldRendezvous.type(datagram, length);
        final int client = type < 0 ? -1 : MoldRendezvous.client(datagram);
        final int port = type < 0 ? 0 : MoldRendezvous.portA(datagram);
        if ((type != MoldRendezvous.HELLO && type != MoldRendezvous.READY) || !MoldRendezvous.validPort(port)) {
            return 1;
        }
        Peer peer = find(sender, client);
        try {
            if (type == MoldRendezvous.HELLO) {
                if (peer == null) {
                    peer = new Peer(sender, client, new InetSocketAddress(sender.getAddress(), port));
                    peers.add(peer);
                }
                MoldRendezvous.encode(answer, MoldRendezvous.WELCOME, client, peer.subscribing.feedPort(),
                    ((InetSocketAddress)peer.requests.getLocalAddress()).getPort());
            } else {
                if (peer == null) {
                    return 1; // READY before HELLO: not a client of ours
                }
                peer.publishTo(new InetSocketAddress(sender.getAddress(), port));
                MoldRendezvous.encode(answer, MoldRendezvous.ACK, client, 0, 0);
            }
            rendezvous.send(answer, sender);
        } catch (final IOException | RuntimeException ex) {
            // a client that cannot be served is not answered (it says so when its wait ends); the others go on
            System.err.println("nassau-mold responder: cannot serve client " + client + " of " + sender + ": " + ex);
        }
        return 1;
    }

    private Peer find(final InetSocketAddress source, final int client) {
        for (final Peer peer : peers) {
            if (peer.client == client && peer.source.equals(source)) {
                return peer;
            }
        }
        return null;
    }

    @Override
    public long messages() {
        return echoed;
    }

    @Override
    public void close() {
        closing = true;
        PeerSupport.join(thread);
        for (final Peer peer : peers) {
            peer.close();
        }
        try {
            rendezvous.close();
        } catch (final IOException ex) {
            // closing: nothing left to do
        }
    }

    /** One client's sessions: its PING feed followed, its PONG echoes published once it is READY. */
    private final class Peer implements AutoCloseable {
        final InetSocketAddress source;
        final int client;
        final NassauSubscribing subscribing;
        /** The PONG request server's socket, bound at HELLO so that the client can be told its port. */
        final DatagramChannel requests;
        NassauPublishing publishing;

        Peer(final InetSocketAddress source, final int client, final InetSocketAddress clientRequestServer)
            throws IOException {
            this.source = source;
            this.client = client;
            this.requests = NassauPublishing.requestChannel(new InetSocketAddress(host, 0));
            try {
                this.subscribing = new NassauSubscribing(new InetSocketAddress(host, 0), clientRequestServer,
                    this::onMessage);
            } catch (final IOException ex) {
                requests.close();
                throw ex;
            }
        }

        void publishTo(final InetSocketAddress feed) throws IOException {
            if (publishing == null) {
                publishing = new NassauPublishing(NassauMoldBenchTransport.PONG, feed, requests, StreamLoss.NONE);
            }
        }

        int poll() {
            final boolean received = subscribing.receive();
            if (publishing != null) {
                publishing.serve();
            }
            return received ? 1 : 0;
        }

        private void onMessage(final ByteBuffer message) {
            if (publishing == null) {
                throw new IllegalStateException("message from client " + client + " before its READY");
            }
            if (reply == null) {
                publishing.put(message);
            } else {
                reply.clear();
                reply.putLong(0, NassauMoldBenchTransport.sequence(message));
                publishing.put(reply);
            }
            publishing.send();
            echoed++;
        }

        @Override
        public void close() {
            subscribing.close();
            if (publishing != null) {
                publishing.close();
            } else {
                try {
                    requests.close();
                } catch (final IOException ex) {
                    // closing: nothing left to do
                }
            }
        }
    }
}
