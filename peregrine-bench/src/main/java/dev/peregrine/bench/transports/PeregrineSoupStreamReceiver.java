package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.support.SoupBenchScenario;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.soup.SoupBinTcpClient;
import dev.peregrine.soup.SoupBinTcpClientListener;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.LongConsumer;

/**
 * {@code peregrine-soup}'s receiving side: a {@link SoupBinTcpClient} on a reactor that {@link #poll} drives,
 * logging in to session {@value SoupBenchScenario#STREAM_SESSION} from sequence 1. It is started before the sender
 * listens, so it retries its connection (at once, then from 1 ms up to 50 ms) until the server is there. Every
 * message's SoupBinTCP sequence number must be its bench sequence + 1 (a mismatch fails the next poll); credits go
 * back as {@link SoupBenchScenario} says.
 */
final class PeregrineSoupStreamReceiver implements StreamReceiver, SoupBinTcpClientListener {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Reactor reactor;
    private final SoupBinTcpClient client;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment credit;
    private final int creditEvery;
    private LongConsumer sequences;
    private int delivered;
    /** The next SoupBinTCP sequence number not yet delivered. */
    private long next = 1;
    private long lastCredit = 1;
    /** Polls in a row that delivered nothing. */
    private int idlePolls;
    private String failure;

    PeregrineSoupStreamReceiver(final BenchConfig config) {
        this.creditEvery = SoupBenchScenario.creditEvery(config.size());
        this.credit = arena.allocate(SoupBenchScenario.CREDIT_LENGTH, 8);
        this.reactor = new Reactor(PeregrineSoupBench.reactorOptions(config, "peregrine-soup-receiver"));
        this.client = new SoupBinTcpClient(reactor, PeregrineSoupBench.clientOptions(config,
            SoupBenchScenario.STREAM_USER, SoupBenchScenario.STREAM_SESSION), this);
        client.start();
    }

    @Override
    public int poll(final LongConsumer sequences) {
        this.sequences = sequences;
        delivered = 0;
        reactor.doWork();
        idlePolls = delivered == 0 ? idlePolls + 1 : 0;
        if (next - lastCredit >= creditEvery || idlePolls >= SoupBenchScenario.IDLE_POLLS_BEFORE_CREDIT && next != lastCredit) {
            sendCredit();
            reactor.doWork(); // a duty cycle writes what was sent at its end
        }
        this.sequences = null;
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        return delivered;
    }

    private void sendCredit() {
        credit.set(SEQUENCE, 0, next);
        if (client.sendUnsequenced(credit, 0, SoupBenchScenario.CREDIT_LENGTH) >= 0) {
            lastCredit = next; // else not logged in or back-pressured: the next poll tries again
        }
    }

    @Override
    public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset, final int length) {
        final long carried = buffer.get(SEQUENCE, offset);
        if (sequence != carried + 1 && failure == null) {
            failure = "SoupBinTCP sequence " + sequence + " carried bench sequence " + carried;
        }
        next = sequence + 1;
        delivered++;
        sequences.accept(carried);
    }

    @Override
    public void onStopped(final String reason) {
        if (failure == null) {
            failure = "the SoupBinTCP client stopped: " + reason;
        }
    }

    @Override
    public void onGap(final long expected, final long accepted) {
        failure = "Login Accepted at " + accepted + " where " + expected + " was next: messages lost";
    }

    @Override
    public void close() {
        failure = "closed";
        client.close();
        reactor.close();
        arena.close();
    }
}
