package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.reactor.BackoffIdleStrategy;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.shm.ShmBackoffWait;
import dev.peregrine.shm.ShmWaitStrategy;

/**
 * Peregrine's shared-memory rings with the responder on the spin-then-yield-then-park strategy
 * ({@link ShmBackoffWait}): under steady ping-pong it spins like {@code peregrine-shm}; after an idle gap (a
 * {@code bench load} at a low rate) the round trip shows how late a parked reader notices a message.
 */
public final class PeregrineShmBackoffBench extends PeregrineShmBenchSupport {
    /** Creates the adapter (found through {@link java.util.ServiceLoader}). */
    public PeregrineShmBackoffBench() {
    }

    @Override
    public String name() {
        return "peregrine-shm-backoff";
    }

    @Override
    public String description() {
        return "Peregrine SPSC rings in memory-mapped files; the responder waits with ShmBackoffWait (100 spins, "
            + "10 yields, then parks from 1 us doubling to 1 ms): after an idle gap the round trip includes the rest "
            + "of a park";
    }

    @Override
    IdleStrategy sharedIdle(final BenchConfig config) {
        return new BackoffIdleStrategy(); // the same 100 spins, 10 yields and 1 us to 1 ms parks as ShmBackoffWait
    }

    @Override
    ShmWaitStrategy waitStrategy(final BenchConfig config) {
        return new ShmBackoffWait();
    }
}
