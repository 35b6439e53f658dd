package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.shm.ShmWaitStrategy;

/**
 * Peregrine's shared-memory rings between two processes, waiting by busy-spinning (or backing off when the
 * run does not busy-spin): the latency path.
 */
public final class PeregrineShmBench extends PeregrineShmBenchSupport {
    /** Creates the adapter (found through {@link java.util.ServiceLoader}). */
    public PeregrineShmBench() {
    }

    @Override
    public String name() {
        return "peregrine-shm";
    }

    @Override
    public String description() {
        return "Peregrine SPSC rings in memory-mapped files (/dev/shm), rendezvous over a Unix domain socket, "
            + "zero-copy claim/commit, waiting side busy-spins";
    }

    @Override
    ShmWaitStrategy waitStrategy(final BenchConfig config) {
        return spinOrBackoff(config);
    }
}
