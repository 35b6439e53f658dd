package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.shm.ShmFutex;
import dev.peregrine.shm.ShmWaitStrategy;

/**
 * Peregrine's shared-memory rings with the responder asleep in the kernel on the ring's futex word between
 * messages: the round trip includes one futex wake-up, which is what this adapter measures. An idle
 * responder costs no CPU.
 */
public final class PeregrineShmFutexBench extends PeregrineShmBenchSupport {
    /** Creates the adapter (found through {@link java.util.ServiceLoader}). */
    public PeregrineShmFutexBench() {
    }

    @Override
    public String name() {
        return "peregrine-shm-futex";
    }

    @Override
    public String description() {
        return "Peregrine SPSC rings in memory-mapped files; the responder sleeps on a futex (FUTEX_WAIT) at once "
            + "when idle and the writer's commit wakes it: wake-up round trip";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        final String futex = ShmFutex.unavailableReason();
        return futex != null ? futex : super.unavailableReason(config);
    }

    /**
     * No: what this adapter measures is a responder asleep on its ring's futex word, and one thread serving several
     * rings cannot sleep on several words at once; a shared responder would poll, which is
     * {@code peregrine-shm-backoff}'s measure. {@code --topology per-client} runs it.
     *
     * @return false
     */
    @Override
    public boolean sharedResponder() {
        return false;
    }

    @Override
    ShmWaitStrategy waitStrategy(final BenchConfig config) {
        return futex();
    }
}
