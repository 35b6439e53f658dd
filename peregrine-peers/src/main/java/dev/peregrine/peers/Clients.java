package dev.peregrine.peers;

import java.util.ArrayList;
import java.util.List;

/**
 * Connecting several clients so that a failure leaves none open: what {@link BenchTransport#connectAll} and
 * {@link RecoveringStreamTransport} do by default. Here, beside them, so that this API package uses nothing of
 * {@code support} (which builds on it).
 */
final class Clients {
    private Clients() {
    }

    /** Connects the client of one index. */
    @FunctionalInterface
    interface Connector {
        /**
         * Connects one client.
         *
         * @param index 0 to the count - 1
         * @return the client
         * @throws Exception if it cannot connect
         */
        PingClient connect(int index) throws Exception;
    }

    /**
     * Connects {@code count} clients in order; if one fails, those already connected are closed (a close that
     * throws is added to the failure as suppressed) and the failure is thrown.
     *
     * @param count how many
     * @param connector connects the client of each index
     * @return the clients, in index order
     * @throws Exception the first failure
     */
    static List<PingClient> connectEach(final int count, final Connector connector) throws Exception {
        final List<PingClient> clients = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                clients.add(connector.connect(i));
            }
        } catch (final Exception | Error ex) {
            for (final PingClient client : clients) {
                try {
                    client.close();
                } catch (final RuntimeException closing) {
                    ex.addSuppressed(closing);
                }
            }
            throw ex;
        }
        return clients;
    }
}
