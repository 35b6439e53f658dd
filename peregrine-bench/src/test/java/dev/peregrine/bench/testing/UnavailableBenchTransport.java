package dev.peregrine.bench.testing;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;

/**
 * A test-only transport that can never run here, to check it is listed with its reason rather than hidden.
 */
public final class UnavailableBenchTransport implements BenchTransport {
    @Override
    public String name() {
        return "test-unavailable";
    }

    @Override
    public String description() {
        return "test-only, never available";
    }

    @Override
    public String path() {
        return "udp";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        return "needs more cores than this machine has";
    }

    @Override
    public Responder startResponder(final BenchConfig config) {
        throw new IllegalStateException("unavailable");
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        throw new IllegalStateException("unavailable");
    }
}
