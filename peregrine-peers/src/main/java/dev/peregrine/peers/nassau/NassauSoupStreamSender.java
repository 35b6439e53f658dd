package dev.peregrine.peers.nassau;

import com.paritytrading.nassau.soupbintcp.SoupBinTCP;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServer;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServerStatusListener;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.SoupBenchScenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * {@code nassau-soup}'s publishing side: accepts the receiver's connection (the receiver started first and retries),
 * answers its login with a Nassau {@code SoupBinTCPServer} from sequence 1, and {@code send()}s each offered message
 * as Sequenced Data, which Nassau writes to the socket at once. Offers are refused while a window is unacknowledged
 * ({@link SoupBenchScenario}); {@code receive()} reads the credits; {@link #flush()} is done once every message is
 * credited.
 */
final class NassauSoupStreamSender implements StreamSender, SoupBinTCPServerStatusListener {
    private final SocketChannel channel;
    private final SoupBinTCPServer server;
    private final ByteBuffer message;
    private final long window;
    /** The SoupBinTCP sequence number of the next message sent. */
    private long next = 1;
    private long credited = 1;
    private boolean loggedIn;
    private String failure;
    private int turns;

    NassauSoupStreamSender(final BenchConfig config) throws IOException {
        this.window = SoupBenchScenario.window(config.size());
        this.message = ByteBuffer.allocateDirect(config.size()).order(ByteOrder.LITTLE_ENDIAN);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(NassauSoupBenchTransport.address(config));
            listener.configureBlocking(false);
            SocketChannel accepted = null;
            while (accepted == null && System.nanoTime() < deadline) {
                accepted = listener.accept();
                Thread.onSpinWait();
            }
            if (accepted == null) {
                throw new IOException("no receiver connected to " + NassauSoupBenchTransport.address(config) + " in 10 s");
            }
            this.channel = accepted;
        }
        NassauSoupBenchTransport.configure(channel);
        this.server = new SoupBinTCPServer(channel, NassauSoupBenchTransport.maxPayload(config), this::onCredit, this);
        while (!loggedIn && failure == null && System.nanoTime() < deadline) {
            if (server.receive() < 0) {
                failure = "the receiver closed its connection";
            }
        }
        if (!loggedIn) {
            close();
            throw new IOException(failure != null ? failure : "no login from the receiver in 10 s");
        }
    }

    @Override
    public boolean offer(final long sequence) {
        if (next - credited >= window) {
            receive();
            return false;
        }
        message.clear();
        message.putLong(0, sequence);
        try {
            server.send(message);
        } catch (final IOException ex) {
            throw new UncheckedIOException("send failed", ex);
        }
        next++;
        return true;
    }

    @Override
    public int offer(final long firstSequence, final int count) {
        return StreamSender.offerEach(this, firstSequence, count);
    }

    @Override
    public boolean flush() {
        receive();
        return credited == next;
    }

    private void receive() {
        try {
            if (server.receive() < 0) {
                failure = "the receiver closed its connection";
            }
            if (++turns == NassauSoupBenchTransport.KEEP_ALIVE_EVERY) {
                turns = 0;
                server.keepAlive();
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("receive failed", ex);
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }

    private void onCredit(final ByteBuffer credit) {
        if (credit.remaining() != SoupBenchScenario.CREDIT_LENGTH) {
            failure = "a credit of " + credit.remaining() + " bytes";
            return;
        }
        final long value = credit.order() == ByteOrder.LITTLE_ENDIAN ? credit.getLong(credit.position())
            : Long.reverseBytes(credit.getLong(credit.position()));
        credited = Math.max(credited, value);
    }

    @Override
    public void loginRequest(final SoupBinTCPServer session, final SoupBinTCP.LoginRequest request) throws IOException {
        final SoupBinTCP.LoginAccepted accepted = new SoupBinTCP.LoginAccepted();
        accepted.setSession(SoupBenchScenario.STREAM_SESSION);
        accepted.setSequenceNumber(next);
        session.accept(accepted);
        loggedIn = true;
    }

    @Override
    public void logoutRequest(final SoupBinTCPServer session) {
        failure = "the receiver logged out";
    }

    @Override
    public void heartbeatTimeout(final SoupBinTCPServer session) {
        failure = "heartbeat timeout: nothing from the receiver for 15 s";
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (final IOException | RuntimeException ex) {
            // closing
        }
    }
}
