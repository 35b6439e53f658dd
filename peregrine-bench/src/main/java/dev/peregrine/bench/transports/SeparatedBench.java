package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.shm.ShmTransport;
import dev.peregrine.tcp.TcpTransport;

import java.util.List;

/**
 * A Peregrine transport whose responder runs the separated stack ({@link SeparatedResponder}): the same echo
 * handler on an application thread of its own, yielding when idle, the transport on the reactor thread as in the
 * shared stack; the client is the base transport's, unchanged. Named {@code <base>[separated]}, so that its rows
 * stand beside the base's in one run. Not in {@link Transports#all()}: {@code --stack separated} asks for it, and
 * {@link Transports#byName} finds it by that name (the responder JVM does).
 */
public final class SeparatedBench extends ResponderVariant {
    /** What a separated variant's name ends with. */
    public static final String SUFFIX = "[separated]";
    /** The transports that have a separated variant. */
    public static final List<String> BASES = List.of("peregrine-tcp", "peregrine-shm");

    /** One line for the report: what the {@code [separated]} rows measure and how their third thread waits. */
    public static final String NOTE = "[separated] rows: the responder's echo handler runs on an application thread of"
        + " its own, which yields when idle (YieldingIdleStrategy: on 2 vCPUs a third spinning thread measures the"
        + " scheduler), and with fewer than 3 cores the responder's reactor yields too (the shared rows' spins);"
        + " events reach it through a one-to-one ring, echoes leave through the reactor's command ring";

    private SeparatedBench(final BenchTransport base) {
        super(base);
    }

    /**
     * The separated variant of a transport.
     *
     * @param base {@code peregrine-tcp} or {@code peregrine-shm}
     * @return the variant
     * @throws IllegalArgumentException for any other transport, naming those that have one
     */
    public static SeparatedBench of(final BenchTransport base) {
        if (!(base instanceof PeregrineTcpBench) && !(base instanceof PeregrineShmBench)) {
            throw new IllegalArgumentException("transport=" + base.name() + " has no separated stack; only "
                + String.join(", ", BASES) + " have one");
        }
        return new SeparatedBench(base);
    }

    @Override
    public String name() {
        return base.name() + SUFFIX;
    }

    @Override
    public String description() {
        return base.name() + " with the responder on the separated stack: its transport on the reactor thread, its"
            + " echo handler on an application thread of its own that yields when idle (YieldingIdleStrategy: on 2"
            + " vCPUs a third spinning thread measures the scheduler), events through a one-to-one off-heap ring,"
            + " echoes through the reactor's command ring; client as in " + base.name() + ", the reactor too when"
            + " client, reactor and application thread each have a core, else yielding when idle";
    }

    /**
     * Whether the responder's reactor spins as in the shared rows: only when the client, the reactor and the
     * application thread each have a core. Otherwise it yields when idle, as the application thread does: with the
     * client and the reactor spinning on two cores, the yielding application thread waits a scheduler slice (some
     * milliseconds) for every event, and the run measures the scheduler.
     *
     * @param config the run's configuration
     * @return true to spin
     */
    static boolean reactorSpins(final BenchConfig config) {
        return config.busySpin() && Runtime.getRuntime().availableProcessors() >= 3;
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        if (base instanceof PeregrineTcpBench) {
            final ReactorOptions options = PeregrineTcpBench.reactorOptions(config, "peregrine-tcp-separated");
            final Reactor reactor = new Reactor(reactorSpins(config) ? options
                : options.idleStrategy(new YieldingIdleStrategy()));
            return SeparatedResponder.start(reactor,
                handler -> new TcpTransport(reactor, PeregrineTcpBench.options(config), handler),
                PeregrineTcpBench.address(config), config.largest());
        }
        final PeregrineShmBenchSupport shm = (PeregrineShmBenchSupport)base;
        final Reactor reactor = new Reactor(new ReactorOptions().name("peregrine-shm-separated")
            .idleStrategy(reactorSpins(config) ? shm.sharedIdle(config) : new YieldingIdleStrategy()));
        return SeparatedResponder.start(reactor, handler -> new ShmTransport(reactor, shm.options(config), handler),
            PeregrineShmBenchSupport.address(config, "pp"), config.largest());
    }

}
