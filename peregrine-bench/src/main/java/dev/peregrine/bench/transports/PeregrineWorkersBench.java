package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.shm.ShmTransport;
import dev.peregrine.tcp.TcpTransport;

import java.util.function.Supplier;

/**
 * Peregrine TCP or shared memory with its responder's work spread over N worker threads ({@code bench load
 * --workers N}): the clients are the transport's own, the responder a {@link PeregrineWorkerResponder}. Its name
 * is the transport's with {@code +workers=N} ({@code peregrine-tcp+workers=2}), which {@link Transports#byName}
 * reads back, so that a responder JVM started by that name runs the same.
 *
 * <p>Workers busy-spin only when the run does and the client thread, the reactor and the workers all have a core
 * of their own; otherwise (on a 2-core machine, always) they idle with {@link YieldingIdleStrategy}, and the
 * description says which. The reactor and the clients wait as the plain transport's do.
 */
public final class PeregrineWorkersBench extends ResponderVariant {
    /** What joins the transport's name and the number of workers. */
    public static final String SUFFIX = "+workers=";
    /** The most workers a responder starts. */
    public static final int MAX_WORKERS = 64;

    private final int workers;

    private PeregrineWorkersBench(final BenchTransport base, final int workers) {
        super(base);
        this.workers = workers;
    }

    /**
     * Whether a transport's responder can hand its work to workers: Peregrine TCP and shared memory.
     *
     * @param transport the transport
     * @return true for {@code peregrine-tcp} and {@code peregrine-shm}
     */
    public static boolean supports(final BenchTransport transport) {
        return transport instanceof PeregrineTcpBench || transport instanceof PeregrineShmBench;
    }

    /**
     * The transport with N workers behind its responder.
     *
     * @param base {@code peregrine-tcp} or {@code peregrine-shm}
     * @param workers from 1 to {@link #MAX_WORKERS}
     * @return the transport
     * @throws IllegalArgumentException for another transport or a count out of range
     */
    public static PeregrineWorkersBench of(final BenchTransport base, final int workers) {
        if (!supports(base)) {
            throw new IllegalArgumentException("transport=" + base.name() + " has no worker responder; "
                + "peregrine-tcp and peregrine-shm have");
        }
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("workers=" + workers + " must be in [1, " + MAX_WORKERS + "]");
        }
        return new PeregrineWorkersBench(base, workers);
    }

    /**
     * How many workers the responder runs.
     *
     * @return the count
     */
    public int workers() {
        return workers;
    }

    /**
     * Whether the workers busy-spin: only when the run does and every thread has a core.
     *
     * @param config the run's configuration
     * @param workers how many workers
     * @return true to spin, false to yield
     */
    static boolean workersSpin(final BenchConfig config, final int workers) {
        return config.busySpin() && workers + 2 <= Runtime.getRuntime().availableProcessors();
    }

    /** How the workers idle on this machine, in a few words for the report. */
    private String workerIdle() {
        final int cores = Runtime.getRuntime().availableProcessors();
        return workers + 2 > cores ? "workers idle with Thread.yield (YieldingIdleStrategy): client thread, reactor"
            + " and " + workers + " worker(s) outnumber the " + cores + " cores"
            : "workers busy-spin when the run does, else idle with Thread.yield";
    }

    @Override
    public String name() {
        return base.name() + SUFFIX + workers;
    }

    @Override
    public String description() {
        return base.description() + "; the responder's reactor hands each message to one of " + workers + " worker"
            + " thread(s) through a WorkerDemux (one WorkerRing each, keyed by connection), and each worker answers"
            + " through the reactor's ReactorCommandRing; " + workerIdle();
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        return startSharedResponder(config);
    }

    @Override
    public Responder startSharedResponder(final BenchConfig config) throws Exception {
        final Supplier<IdleStrategy> idle = workersSpin(config, workers) ? BusySpinIdleStrategy::new
            : YieldingIdleStrategy::new;
        if (base instanceof PeregrineShmBench shm) {
            final Reactor reactor = new Reactor(new ReactorOptions().name("peregrine-shm-responder")
                .idleStrategy(shm.sharedIdle(config)));
            return PeregrineWorkerResponder.start(reactor, handler -> new ShmTransport(reactor, shm.options(config),
                handler), PeregrineShmBenchSupport.address(config, "pp"), workers, idle);
        }
        final Reactor reactor = new Reactor(PeregrineTcpBench.reactorOptions(config, "peregrine-tcp-responder", true));
        return PeregrineWorkerResponder.start(reactor, handler -> new TcpTransport(reactor,
            PeregrineTcpBench.options(config, true), handler), PeregrineTcpBench.address(config), workers, idle);
    }

    @Override
    public boolean sharedResponder() {
        return true; // one reactor thread owns every connection, the workers share them by key
    }
}
