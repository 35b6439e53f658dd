package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.MoldRendezvous;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The measuring side: publishes each ping in a packet of its own on the PING session to the responder's
 * feed ({@code port}, PING request server on {@code port + 2}) and follows the PONG session on
 * {@code port + 1}; the calling thread polls everything. In {@code bench load}'s shared topology
 * ({@link #introduce}) every socket is ephemeral and introduced to the one responder through
 * {@link MoldRendezvous} on {@code port}; several such clients are polled by one thread in turn.
 */
final class NassauPingClient implements PingClient {
    private final NassauPublishing publishing;
    private final NassauSubscribing subscribing;
    private final ByteBuffer message;
    private final int replySize;
    private final int sequenceLength;
    private final long[] echoes = new long[1024];
    private long head;
    private long tail;
    private long lastSent;
    private IllegalStateException replyFailure;

    NassauPingClient(final BenchConfig config) throws IOException {
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        this.message = ByteBuffer.allocateDirect(config.size()).order(NassauMoldBenchTransport.ORDER);
        this.subscribing = new NassauSubscribing(NassauMoldBenchTransport.address(config, 1),
            NassauMoldBenchTransport.address(config, 3), this::onEcho);
        try {
            this.publishing = new NassauPublishing(NassauMoldBenchTransport.PING, NassauMoldBenchTransport.address(config, 0),
                NassauMoldBenchTransport.address(config, 2), StreamLoss.NONE);
        } catch (final IOException ex) {
            subscribing.close();
            throw ex;
        }
    }

    /**
     * A client of the shared responder: its PING request server first, then its PONG subscriber and its PING
     * publisher once the responder has said where its feed and PONG request server are.
     */
    private NassauPingClient(final BenchConfig config, final MoldRendezvous rendezvous, final int client)
        throws IOException {
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        this.message = ByteBuffer.allocateDirect(config.size()).order(NassauMoldBenchTransport.ORDER);
        final InetSocketAddress responder = NassauMoldBenchTransport.address(config, 0);
        final DatagramChannel requests = NassauPublishing.requestChannel(new InetSocketAddress(responder.getAddress(), 0));
        final int[] welcome;
        try {
            welcome = rendezvous.ask(MoldRendezvous.HELLO, client,
                ((InetSocketAddress)requests.getLocalAddress()).getPort(), MoldRendezvous.WELCOME);
            if (!MoldRendezvous.validPort(welcome[0]) || !MoldRendezvous.validPort(welcome[1])) {
                throw new IOException("Nassau MoldUDP64 responder welcomed client " + client + " with feed port="
                    + welcome[0] + " request server port=" + welcome[1]);
            }
            this.subscribing = new NassauSubscribing(new InetSocketAddress(responder.getAddress(), 0),
                new InetSocketAddress(responder.getAddress(), welcome[1]), this::onEcho);
        } catch (final IOException | RuntimeException ex) {
            requests.close();
            throw ex;
        }
        try {
            this.publishing = new NassauPublishing(NassauMoldBenchTransport.PING,
                new InetSocketAddress(responder.getAddress(), welcome[0]), requests, StreamLoss.NONE);
        } catch (final IOException ex) {
            subscribing.close();
            throw ex;
        }
        try {
            rendezvous.ask(MoldRendezvous.READY, client, subscribing.feedPort(), MoldRendezvous.ACK);
        } catch (final IOException | RuntimeException ex) {
            close();
            throw ex;
        }
    }

    /**
     * Connects {@code count} clients to the shared responder, introducing each through its rendezvous.
     *
     * @param config the run's configuration; the rendezvous is {@code port}
     * @param count how many clients
     * @return the clients, to be polled by one thread
     * @throws IOException if one cannot connect (those connected are closed)
     */
    static List<PingClient> introduce(final BenchConfig config, final int count) throws IOException {
        final List<PingClient> clients = new ArrayList<>(count);
        try (MoldRendezvous rendezvous = new MoldRendezvous(NassauMoldBenchTransport.address(config, 0))) {
            for (int k = 0; k < count; k++) {
                clients.add(new NassauPingClient(config, rendezvous, k));
            }
        } catch (final IOException | RuntimeException ex) {
            for (final PingClient client : clients) {
                client.close();
            }
            throw ex;
        }
        return clients;
    }

    private void onEcho(final ByteBuffer echo) {
        if (echo.remaining() != replySize) {
            if (replyFailure == null) {
                replyFailure = new IllegalStateException("reply of length=" + echo.remaining() + " to sequence="
                    + NassauMoldBenchTransport.sequence(echo, sequenceLength)
                    + ", expected replySize=" + replySize);
            }
            return;
        }
        if (tail - head == echoes.length) {
            throw new IllegalStateException("more than " + echoes.length + " echoes waiting");
        }
        echoes[(int)(tail++ & (echoes.length - 1))] = NassauMoldBenchTransport.sequence(echo, sequenceLength);
    }

    @Override
    public void send(final long sequence) {
        message.clear();
        BenchMessageLayout.putSequence(message, 0, sequenceLength, sequence);
        lastSent = sequence;
        publishing.put(message);
        publishing.send();
    }

    @Override
    public long poll() {
        if (head == tail) {
            subscribing.receive();
            publishing.serve();
            if (replyFailure != null) {
                throw replyFailure;
            }
        }
        return head == tail ? -1
            : BenchMessageLayout.widen(echoes[(int)(head++ & (echoes.length - 1))], lastSent, sequenceLength);
    }

    @Override
    public void close() {
        subscribing.close();
        publishing.close();
    }
}
