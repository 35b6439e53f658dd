package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;

/**
 * A transport whose ping-pong client can wait for an echo asleep, in a blocking select on its socket, instead of
 * polling ({@code bench pingpong --client-wait block}). A polling client holds a core for as long as it waits; on
 * a machine with fewer cores than the run's busy threads, a sleeping one leaves that core to the responder's. The
 * responder is the same either way, and every row of a run gets the same client, so every row pays a wake-up per
 * echo. The wake-up is not always the same cost: it depends on whether the client's core was idle or running
 * another thread at the time.
 */
public interface BlockingClients {
    /**
     * Connects a client that waits asleep.
     *
     * @param config where to connect
     * @return the connected client
     * @throws Exception if it cannot connect
     */
    Client connectBlocking(BenchConfig config) throws Exception;

    /** A ping-pong client that can wait for input without spinning. Used by one thread. */
    interface Client extends PingClient {
        /**
         * Waits until input may have arrived: sleeps in the client's selector until its socket is readable (and
         * reads what woke it), or until a bound of the selector's passes. A {@link #poll()} tells what came.
         */
        void awaitInput();
    }
}
