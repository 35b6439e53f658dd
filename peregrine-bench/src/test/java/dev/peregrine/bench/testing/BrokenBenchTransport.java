package dev.peregrine.bench.testing;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test-only transport whose client cannot connect, to check a failure is reported and the run goes on.
 * Told to, it lets the first client connect to a responder that never answers, so that client is still
 * waiting when the others fail.
 */
public final class BrokenBenchTransport implements BenchTransport {
    private static final AtomicInteger CONNECTS = new AtomicInteger();
    private static volatile boolean firstConnects;

    /**
     * Whether the next run's first client connects (and then waits for echoes that never come).
     *
     * @param connects true for a first client that connects
     */
    public static void firstClientConnects(final boolean connects) {
        CONNECTS.set(0);
        firstConnects = connects;
    }

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
        if (firstConnects && CONNECTS.getAndIncrement() == 0) {
            return new PingClient() {
                @Override
                public void send(final long sequence) {
                }

                @Override
                public long poll() {
                    return -1;
                }

                @Override
                public void close() {
                }
            };
        }
        throw new IllegalStateException("connection refused by design");
    }
}
