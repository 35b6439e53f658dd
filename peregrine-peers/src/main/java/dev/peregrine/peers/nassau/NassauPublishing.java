package dev.peregrine.peers.nassau;

import com.paritytrading.nassau.moldudp64.MoldUDP64DefaultMessageStore;
import com.paritytrading.nassau.moldudp64.MoldUDP64DownstreamPacket;
import com.paritytrading.nassau.moldudp64.MoldUDP64RequestServer;
import com.paritytrading.nassau.moldudp64.MoldUDP64Server;
import dev.peregrine.peers.StreamLoss;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * The publishing side of one session: Nassau's server sending to one feed address, its default (in-memory,
 * unbounded, on the heap: each message is copied into an array of its own, as Nassau's store keeps what it is
 * given) message store, and its request server. Messages are packed into one packet until it is full or
 * {@link #send()} is called; with a {@link StreamLoss} a packet is put in the store but not sent (the
 * server's sequence number skips it), as a packet lost on the way.
 */
final class NassauPublishing implements AutoCloseable {
    private final MoldUDP64Server server;
    private final MoldUDP64RequestServer requestServer;
    private final MoldUDP64DefaultMessageStore store = new MoldUDP64DefaultMessageStore();
    private final MoldUDP64DownstreamPacket packet = new MoldUDP64DownstreamPacket();
    private final StreamLoss.Dropper dropper;
    private long nextSequence = 1;

    NassauPublishing(final String session, final InetSocketAddress feed, final InetSocketAddress requests,
        final StreamLoss loss) throws IOException {
        this(session, feed, requestChannel(requests), loss);
    }

    /**
     * A session whose request server's socket is already bound (its port was handed to the other side before the
     * feed's address was known: {@code bench load}'s shared topology); it is closed with this, or if this fails.
     */
    NassauPublishing(final String session, final InetSocketAddress feed, final DatagramChannel requestChannel,
        final StreamLoss loss) throws IOException {
        this.dropper = loss.dropper();
        final DatagramChannel serverChannel;
        try {
            serverChannel = DatagramChannel.open();
        } catch (final IOException ex) {
            requestChannel.close();
            throw ex;
        }
        try {
            serverChannel.connect(feed);
            serverChannel.configureBlocking(false);
            requestChannel.configureBlocking(false);
        } catch (final IOException ex) {
            serverChannel.close();
            requestChannel.close();
            throw ex;
        }
        this.server = new MoldUDP64Server(serverChannel, session);
        this.requestServer = new MoldUDP64RequestServer(requestChannel);
    }

    /**
     * Opens a request server's socket.
     *
     * @param requests where it receives requests (port 0 for an ephemeral one)
     * @return the bound, non-blocking channel
     * @throws IOException if it cannot be bound
     */
    static DatagramChannel requestChannel(final InetSocketAddress requests) throws IOException {
        final DatagramChannel channel = DatagramChannel.open();
        try {
            channel.bind(requests);
            channel.configureBlocking(false);
        } catch (final IOException ex) {
            channel.close();
            throw ex;
        }
        return channel;
    }

    /** Most message bytes (lengths included) an empty packet takes. */
    static int packetCapacity() {
        return new MoldUDP64DownstreamPacket().remaining();
    }

    /**
     * Adds a message to the packet, sending the packet first if the message does not fit.
     *
     * @param message the message, position to limit
     */
    void put(final ByteBuffer message) {
        if (packet.remaining() < message.remaining() + 2) {
            send();
        }
        // a copy of its own for the store: Nassau's store keeps the buffers it is given
        final byte[] copy = new byte[message.remaining()];
        message.get(message.position(), copy);
        store.put(ByteBuffer.wrap(copy));
        try {
            packet.put(message);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Records the packet's messages and sends it (or drops it, as the loss says). */
    void send() {
        final int count = packet.messageCount();
        if (count == 0) {
            return;
        }
        try {
            nextSequence += count;
            if (dropper.drop()) {
                server.setNextSequenceNumber((int)nextSequence); // lost on the way: only the store has it
            } else {
                server.send(packet);
            }
        } catch (final PortUnreachableException ex) {
            // nobody listens on the feed (yet, or any more: a client gone first): a feed packet to nobody is lost
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        packet.clear();
    }

    /**
     * Answers waiting requests and sends a heartbeat when one is due.
     *
     * @return 0 (Nassau does not say whether it did anything)
     */
    int serve() {
        try {
            requestServer.serve(store);
            server.keepAlive();
        } catch (final PortUnreachableException ex) {
            // the feed's subscriber has gone (its client closed first): a heartbeat to nobody is lost, not an error
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return 0;
    }

    long dropped() {
        return dropper.dropped();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (final IOException ex) {
            // closing: nothing left to do
        }
        try {
            requestServer.close();
        } catch (final IOException ex) {
            // closing: nothing left to do
        }
    }
}
