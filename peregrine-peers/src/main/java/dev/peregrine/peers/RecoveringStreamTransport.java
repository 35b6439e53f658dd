package dev.peregrine.peers;

/**
 * A transport whose one-way stream recovers lost packets (MoldUDP64: a re-request server next to the
 * publisher), so that a throughput run may drop some of the publisher's packets on purpose
 * ({@link StreamLoss}) and still check that every sequence number arrives exactly once, in order. Its
 * receiver is a {@link RecoveringStreamReceiver} and its sender a {@link RecoveringStreamSender}.
 */
public interface RecoveringStreamTransport extends BenchTransport {
    /**
     * Connects the sending side of a one-way stream that drops live packets as {@code loss} says.
     *
     * @param config the run's configuration
     * @param loss the simulated loss
     * @return the sender
     * @throws Exception if it cannot connect
     */
    RecoveringStreamSender connectStreamSender(BenchConfig config, StreamLoss loss) throws Exception;

    @Override
    default StreamSender connectStreamSender(final BenchConfig config) throws Exception {
        return connectStreamSender(config, StreamLoss.NONE);
    }

    @Override
    default boolean supportsStream() {
        return true;
    }
}
