package dev.peregrine.reactor;

import java.nio.channels.SelectionKey;

/**
 * Receives readiness of a channel registered with {@link Reactor#register}.
 */
@FunctionalInterface
public interface SelectHandler {
    /**
     * The channel behind {@code key} is ready for the operations in {@code key.readyOps()}.
     * An exception thrown here is reported to the reactor's error handler and does not stop the reactor.
     *
     * @param key the selection key, with this handler as its attachment
     * @param nowNs the clock of this cycle
     */
    void onSelected(SelectionKey key, long nowNs);
}
