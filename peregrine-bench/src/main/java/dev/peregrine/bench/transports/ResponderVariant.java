package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;

import java.util.List;

/**
 * A Peregrine transport with another responder ({@code [separated]}, {@code [logged]}, {@code +workers=N}): the
 * base transport's clients, path, JVM arguments and availability, a name and a responder of its own. The clients
 * being the base's is what makes a variant's row comparable with the base's in one run.
 */
abstract class ResponderVariant implements BenchTransport, BlockingClients {
    /** The transport whose clients and set-up the variant keeps. */
    final BenchTransport base;

    ResponderVariant(final BenchTransport base) {
        this.base = base;
    }

    @Override
    public final String path() {
        return base.path();
    }

    @Override
    public final List<String> jvmArguments() {
        return base.jvmArguments();
    }

    @Override
    public final String unavailableReason(final BenchConfig config) {
        return base.unavailableReason(config);
    }

    @Override
    public final String clientsUnavailableReason(final BenchConfig config, final int clients) {
        return base.clientsUnavailableReason(config, clients);
    }

    @Override
    public final PingClient connect(final BenchConfig config) throws Exception {
        return base.connect(config);
    }

    @Override
    public final List<PingClient> connectAll(final BenchConfig config, final int count) throws Exception {
        return base.connectAll(config, count);
    }

    /**
     * The base transport's client that waits asleep, where it has one.
     *
     * @throws IllegalStateException if the base has none
     */
    @Override
    public final BlockingClients.Client connectBlocking(final BenchConfig config) throws Exception {
        if (!(base instanceof BlockingClients blocking)) {
            throw new IllegalStateException("transport=" + base.name() + " has no client that waits asleep");
        }
        return blocking.connectBlocking(config);
    }
}
