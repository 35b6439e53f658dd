package dev.peregrine.peers.nassau;

import com.paritytrading.nassau.soupbintcp.SoupBinTCP;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClient;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClientStatusListener;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.support.SoupBenchScenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * {@code nassau-soup}'s measuring side: a Nassau {@code SoupBinTCPClient} logged in as a user of its own, busy-polled
 * with {@code receive()} inside {@link #poll()}; a ping is {@code send()} of Unsequenced Data, written at once. The
 * answers' sequence fields wait in a ring until polled; a reply of another length than configured fails the poll.
 */
final class NassauSoupPingClient implements PingClient, SoupBinTCPClientStatusListener {
    private static final int RING_CAPACITY = 1 << 16;

    private final SocketChannel channel;
    private final SoupBinTCPClient client;
    private final ByteBuffer ping;
    private final int replySize;
    private final int sequenceLength;
    private final long[] ring = new long[RING_CAPACITY];
    private long head;
    private long tail;
    private long lastSent;
    private int turns;
    private boolean loggedIn;
    private String failure;

    NassauSoupPingClient(final BenchConfig config) throws IOException {
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        this.ping = ByteBuffer.allocateDirect(config.size());
        this.channel = SocketChannel.open();
        try {
            channel.connect(NassauSoupBenchTransport.address(config));
            NassauSoupBenchTransport.configure(channel);
            this.client = new SoupBinTCPClient(channel, NassauSoupBenchTransport.maxPayload(config), this::onAnswer, this);
            final SoupBinTCP.LoginRequest login = new SoupBinTCP.LoginRequest();
            login.setUsername(SoupBenchScenario.nextUser());
            login.setPassword(SoupBenchScenario.PASSWORD);
            login.setRequestedSession("");
            login.setRequestedSequenceNumber(1);
            client.login(login);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!loggedIn && failure == null && System.nanoTime() < deadline) {
                if (client.receive() < 0) {
                    failure = "connection closed by the responder";
                }
            }
            if (!loggedIn) {
                throw new IOException(failure != null ? failure : "no Login Accepted in 10 s");
            }
        } catch (final IOException ex) {
            channel.close();
            throw new IOException("nassau-soup client to " + NassauSoupBenchTransport.address(config) + ": "
                + ex.getMessage(), ex);
        }
    }

    @Override
    public void send(final long sequence) {
        ping.clear();
        BenchMessageLayout.putSequence(ping, 0, sequenceLength, sequence);
        try {
            client.send(ping);
        } catch (final IOException ex) {
            throw new UncheckedIOException("send failed", ex);
        }
        lastSent = sequence;
    }

    @Override
    public long poll() {
        if (head == tail) {
            try {
                if (client.receive() < 0) {
                    throw new IllegalStateException("connection closed by the responder");
                }
                if (++turns == NassauSoupBenchTransport.KEEP_ALIVE_EVERY) {
                    turns = 0;
                    client.keepAlive();
                }
            } catch (final IOException ex) {
                throw new UncheckedIOException("receive failed", ex);
            }
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
            if (head == tail) {
                return -1;
            }
        }
        return BenchMessageLayout.widen(ring[(int)(head++ & (RING_CAPACITY - 1))], lastSent, sequenceLength);
    }

    private void onAnswer(final ByteBuffer answer) {
        if (failure != null) {
            return;
        }
        final long sequence = NassauMoldBenchTransport.sequence(answer, sequenceLength);
        if (answer.remaining() != replySize) {
            failure = "reply of length=" + answer.remaining() + " to sequence=" + sequence + ", expected replySize="
                + replySize;
        } else if (tail - head == RING_CAPACITY) {
            failure = "more than " + RING_CAPACITY + " answers waiting to be polled";
        } else {
            ring[(int)(tail++ & (RING_CAPACITY - 1))] = sequence;
        }
    }

    @Override
    public void loginAccepted(final SoupBinTCPClient session, final SoupBinTCP.LoginAccepted accepted) {
        loggedIn = true;
    }

    @Override
    public void loginRejected(final SoupBinTCPClient session, final SoupBinTCP.LoginRejected rejected) {
        failure = "Login Rejected '" + (char)rejected.getRejectReasonCode() + "'";
    }

    @Override
    public void endOfSession(final SoupBinTCPClient session) {
        failure = "End of Session";
    }

    @Override
    public void heartbeatTimeout(final SoupBinTCPClient session) {
        failure = "heartbeat timeout: nothing from the responder for 15 s";
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (final IOException ex) {
            // closing
        }
    }
}
