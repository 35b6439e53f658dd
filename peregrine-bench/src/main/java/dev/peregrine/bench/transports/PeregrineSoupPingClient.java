package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.support.SoupBenchScenario;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.soup.SoupBinTcpClient;
import dev.peregrine.soup.SoupBinTcpClientListener;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * {@code peregrine-soup}'s measuring side: a {@link SoupBinTcpClient} logged in as a user of its own, on a reactor
 * that {@link #poll()} drives (no thread of its own). A ping is Unsequenced Data; the answers are the Sequenced Data
 * of the client's session, kept in a ring of sequence fields as {@code peregrine-tcp}'s client keeps its echoes.
 * A lost connection fails the run: the scenario has no cuts ({@code bench reconnect} has).
 */
final class PeregrineSoupPingClient implements PingClient, SoupBinTcpClientListener {
    private static final int RING_CAPACITY = 1 << 16;

    private final Reactor reactor;
    private final SoupBinTcpClient client;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment ping;
    private final EchoRing echoes;
    private final int size;
    private final int sequenceLength;
    private long lastSent;
    private String lost;

    PeregrineSoupPingClient(final BenchConfig config) throws IOException {
        this.size = config.size();
        this.sequenceLength = config.sequenceLength();
        this.ping = arena.allocate(size, 8);
        this.echoes = new EchoRing(RING_CAPACITY, config.replySize(), sequenceLength);
        this.reactor = new Reactor(PeregrineSoupBench.reactorOptions(config, "peregrine-soup-client"));
        final String user = SoupBenchScenario.nextUser();
        this.client = new SoupBinTcpClient(reactor, PeregrineSoupBench.clientOptions(config, user, ""), this);
        client.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!client.isLoggedIn() && lost == null && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        if (!client.isLoggedIn()) {
            final String why = lost != null ? lost : "no Login Accepted from " + PeregrineSoupBench.address(config)
                + " in 10 s";
            close();
            throw new IOException("peregrine-soup client " + user + ": " + why);
        }
    }

    @Override
    public void send(final long sequence) {
        BenchMessageLayout.putSequence(ping, 0, sequenceLength, sequence);
        while (true) {
            final long result = client.sendUnsequenced(ping, 0, size);
            if (result >= 0) {
                lastSent = sequence;
                return;
            }
            reactor.doWork(); // writes what waits, or delivers the loss with its reason
            if (result != SendResult.BACK_PRESSURED) {
                checkConnected();
                throw new IllegalStateException("send failed: " + SendResult.describe(result));
            }
        }
    }

    @Override
    public long poll() {
        if (echoes.isEmpty()) {
            reactor.doWork();
            echoes.throwIfFailed();
            if (echoes.isEmpty()) {
                checkConnected();
                return -1;
            }
        }
        return BenchMessageLayout.widen(echoes.take(), lastSent, sequenceLength);
    }

    private void checkConnected() {
        if (lost != null) {
            throw new IllegalStateException("connection lost: " + lost);
        }
    }

    @Override
    public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset, final int length) {
        echoes.onReply(buffer, offset, length);
    }

    @Override
    public void onConnectionLost(final String reason) {
        if (lost == null) {
            lost = reason;
        }
    }

    @Override
    public void onLoginRejected(final byte code) {
        lost = "Login Rejected '" + (char)code + "'";
    }

    @Override
    public void onStopped(final String reason) {
        if (lost == null) {
            lost = "stopped: " + reason;
        }
    }

    @Override
    public void close() {
        client.close();
        reactor.close();
        arena.close();
    }
}
