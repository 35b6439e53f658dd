package dev.peregrine.peers;

import java.util.List;

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

    /**
     * Whether {@link #connect(BenchConfig, StreamLoss.Dropper)} drops the client's packets ({@code bench load
     * --loss}).
     *
     * @return true if a ping-pong client can lose packets on purpose
     */
    default boolean supportsPingLoss() {
        return false;
    }

    /**
     * Connects a ping-pong client whose publisher drops live packets as {@code dropper} decides before they reach
     * the socket; the responder recovers them from the client's request server, so every message is still echoed
     * exactly once, in order, only later. The echoes are not dropped.
     *
     * @param config the run's configuration
     * @param dropper the seeded decisions, used by the client's thread only
     * @return the connected client
     * @throws Exception if it cannot connect
     * @throws UnsupportedOperationException if {@link #supportsPingLoss()} is false
     */
    default PingClient connect(final BenchConfig config, final StreamLoss.Dropper dropper) throws Exception {
        throw new UnsupportedOperationException(name() + " cannot drop a ping-pong client's packets");
    }

    /**
     * Connects ping-pong clients to one shared responder ({@link #startSharedResponder}), all to be used by the
     * calling thread, each client's publisher dropping live packets as its own dropper decides ({@code bench load
     * --loss} in the shared topology). By default, {@link #connect(BenchConfig, StreamLoss.Dropper)} once per
     * dropper, for a transport whose responder serves any number of such clients as it is.
     *
     * @param config the run's configuration
     * @param droppers one per client, in the order the clients are returned
     * @return the connected clients
     * @throws Exception if one cannot connect (those already connected are closed)
     * @throws UnsupportedOperationException if {@link #supportsPingLoss()} is false
     */
    default List<PingClient> connectAll(final BenchConfig config, final List<StreamLoss.Dropper> droppers)
        throws Exception {
        return Clients.connectEach(droppers.size(), i -> connect(config, droppers.get(i)));
    }

    @Override
    default StreamSender connectStreamSender(final BenchConfig config) throws Exception {
        return connectStreamSender(config, StreamLoss.NONE);
    }

    @Override
    default boolean supportsStream() {
        return true;
    }
}
