package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.util.List;

/**
 * What the IPC and UDP Aeron peers share; a subclass only names its channels.
 */
public abstract class AeronBenchTransport implements BenchTransport {
    /** Creates the transport. */
    protected AeronBenchTransport() {
    }

    /**
     * Whether the driver's thread carries the messages (UDP) or only does housekeeping (IPC).
     *
     * @return true for UDP
     */
    protected abstract boolean driverOnDataPath();

    /**
     * The channel the client publishes pings on and the responder subscribes to.
     *
     * @param config the run's configuration
     * @return an Aeron channel URI
     */
    protected abstract String pingChannel(BenchConfig config);

    /**
     * The channel the responder publishes echoes on and the client subscribes to.
     *
     * @param config the run's configuration
     * @return an Aeron channel URI
     */
    protected abstract String pongChannel(BenchConfig config);

    /**
     * The channel of the one-way stream.
     *
     * @param config the run's configuration
     * @return an Aeron channel URI
     */
    protected abstract String streamChannel(BenchConfig config);

    @Override
    public List<String> jvmArguments() {
        return AeronDriverSettings.JVM_ARGUMENTS;
    }

    @Override
    public Responder startResponder(final BenchConfig config) {
        return AeronResponder.start(config, driverOnDataPath(), pingChannel(config), pongChannel(config));
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        return AeronPingClient.connect(config, pingChannel(config), pongChannel(config));
    }

    @Override
    public boolean sharedResponder() {
        return true; // one responder thread polls the ping subscription of every client, and answers each session on a pong publication of its own
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    @Override
    public boolean supportsStream() {
        return true;
    }

    @Override
    public StreamReceiver startStreamReceiver(final BenchConfig config) {
        return AeronStreamReceiver.start(config, driverOnDataPath(), streamChannel(config));
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) {
        return AeronStreamSender.connect(config, streamChannel(config));
    }
}
