package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;

/**
 * Aeron over {@code aeron:udp}: pings to {@code host:port}, echoes to {@code host:port+1}, the stream to
 * {@code host:port}; the peer of Peregrine's UDP path.
 */
public final class AeronUdpBenchTransport extends AeronBenchTransport {
    /** Fewest cores on which three spinning threads (driver, responder, client) each get one. */
    public static final int MIN_CORES_TO_SPIN = 3;
    /** System property that runs Aeron UDP busy-spinning even on too few cores. */
    public static final String FORCE_PROPERTY = "peregrine.aeron.udp.force";

    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public AeronUdpBenchTransport() {
    }

    @Override
    public String name() {
        return "aeron-udp";
    }

    @Override
    public String description() {
        return "Aeron 1.51 aeron:udp?endpoint=<host>:<port> (pong on port+1); " + AeronDriverSettings.describe(true);
    }

    @Override
    public String path() {
        return "udp";
    }

    /**
     * Refuses a busy-spinning run on fewer than {@value #MIN_CORES_TO_SPIN} cores unless
     * {@value #FORCE_PROPERTY} is set: the driver's thread, the responder and the client all spin, so they take
     * turns of a scheduler time slice and the result measures the scheduler, not Aeron. Measured on the
     * two-core development machine: p50 about 2.1 ms per 256-byte round trip (Aeron IPC: about 1 µs).
     */
    @Override
    public String unavailableReason(final BenchConfig config) {
        final int cores = Runtime.getRuntime().availableProcessors();
        if (config.busySpin() && cores < MIN_CORES_TO_SPIN && !Boolean.getBoolean(FORCE_PROPERTY)) {
            return "Aeron UDP needs a core for its media driver's thread besides the spinning responder and client;"
                + " with " + cores + " cores the three spinning threads take turns of a scheduler time slice (measured"
                + " here: p50 about 2.1 ms per 256-byte round trip, against about 1 us for Aeron IPC), which measures"
                + " the scheduler rather than Aeron (run without busy-spin, or with -D" + FORCE_PROPERTY
                + "=true to measure it anyway)";
        }
        return null;
    }

    @Override
    protected boolean driverOnDataPath() {
        return true;
    }

    @Override
    protected String pingChannel(final BenchConfig config) {
        return endpoint(config, config.port());
    }

    @Override
    protected String pongChannel(final BenchConfig config) {
        return endpoint(config, config.port() + 1);
    }

    @Override
    protected String streamChannel(final BenchConfig config) {
        return endpoint(config, config.port());
    }

    private static String endpoint(final BenchConfig config, final int port) {
        final String host = config.host().indexOf(':') >= 0 ? "[" + config.host() + "]" : config.host();
        return "aeron:udp?endpoint=" + host + ":" + port;
    }
}
