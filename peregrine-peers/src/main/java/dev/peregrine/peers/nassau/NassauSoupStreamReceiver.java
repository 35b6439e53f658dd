package dev.peregrine.peers.nassau;

import com.paritytrading.nassau.soupbintcp.SoupBinTCP;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClient;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClientStatusListener;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.support.SoupBenchScenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.function.LongConsumer;

/**
 * {@code nassau-soup}'s receiving side: a Nassau {@code SoupBinTCPClient}, busy-polled with {@code receive()} inside
 * {@link #poll}. Started before the sender listens, it tries to connect on each poll until one succeeds (a refused
 * connect is retried at the next poll), then logs in to {@value SoupBenchScenario#STREAM_SESSION} from 1. It counts
 * SoupBinTCP sequence numbers from Login Accepted (Nassau's client hands over the payload only) and checks each against
 * the bench sequence the message carries; credits go back as {@link SoupBenchScenario} says.
 */
final class NassauSoupStreamReceiver implements StreamReceiver, SoupBinTCPClientStatusListener {
    private final BenchConfig config;
    private final ByteBuffer credit = ByteBuffer.allocateDirect(SoupBenchScenario.CREDIT_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final int creditEvery;
    private SocketChannel channel;
    private SoupBinTCPClient client;
    private boolean loggedIn;
    /** Whether the sender closed the connection: the stream is over. */
    private boolean ended;
    private LongConsumer sequences;
    private int delivered;
    /** The SoupBinTCP sequence number of the next message. */
    private long next;
    private long lastCredit;
    private int idlePolls;
    private int turns;
    private String failure;

    NassauSoupStreamReceiver(final BenchConfig config) {
        this.config = config;
        this.creditEvery = SoupBenchScenario.creditEvery(config.size());
    }

    @Override
    public int poll(final LongConsumer sequences) {
        if (client == null) {
            if (!ended) {
                connect();
            }
            return 0;
        }
        this.sequences = sequences;
        delivered = 0;
        try {
            if (client.receive() < 0) {
                // the sender closes once the stream is over; a stream cut short shows as messages missing
                ended = true;
                client.close();
                client = null;
                return delivered;
            }
            idlePolls = delivered == 0 ? idlePolls + 1 : 0;
            if (loggedIn && (next - lastCredit >= creditEvery
                || idlePolls >= SoupBenchScenario.IDLE_POLLS_BEFORE_CREDIT && next != lastCredit)) {
                credit.clear();
                credit.putLong(0, next);
                client.send(credit);
                lastCredit = next;
            }
            if (++turns == NassauSoupBenchTransport.KEEP_ALIVE_EVERY) {
                turns = 0;
                client.keepAlive();
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("receive failed", ex);
        } finally {
            this.sequences = null;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        return delivered;
    }

    /** One connection attempt: the sender may not listen yet. */
    private void connect() {
        try {
            channel = SocketChannel.open(NassauSoupBenchTransport.address(config));
        } catch (final IOException ex) {
            Thread.onSpinWait(); // refused: the sender is not listening yet; the next poll tries again
            return;
        }
        try {
            NassauSoupBenchTransport.configure(channel);
            client = new SoupBinTCPClient(channel, NassauSoupBenchTransport.maxPayload(config), this::onMessage, this);
            final SoupBinTCP.LoginRequest login = new SoupBinTCP.LoginRequest();
            login.setUsername(SoupBenchScenario.STREAM_USER);
            login.setPassword(SoupBenchScenario.PASSWORD);
            login.setRequestedSession(SoupBenchScenario.STREAM_SESSION);
            login.setRequestedSequenceNumber(1);
            client.login(login);
        } catch (final IOException ex) {
            throw new UncheckedIOException("login failed", ex);
        }
    }

    private void onMessage(final ByteBuffer message) {
        final long carried = NassauMoldBenchTransport.sequence(message, BenchMessageLayout.LONG_SEQUENCE_LENGTH);
        if (next != carried + 1 && failure == null) {
            failure = "SoupBinTCP sequence " + next + " carried bench sequence " + carried;
        }
        next++;
        delivered++;
        sequences.accept(carried);
    }

    @Override
    public void loginAccepted(final SoupBinTCPClient session, final SoupBinTCP.LoginAccepted accepted) {
        loggedIn = true;
        next = accepted.getSequenceNumber();
        lastCredit = next;
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
        failure = "heartbeat timeout: nothing from the sender for 15 s";
    }

    @Override
    public void close() {
        try {
            if (client != null) {
                client.close();
            } else if (channel != null) {
                channel.close();
            }
        } catch (final IOException ex) {
            // closing
        }
    }
}
