package dev.peregrine.bench.testing;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;

/**
 * A test-only transport whose client cannot connect, to check a failure is reported and the run goes on.
 */
public final class BrokenBenchTransport implements BenchTransport {
    @Override
    public String name() {
        return "test-broken";
    }

    @Override
    public String description() {
        return "test-only, connect always fails";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public Responder startResponder(final BenchConfig config) {
        return new Responder() {
            @Override
            public long messages() {
                return 0;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        throw new IllegalStateException("connection refused by design");
    }
}
