package dev.peregrine.peers.nassau;

import com.paritytrading.nassau.MessageListener;
import com.paritytrading.nassau.moldudp64.MoldUDP64Client;
import com.paritytrading.nassau.moldudp64.MoldUDP64ClientState;
import com.paritytrading.nassau.moldudp64.MoldUDP64ClientStatusListener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.function.LongConsumer;

/**
 * The following side of one session: Nassau's client on a feed socket of its own and a request socket of
 * its own, from message 1. Nassau reports no per-gap timing, so the recovery latency taken here is that of a
 * gap-fill episode: from the client's entering {@code GAP_FILL} to its being {@code SYNCHRONIZED} again.
 */
final class NassauSubscribing implements MoldUDP64ClientStatusListener, AutoCloseable {
    private final MoldUDP64Client client;
    private final DatagramChannel feedChannel;
    private final DatagramChannel requestChannel;
    private LongConsumer recoveryLatencies = nanos -> { };
    private long gapSinceNs = -1;

    NassauSubscribing(final InetSocketAddress feed, final InetSocketAddress requestServer, final MessageListener listener)
        throws IOException {
        final DatagramChannel feedChannel = DatagramChannel.open();
        DatagramChannel requestChannel = null;
        this.feedChannel = feedChannel;
        try {
            feedChannel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
            feedChannel.bind(feed);
            feedChannel.configureBlocking(false);
            requestChannel = DatagramChannel.open();
            requestChannel.bind(new InetSocketAddress(feed.getAddress(), 0));
            requestChannel.configureBlocking(false);
        } catch (final IOException ex) {
            feedChannel.close();
            if (requestChannel != null) {
                requestChannel.close();
            }
            throw ex;
        }
        this.requestChannel = requestChannel;
        this.client = new MoldUDP64Client(feedChannel, requestChannel, requestServer, listener, this, 1);
    }

    /**
     * The port the feed arrives on.
     *
     * @return the bound port
     * @throws IOException if the socket is closed
     */
    int feedPort() throws IOException {
        return ((InetSocketAddress)feedChannel.getLocalAddress()).getPort();
    }

    void recoveryLatencies(final LongConsumer nanos) {
        this.recoveryLatencies = nanos;
    }

    /**
     * Receives what waits on both sockets.
     *
     * @return true if a packet was received
     */
    boolean receive() {
        try {
            boolean any = false;
            for (int i = 0; i < 64 && (client.receive() | client.receiveResponse()); i++) {
                any = true;
            }
            return any;
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void state(final MoldUDP64Client session, final MoldUDP64ClientState next) {
        if (next == MoldUDP64ClientState.GAP_FILL && gapSinceNs < 0) {
            gapSinceNs = System.nanoTime();
        } else if (next == MoldUDP64ClientState.SYNCHRONIZED && gapSinceNs >= 0) {
            recoveryLatencies.accept(System.nanoTime() - gapSinceNs);
            gapSinceNs = -1;
        }
    }

    @Override
    public void downstream(final MoldUDP64Client session, final long sequenceNumber, final int messageCount) {
    }

    @Override
    public void request(final MoldUDP64Client session, final long sequenceNumber, final int requestedMessageCount) {
    }

    @Override
    public void endOfSession(final MoldUDP64Client session) {
    }

    @Override
    public void close() {
        try {
            client.close();
            feedChannel.close();
            requestChannel.close();
        } catch (final IOException ex) {
            // closing: nothing left to do
        }
    }
}
