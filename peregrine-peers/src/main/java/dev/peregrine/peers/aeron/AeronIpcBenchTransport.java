package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;

/**
 * Aeron over {@code aeron:ipc}: the peer of Peregrine's shared-memory path.
 */
public final class AeronIpcBenchTransport extends AeronBenchTransport {
    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public AeronIpcBenchTransport() {
    }

    @Override
    public String name() {
        return "aeron-ipc";
    }

    @Override
    public String description() {
        return "Aeron 1.51 aeron:ipc; " + AeronDriverSettings.describe(false);
    }

    @Override
    public String path() {
        return "shm";
    }

    @Override
    protected boolean driverOnDataPath() {
        return false;
    }

    @Override
    protected String pingChannel(final BenchConfig config) {
        return "aeron:ipc";
    }

    @Override
    protected String pongChannel(final BenchConfig config) {
        return "aeron:ipc";
    }

    @Override
    protected String streamChannel(final BenchConfig config) {
        return "aeron:ipc";
    }
}
