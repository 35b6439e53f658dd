package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.shm.ShmRingDescriptor;
import dev.peregrine.shm.ShmWaitStrategy;

/**
 * {@code peregrine-shm} with packed records ({@code ShmOptions.recordAlignment(8)}) instead of one cache line
 * per record: fewer lines per small message, for one-way throughput; the round trip shows what it costs.
 */
public final class PeregrineShmPackedBench extends PeregrineShmBenchSupport {
    /** Creates the adapter (found through {@link java.util.ServiceLoader}). */
    public PeregrineShmPackedBench() {
    }

    @Override
    public String name() {
        return "peregrine-shm-packed";
    }

    @Override
    public String description() {
        return "peregrine-shm with records packed at 8-byte alignment (ShmOptions.recordAlignment(8)) instead of "
            + "one 64-byte cache line each: a 32-byte message takes 40 bytes of ring, not 64; waiting side busy-spins";
    }

    @Override
    int recordAlignment() {
        return ShmRingDescriptor.MIN_ALIGNMENT;
    }

    @Override
    ShmWaitStrategy waitStrategy(final BenchConfig config) {
        return spinOrBackoff(config);
    }
}
