package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;

/**
 * Aeron over {@code aeron:udp}: pings to {@code host:port}, echoes to {@code host:port+1}, the stream to
 * {@code host:port}; the peer of Peregrine's UDP path.
 */
public final class AeronUdpBenchTransport extends AeronBenchTransport {
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
