package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamLoss;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A transport with a recovery layer as {@code bench load --loss P --seed S} runs it: every client it connects
 * drops that fraction of its publisher's live packets, each client with a generator of its own (seeded
 * {@code S}, {@code S + 1}, ... in the order they connect), and the responder recovers them. The responder is
 * the transport's own, so it may run in another JVM unchanged; echoes are not dropped. Everything else is the
 * wrapped transport's.
 */
public final class LossyLoadTransport implements BenchTransport {
    private final RecoveringStreamTransport real;
    private final StreamLoss loss;
    private final AtomicLong nextSeed;
    private final List<StreamLoss.Dropper> droppers = new CopyOnWriteArrayList<>();
    private final List<Responder> responders = new CopyOnWriteArrayList<>();
    private final List<PingClient> clients = new CopyOnWriteArrayList<>();

    /**
     * Wraps a transport.
     *
     * @param real the transport, which must {@linkplain RecoveringStreamTransport#supportsPingLoss() drop ping packets}
     * @param loss the fraction to drop and the first seed
     */
    public LossyLoadTransport(final RecoveringStreamTransport real, final StreamLoss loss) {
        if (!real.supportsPingLoss()) {
            throw new IllegalArgumentException(real.name() + " cannot drop a ping-pong client's packets");
        }
        this.real = real;
        this.loss = loss;
        this.nextSeed = new AtomicLong(loss.seed());
    }

    /**
     * The wrapped transport.
     *
     * @return it
     */
    RecoveringStreamTransport real() {
        return real;
    }

    /**
     * Packets the clients connected so far have dropped; read it once they are done.
     *
     * @return the count
     */
    public long dropped() {
        long dropped = 0;
        for (final StreamLoss.Dropper dropper : droppers) {
            dropped += dropper.dropped();
        }
        return dropped;
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public String description() {
        return real.description() + "; --loss " + loss.fraction() + " --seed " + loss.seed()
            + ": each client's publisher drops that fraction of its live packets, the responder recovers them";
    }

    @Override
    public String path() {
        return real.path();
    }

    @Override
    public List<String> jvmArguments() {
        return real.jvmArguments();
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        return real.unavailableReason(config);
    }

    /**
     * The responders started so far, for a test that reads what they counted once the run is over.
     *
     * @return them, in the order started
     */
    List<Responder> responders() {
        return responders;
    }

    /**
     * The clients connected so far, for a test that reads what they counted once the run is over.
     *
     * @return them, in the order connected
     */
    List<PingClient> clients() {
        return clients;
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        final Responder responder = real.startResponder(config);
        responders.add(responder);
        return responder;
    }

    @Override
    public Responder startSharedResponder(final BenchConfig config) throws Exception {
        final Responder responder = real.startSharedResponder(config);
        responders.add(responder);
        return responder;
    }

    @Override
    public boolean sharedResponder() {
        return real.sharedResponder();
    }

    @Override
    public PingClient connect(final BenchConfig config) throws Exception {
        final StreamLoss.Dropper dropper = new StreamLoss(loss.fraction(), nextSeed.getAndIncrement()).dropper();
        droppers.add(dropper);
        final PingClient client = real.connect(config, dropper);
        clients.add(client);
        return client;
    }

    /** Each client of the shared topology drops with a generator of its own, seeded in the order they connect. */
    @Override
    public List<PingClient> connectAll(final BenchConfig config, final int count) throws Exception {
        final List<StreamLoss.Dropper> each = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            final StreamLoss.Dropper dropper = new StreamLoss(loss.fraction(), nextSeed.getAndIncrement()).dropper();
            droppers.add(dropper);
            each.add(dropper);
        }
        final List<PingClient> connected = real.connectAll(config, each);
        clients.addAll(connected);
        return connected;
    }

    @Override
    public boolean supportsReplySize() {
        return real.supportsReplySize();
    }
}
