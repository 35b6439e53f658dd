package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.handoff.SeparatedSleepIdleStrategy;
import dev.peregrine.handoff.SeparatedStack;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.shm.ShmFutex;
import dev.peregrine.shm.ShmTransport;
import dev.peregrine.tcp.TcpTransport;

import java.util.List;
import java.util.function.Function;

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
    /**
     * What the name ends with of the variant whose application thread, where it has no core of its own, sleeps on a
     * futex that the reactor wakes per event ({@link SeparatedSleepIdleStrategy}) instead of yielding.
     */
    public static final String SLEEP_SUFFIX = "[separated-sleep]";
    /** The transports that have a separated variant. */
    public static final List<String> BASES = List.of("peregrine-tcp", "peregrine-shm");

    /** Longest sleep of a sleeping application thread: a bound, never a latency (each event wakes it). */
    private static final long SLEEP_BOUND_NS = 100_000_000L;

    private final boolean sleeping;

    private SeparatedBench(final BenchTransport base, final boolean sleeping) {
        super(base);
        this.sleeping = sleeping;
    }

    /**
     * One line for the report: what the {@code [separated]} rows measure and how, on this machine, their reactor and
     * application thread wait (the mode follows the cores of the machine that runs it).
     *
     * @param busySpin whether the run's waiting sides spin
     * @return the line
     */
    public static String note(final boolean busySpin) {
        final int cores = Runtime.getRuntime().availableProcessors();
        final boolean spins = busySpin && cores >= 3;
        final String mode = spins
            ? "the reactor spins as in the shared rows and the application thread yields when idle"
            : "the reactor and the application thread yield when idle (YieldingIdleStrategy; 3 cores are needed for"
                + " client, reactor and application to spin: a third spinning thread on 2 vCPUs measures the scheduler)";
        final String sleepMode = spins ? "as in [separated]: the application thread has a core"
            : sleeps() ? "the reactor as in [separated], the application thread sleeping on a futex that the reactor"
                + " wakes for each event (SeparatedSleepIdleStrategy)"
            : "as in [separated]: no futex here (" + ShmFutex.unavailableReason() + ")";
        return "[separated] rows: the responder's echo handler runs on an application thread of its own; events reach"
            + " it through a one-to-one ring, echoes leave through the reactor's command ring. Mode on this machine ("
            + cores + " cores" + (busySpin ? "" : ", no busy-spin") + "): " + mode + ". [separated-sleep] rows, if"
            + " asked: " + sleepMode;
    }

    /**
     * The separated variant of a transport.
     *
     * @param base {@code peregrine-tcp} or {@code peregrine-shm}
     * @return the variant
     * @throws IllegalArgumentException for any other transport, naming those that have one
     */
    public static SeparatedBench of(final BenchTransport base) {
        return of(base, false);
    }

    /**
     * The separated variant of a transport whose application thread sleeps on a futex where it has no core of its
     * own ({@link #SLEEP_SUFFIX}).
     *
     * @param base {@code peregrine-tcp} or {@code peregrine-shm}
     * @return the variant
     * @throws IllegalArgumentException for any other transport, naming those that have one
     */
    public static SeparatedBench sleeping(final BenchTransport base) {
        return of(base, true);
    }

    private static SeparatedBench of(final BenchTransport base, final boolean sleeping) {
        if (!(base instanceof PeregrineTcpBench) && !(base instanceof PeregrineShmBench)) {
            throw new IllegalArgumentException("transport=" + base.name() + " has no separated stack; only "
                + String.join(", ", BASES) + " have one");
        }
        return new SeparatedBench(base, sleeping);
    }

    @Override
    public String name() {
        return base.name() + (sleeping ? SLEEP_SUFFIX : SUFFIX);
    }

    @Override
    public String description() {
        return base.name() + " with the responder on the separated stack: its transport on the reactor thread, its"
            + " echo handler on an application thread of its own that yields when idle (YieldingIdleStrategy: on 2"
            + " vCPUs a third spinning thread measures the scheduler), events through a one-to-one off-heap ring,"
            + " echoes through the reactor's command ring; client as in " + base.name() + ", the reactor too when"
            + " client, reactor and application thread each have a core, else yielding when idle"
            + (sleeping ? ", and then the application thread sleeps on a futex that the reactor wakes for each"
            + " event instead of yielding" : "");
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
        return config.busySpin() && Runtime.getRuntime().availableProcessors() >= 3; // as note() says
    }

    /** Whether the application thread can sleep on a futex here (Linux x86_64 or aarch64, native access). */
    private static boolean sleeps() {
        return ShmFutex.isAvailable();
    }

    /**
     * The application thread's idle strategy: in the {@code [separated-sleep]} rows, where the reactor does not spin
     * (it shares a core with the application), sleeping on a futex, so that the reactor hands each event over with a
     * wake-up instead of waiting for {@code sched_yield} to pick it; yielding otherwise. Yielding stays the
     * {@code [separated]} rows' way: on the 2-vCPU VM a futex hand-over cost the two threads more CPU than a yield
     * (5.5-6.7 us against 3.4-3.6 us, docs/separated-two-cores.md).
     */
    private Function<SeparatedStack, IdleStrategy> applicationIdle(final BenchConfig config) {
        if (!sleeping || reactorSpins(config) || !sleeps()) {
            return stack -> new YieldingIdleStrategy();
        }
        return stack -> new SeparatedSleepIdleStrategy(stack, 0, SLEEP_BOUND_NS);
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        if (base instanceof PeregrineTcpBench) {
            final ReactorOptions options = PeregrineTcpBench.reactorOptions(config, "peregrine-tcp-separated");
            final Reactor reactor = new Reactor(reactorSpins(config) ? options
                : options.idleStrategy(new YieldingIdleStrategy()));
            return SeparatedResponder.start(reactor,
                handler -> new TcpTransport(reactor, PeregrineTcpBench.options(config), handler),
                PeregrineTcpBench.address(config), config.largest(), applicationIdle(config));
        }
        final PeregrineShmBenchSupport shm = (PeregrineShmBenchSupport)base;
        final Reactor reactor = new Reactor(new ReactorOptions().name("peregrine-shm-separated")
            .idleStrategy(reactorSpins(config) ? shm.sharedIdle(config) : new YieldingIdleStrategy()));
        return SeparatedResponder.start(reactor, handler -> new ShmTransport(reactor, shm.options(config), handler),
            PeregrineShmBenchSupport.address(config, "pp"), config.largest(), applicationIdle(config));
    }

}
