package dev.peregrine.bench.run;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.ThreadAffinity;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Responders on threads of this JVM ({@code --in-process}). Their allocation is that of every thread started
 * since they were (which, in one JVM, may include threads a client started too); JIT and GC are the shared
 * JVM's and are reported with the client.
 */
public final class LocalResponderSide implements ResponderSide {
    private final List<Responder> responders;
    private final Set<Long> excludedThreads;
    private final ThreadAllocation.Tracker allocation;

    private LocalResponderSide(final List<Responder> responders, final Set<Long> excludedThreads) {
        this.responders = responders;
        this.excludedThreads = excludedThreads;
        this.allocation = new ThreadAllocation.Tracker(excludedThreads);
    }

    /**
     * Starts one responder per configuration, from a thread pinned to {@code cpu} (threads a transport starts
     * inherit the affinity of the thread that starts them).
     *
     * @param transport the transport
     * @param configs one configuration per responder
     * @param cpu the CPU to pin to, or -1
     * @return the started side
     * @throws Exception if a responder cannot start
     */
    public static LocalResponderSide start(final BenchTransport transport, final List<BenchConfig> configs,
                                           final int cpu) throws Exception {
        return start(transport, configs, cpu, false);
    }

    /**
     * Starts one responder per configuration, or the one responder of the shared topology
     * ({@link BenchTransport#startSharedResponder}), from a thread pinned to {@code cpu}.
     *
     * @param transport the transport
     * @param configs one configuration per responder
     * @param cpu the CPU to pin to, or -1
     * @param shared whether the responder is to serve every client ({@code bench load --topology shared})
     * @return the started side
     * @throws Exception if a responder cannot start
     */
    public static LocalResponderSide start(final BenchTransport transport, final List<BenchConfig> configs,
                                           final int cpu, final boolean shared) throws Exception {
        final Set<Long> before = ThreadAllocation.liveThreadIds();
        final List<Responder> started = new ArrayList<>();
        final AtomicReference<Exception> failure = new AtomicReference<>();
        final Thread starter = new Thread(() -> {
            if (cpu >= 0) {
                final String why = ThreadAffinity.pinCurrentThread(cpu);
                if (why != null) {
                    System.err.println("peregrine: responder not pinned to cpu " + cpu + ": " + why);
                }
            }
            try {
                for (final BenchConfig config : configs) {
                    started.add(shared ? transport.startSharedResponder(config) : transport.startResponder(config));
                }
            } catch (final Exception ex) {
                failure.set(ex);
            }
        }, "responder-starter");
        starter.start();
        starter.join();
        final Set<Long> excluded = java.util.concurrent.ConcurrentHashMap.newKeySet();
        excluded.addAll(before);
        excluded.add(starter.threadId());
        final LocalResponderSide side = new LocalResponderSide(started, excluded);
        if (failure.get() != null) {
            side.close();
            throw failure.get();
        }
        return side;
    }

    /**
     * Leaves a thread out of the responders' allocation (a client thread started later).
     *
     * @param threadId the thread
     */
    public void excludeThread(final long threadId) {
        excludedThreads.add(threadId);
    }

    @Override
    public ResponderStats stats() {
        long messages = 0;
        for (final Responder responder : responders) {
            messages += responder.messages();
        }
        return new ResponderStats(messages, allocation.total(), RuntimeCounters.UNKNOWN);
    }

    @Override
    public String where() {
        return "threads of the client's JVM (--in-process)";
    }

    @Override
    public void close() {
        for (final Responder responder : responders) {
            try {
                responder.close();
            } catch (final RuntimeException ex) {
                System.err.println("peregrine: closing a responder failed: " + ex);
            }
        }
    }
}
