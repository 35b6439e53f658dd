package dev.peregrine.peers;

/**
 * Clients that share one event loop and know which of them an echo reached: a loop that drives them all asks
 * here which to poll, instead of polling every client that awaits an echo in every pass. With a thousand
 * connections and a queue in front of the responder, most clients await an echo at any time; polling each of
 * them in every pass would cost the client thread more than the messages do.
 *
 * <p>Used by the one thread that uses the clients. Allocates nothing.
 */
public interface EchoReadiness {
    /**
     * Runs the clients' event loop once (what was sent is written, what arrived is read) and lists the clients
     * that have an echo waiting or whose connection closed since the last call, each once.
     *
     * @param ready where the clients' indexes ({@link #indexOf}) go; as long as the number of clients
     * @return how many were listed
     */
    int pollReady(int[] ready);

    /**
     * The index that {@link #pollReady} gives a client.
     *
     * @param client a client of this group
     * @return its index, from 0; -1 if it is not one of this group's
     */
    int indexOf(PingClient client);

    /**
     * How many clients the group has.
     *
     * @return the count
     */
    int size();
}
